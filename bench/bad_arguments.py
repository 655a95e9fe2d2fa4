"""How fast `cairn` refuses a bad argument (issue 17: "a bad argument answers in well under a second").

Each case runs the console script in a fresh process, as a user would, and must exit 2 with one
line on stderr; `cairn --help` is the floor (starting Python and importing the CLI). Medians of
`--repeat` runs: wall-clock seconds, and CPU seconds of the child (user + system), which a busy
machine does not inflate. Nothing here reaches Prefect: `PREFECT_API_URL` names a dead port.

    python bench/bad_arguments.py              # a table
    python bench/bad_arguments.py --json       # {"cases": {name: {"wall_s": .., "cpu_s": ..}}}
    python bench/bad_arguments.py --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAIRN = Path(sys.executable).parent / "cairn"
CORPUS = ROOT / "examples" / "corpus"


def cases(tmp: Path) -> dict[str, list[str]]:
    (tmp / "a-file").write_text("x", encoding="utf-8")
    (tmp / "bad.jsonl").write_bytes(b"\xff\xfe\n")
    ws = ["--workspace", str(tmp / "ws")]
    return {
        "--help (the floor)": ["--help"],
        "--task-id /some/dir/important": ["run", "hi", *ws, "--task-id", str(tmp / "important")],
        "--max-iterations -5": ["run", "hi", *ws, "--max-iterations", "-5"],
        "--task-type nonsense": ["run", "hi", *ws, "--task-type", "nonsense"],
        "--source missing": ["run", "hi", *ws, "--source", str(tmp / "nowhere")],
        "--model replay:missing": ["run", "hi", *ws, "--model", f"replay:{tmp}/gone.jsonl"],
        "--model replay:bad byte": ["run", "hi", *ws, "--model", f"replay:{tmp}/bad.jsonl"],
        "workspace is a file": ["run", "hi", "--workspace", str(tmp / "a-file"), "--source", str(CORPUS)],
        "unknown option": ["run", "hi", "--bogus"],
    }


def measure(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, child CPU seconds) of one run; checks it was refused in one line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([str(CAIRN), *args], capture_output=True, text=True, env=env, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if args != ["--help"] and (proc.returncode != 2 or len(proc.stderr.splitlines()) != 1):
        raise SystemExit(f"not a one-line refusal: cairn {' '.join(args)}: {proc.returncode} {proc.stderr!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PREFECT_API_URL": "http://127.0.0.1:9/api", "CAIRN_HOME": f"{tmp}/home"}
        for name, args in cases(Path(tmp)).items():
            runs = [measure(args, env) for _ in range(opts.repeat)]
            results[name] = {
                "wall_s": round(statistics.median(w for w, _ in runs), 3),
                "cpu_s": round(statistics.median(c for _, c in runs), 3),
            }
    if opts.json:
        print(json.dumps({"repeat": opts.repeat, "load": os.getloadavg()[0], "cases": results}))
        return
    print(
        f"{'case':34} {'wall s':>8} {'cpu s':>8}   (median of {opts.repeat}; load {os.getloadavg()[0]:.1f})"
    )
    for name, row in results.items():
        print(f"{name:34} {row['wall_s']:8.3f} {row['cpu_s']:8.3f}")


if __name__ == "__main__":
    main()
