"""A real Weaviate server for the tests marked `weaviate_live`, one per test session.

`WEAVIATE_URL` (with `WEAVIATE_GRPC_PORT`, default 50051) names a server to use as it is.
Otherwise the scripts a user runs do the work: `deployments/weaviate/build.sh` builds the pinned
release once (about 8 minutes cold, then cached by version) before any test runs, so a missing Go
stops the session with one line instead of failing 51 tests; `deployments/weaviate/start.sh`
starts it on free loopback ports with telemetry off when the first live test asks, and stops
exactly that process when the session ends. The double (`tests/contract/weaviate_double.py`)
stays the fast lane's backend. The benches take a server the same way (`serving`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "deployments" / "weaviate"
MARKER = "weaviate_live"


@dataclass(frozen=True)
class LiveWeaviate:
    url: str
    grpc_port: int
    pid: int | None  # None: a server the session was given (WEAVIATE_URL), not one it started

    def env(self) -> dict[str, str]:
        """What a `cairn` subprocess needs to use this server as its store."""
        return {
            "CAIRN_STORE": "weaviate",
            "WEAVIATE_URL": self.url,
            "WEAVIATE_GRPC_PORT": str(self.grpc_port),
        }


def given() -> LiveWeaviate | None:
    """The server named by `WEAVIATE_URL`, if any."""
    url = os.environ.get("WEAVIATE_URL")
    return LiveWeaviate(url, int(os.environ.get("WEAVIATE_GRPC_PORT", "50051")), None) if url else None


def build(say: Callable[[str], None]) -> tuple[Path | None, str]:
    """The cached binary's path (built now if needed), or None and one line saying what went wrong.
    build.sh's own lines (which Go, how long) are passed to `say` as they come: a cold build is
    minutes of silence otherwise."""
    say("Weaviate for the weaviate_live tests: deployments/weaviate/build.sh (cached by version) ...")
    lines = []
    with subprocess.Popen(  # on exit: both pipes closed, the script reaped
        [str(SCRIPTS / "build.sh")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stderr is not None and proc.stdout is not None
        for line in proc.stderr:  # stdout is one line: it cannot fill its pipe meanwhile
            lines.append(line.rstrip())
            if line.startswith("build.sh:"):
                say(line.rstrip())
        path = proc.stdout.read().strip()
    if proc.returncode != 0:
        why = next(
            (line for line in reversed(lines) if line.startswith("build.sh:")), (lines or ["no output"])[-1]
        )
        return None, f"{why} (`pytest -m 'not {MARKER}'` leaves the live Weaviate tests out)"
    return Path(path.splitlines()[-1]), ""


def start(binary: Path, run_dir: Path) -> LiveWeaviate:
    """Start the built server with `run_dir` for its pid file, log and data."""
    done = _script("start", binary, run_dir)
    found = dict(re.findall(r"^export (WEAVIATE_\w+)=(\S+)$", done.stdout, re.MULTILINE))
    return LiveWeaviate(found["WEAVIATE_URL"], int(found["WEAVIATE_GRPC_PORT"]), int(found["WEAVIATE_PID"]))


def stop(binary: Path, run_dir: Path) -> None:
    _script("stop", binary, run_dir)


def _script(action: str, binary: Path, run_dir: Path) -> subprocess.CompletedProcess[str]:
    command = [str(SCRIPTS / "start.sh"), action, "--dir", str(run_dir), "--binary", str(binary)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        raise RuntimeError(f"start.sh {action} failed: {done.stderr.strip()[-2000:]}")
    return done


@contextmanager
def serving() -> Iterator[LiveWeaviate]:
    """`WEAVIATE_URL`'s server, or the pinned release started for the block and stopped after it
    (for the benches: progress on stderr, a missing Go one error line)."""
    found = given()
    if found:
        yield found
        return
    binary, problem = build(lambda line: print(line, file=sys.stderr))
    if binary is None:
        raise SystemExit(problem)
    with tempfile.TemporaryDirectory(prefix="cairn-weaviate-") as tmp:
        server = start(binary, Path(tmp))
        try:
            yield server
        finally:
            stop(binary, Path(tmp))
