"""Model failures in plain sight, as a user meets them at the command line: an unknown model, a
server that refuses or stalls (refused before anything is created, in one line naming the model
and where it was sought), and a server that dies mid-task (the task stops, resumably)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cairn.memory.log.workspace import Workspace
from tests.conftest import CORPUS, QUESTION_FILE, cairn, free_port
from tests.model_server import ModelServer

pytestmark = pytest.mark.e2e
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()


def _env(base: str | None = None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "CAIRN_MODEL")}
    if base:
        env.update({"OPENAI_API_BASE": base, "OPENAI_API_KEY": "test"})
    return {**env, **extra}


def _refused(proc: subprocess.CompletedProcess[str], ws: Path) -> list[str]:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 4, proc.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("cairn: error: "), proc.stderr
    assert not ws.exists()  # nothing created
    assert "temporary server" not in proc.stderr  # Prefect never started
    return lines


def test_an_unknown_model_is_refused_before_anything_starts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    proc = cairn(["run", QUESTION, "--workspace", str(ws), "--model", "no-such-provider/x"], _env(), 120)
    (line,) = _refused(proc, ws)
    assert "no-such-provider/x" in line


def test_a_refused_connection_names_the_model_and_its_server(tmp_path: Path) -> None:
    ws, base = tmp_path / "ws", f"http://127.0.0.1:{free_port()}/v1"
    proc = cairn(["run", QUESTION, "--workspace", str(ws), "--model", "openai/small"], _env(base), 120)
    (line,) = _refused(proc, ws)
    assert "openai/small" in line and base in line and "does not answer" in line


def test_a_stalled_server_is_refused_after_the_timeout(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with ModelServer(stall_seconds=20) as server:
        server.mode = "stall"
        args = ["run", QUESTION, "--workspace", str(ws), "--model", "openai/small"]
        proc = cairn(args, _env(server.url, CAIRN_MODEL_TIMEOUT="1"), 120)
    (line,) = _refused(proc, ws)
    assert server.url in line and "timeout" in line.lower()


def test_a_server_that_dies_mid_task_stops_it_and_resume_goes_on(prefect_server: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with ModelServer(fail_after=2) as server:  # preflight, task type; then every call fails
        env = _env(server.url, PREFECT_API_URL=prefect_server)
        args = ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(ws), "--task-id", "dies"]
        down = cairn([*args, "--model", "openai/small"], env)
        server.mode = "ok"
        up = cairn(["resume", "dies", "--workspace", str(ws), "--json"], env)
    assert down.returncode == 4, down.stderr[-3000:]
    assert "model_unavailable" in down.stderr and "cairn resume dies" in down.stderr
    assert "model call failed" in down.stderr  # each failure said so as it happened
    assert up.returncode == 0, up.stderr[-3000:]
    state = Workspace(ws).task("dies").state()
    failed = [c for c in state.model_calls if not c.ok]
    assert len(failed) >= 3 and all(c.attempts == 3 for c in failed)
    assert state.status == "complete"
    after = [c for c in state.model_calls if c.iteration > max(f.iteration for f in failed)]
    assert after and all(c.ok for c in after)  # the resumed run's calls, answered and recorded
