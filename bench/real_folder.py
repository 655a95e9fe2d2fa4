"""A question over a real, large folder, offline, end to end: how long `cairn run` takes.

A checkout of a research repository is mostly data no one reads as prose: JSON files of several
megabytes, a PDF, images, a video, minified JavaScript on one line. Cairn must answer a question
its README or docs answer in well under a minute, skip the binary files and say so. This builds
such a folder (over 10 MB) in a temporary directory, or takes `--folder PATH` for a real one, and
times `cairn run QUESTION --source FOLDER` in a subprocess, offline, with a fresh workspace; then
`cairn show --json` says which source files were skipped.

    python bench/real_folder.py                       # the generated folder
    python bench/real_folder.py --folder DIR --question "..." [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

CAIRN = Path(sys.executable).parent / "cairn"
QUESTION = "How many annotators labelled the Heron corpus?"
ANSWER = "14"


def build(folder: Path, seed: int = 0) -> int:
    """A research repository's shape under `folder`; returns its size in bytes."""
    rng = random.Random(seed)
    files: dict[str, str | bytes] = {
        "README.md": _readme(),
        "docs/dataset.md": _dataset_doc(),
        "docs/training.md": _training_doc(),
        "data/train.json": _records(rng, 3_000_000),
        "data/eval.json": _records(rng, 3_000_000),
        "paper/paper.pdf": _pdf(),
        "img/teaser.png": _png(rng, 256),
        "img/results.jpg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + rng.randbytes(400_000) + b"\xff\xd9",
        "video/demo.mp4": b"\x00\x00\x00\x20ftypisom" + rng.randbytes(3_500_000),
        "static/js/app.min.js": _minified(rng, 1_000_000),
    }
    for rel, data in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _readme() -> str:
    return (
        "# Heron: a corpus of field notes\n\n"
        "Heron is a corpus of bird-survey field notes with labelled sightings.\n\n"
        "## Contents\n\n- `data/`: the train and eval splits as JSON\n- `paper/`: the paper\n"
        "- `docs/`: how the corpus was made (see docs/dataset.md)\n\n"
        "## License\n\nThe corpus is released under CC BY 4.0.\n"
    )


def _dataset_doc() -> str:
    return (
        "# The dataset\n\n## Annotation\n\n"
        f"The Heron corpus was labelled by {ANSWER} annotators over six weeks in 2023.\n"
        "Each note was labelled twice; disagreements went to a third annotator.\n\n"
        "## Splits\n\nThe train split holds 9,000 notes and the eval split 1,000.\n"
    )


def _training_doc() -> str:
    return "# Training\n\n## Baselines\n\nThe baseline model was trained for 3 epochs on one GPU.\n"


def _records(rng: random.Random, size: int) -> str:
    """A pretty-printed JSON list of note records, about `size` characters."""
    words = ["heron", "egret", "marsh", "reed", "wader", "shore", "tide", "dawn", "flock", "nest"]
    out: list[dict[str, object]] = []
    total = 0
    while total < size:
        note = {"id": len(out), "species": rng.choice(words), "text": " ".join(rng.choices(words, k=24))}
        note |= {"count": rng.randint(1, 40), "annotator": f"a{rng.randint(1, 14)}"}
        out.append(note)
        total += 235  # what one record takes, pretty-printed
    return json.dumps(out, indent=2)


def _minified(rng: random.Random, size: int) -> str:
    names = ["a", "b", "c", "d", "e", "f", "n", "r", "t"]
    parts, total = [], 0
    while total < size:
        part = f"function {rng.choice(names)}{total}(e,t){{return e+t*{rng.randint(0, 99)}}};"
        parts.append(part)
        total += len(part)
    return "!function(){" + "".join(parts) + "}();"


def _pdf() -> bytes:
    """A small valid one-page PDF (its binary comment line marks it as binary, as real ones do)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length 44 >>\nstream\nBT /F1 24 Tf 72 720 Td (Heron) Tj ET\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % at for at in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _png(rng: random.Random, side: int) -> bytes:
    """A valid RGB PNG of random pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + rng.randbytes(side * 3) for _ in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _env(home: Path) -> dict[str, str]:
    """Offline (no CAIRN_MODEL), a fresh Cairn and Prefect home, no server of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIRN_", "PREFECT_"))}
    env |= {"CAIRN_HOME": str(home / "cairn-home"), "PREFECT_HOME": str(home / "prefect-home")}
    return env | {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}


def measure(folder: Path, question: str, work: Path, timeout: float) -> dict[str, object]:
    """Time one offline `cairn run` over `folder`; what it answered and what it skipped."""
    workspace, env = work / "workspace", _env(work)
    cmd = [str(CAIRN), "run", question, "--source", str(folder), "--workspace", str(workspace), "--json"]
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    seconds, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result = _last_json(proc.stdout)
    task_id, report = result.get("task_id"), result.get("report_path")
    shown: dict[str, object] = {}
    if isinstance(task_id, str):
        show = [str(CAIRN), "show", task_id, "--workspace", str(workspace), "--json"]
        shown = _last_json(subprocess.run(show, capture_output=True, text=True, env=env).stdout)
    skipped = shown.get("skipped_sources") or {}
    return {
        "seconds": round(seconds, 1),
        "cpu_s": round(cpu, 1),  # the run's own CPU (user + system), which other load does not inflate
        "exit_code": proc.returncode,
        "answer": _first_line(Path(report) if isinstance(report, str) else None),
        "skipped": len(skipped) if isinstance(skipped, dict) else 0,
        "skipped_files": sorted(skipped)[:12] if isinstance(skipped, dict) else [],
        "stderr_tail": proc.stderr.strip().splitlines()[-1:] if proc.returncode else [],
    }


def _last_json(stdout: str) -> dict[str, object]:
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            found = json.loads(line)
            return found if isinstance(found, dict) else {}
    return {}


def _first_line(report: Path | None) -> str:
    """The report's first line of prose (its headings and an `Unverified` banner aside)."""
    if report is None or not report.is_file():
        return ""
    lines = report.read_text(encoding="utf-8", errors="replace").splitlines()
    return next((line.strip() for line in lines if line.strip() and not line.startswith(("#", ">"))), "")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--folder", type=Path, help="a real folder (default: generate one)")
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before the run is killed")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cairn-bench-folder-") as tmp:
        work = Path(tmp)
        folder = opts.folder or work / "repo"
        size = (
            build(folder)
            if opts.folder is None
            else sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        )
        row: dict[str, object] = {"folder": "generated" if opts.folder is None else str(folder)}
        row["mb"] = round(size / 1e6, 1)
        row |= {"question": opts.question, **measure(folder, opts.question, work, opts.timeout)}
        row["load"] = round(os.getloadavg()[0], 1)
    if opts.json:
        print(json.dumps(row))
        return
    print(f"{row['folder']} ({row['mb']} MB): {row['question']}")
    print(f"  {row['seconds']} s ({row['cpu_s']} s CPU, load {row['load']}), exit {row['exit_code']}")
    named = row["skipped_files"]
    print(f"  {row['skipped']} source files skipped: {', '.join(named) if isinstance(named, list) else ''}")
    print(f"  answer: {row['answer']}")
    if row["stderr_tail"]:
        print(f"  stderr: {row['stderr_tail']}")


if __name__ == "__main__":
    main()
