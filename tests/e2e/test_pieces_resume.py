"""A goal of three functions written piece by piece, SIGKILLed in the middle and resumed: no piece
that passed is asked for again.

The model's side is replayed from `tests/cassettes/pieces_task.jsonl` (recorded by
`make_pieces_cassette.py` from the tests' own protocol-level model), matched by request, so each
piece's reply goes only to that piece's ask, whichever process asks. Everything else is real: the
CLI in a subprocess, the session's Prefect server, the writes, pytest running the goal's examples.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cairn.memory.log.workspace import Workspace
from tests.cassettes import make_pieces_cassette as script
from tests.conftest import BIN

pytestmark = pytest.mark.e2e
MODEL = f"replay:{script.CASSETTE}"


def run_args(ws: Path, task: str) -> list[str]:
    return ["run", script.GOAL, "--model", MODEL, "--workspace", str(ws), "--task-id", task, *script.OPTIONS]


def cairn(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    """`cairn ARGS --json`, which must succeed: its JSON object."""
    proc = subprocess.run(
        [str(BIN / "cairn"), *args, "--json"], env=env, capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    found: dict[str, Any] = json.loads(proc.stdout)
    return found


def piece_asks(ws: Path, task: str) -> Counter[str]:
    """How often each piece's ask was recorded as a model call: its call key, by iteration and piece."""
    found = [json.loads(e.model_dump_json())["event"] for e in Workspace(ws).task(task).read().envelopes]
    return Counter(
        e["call"]["key"] for e in found if e["type"] == "model_call" and "/piece" in e["call"]["key"]
    )


def history_events(ws: Path, task: str) -> list[dict[str, Any]]:
    log = ws / "tasks" / task / "history.jsonl"
    if not log.exists():
        return []
    return [
        json.loads(line)["event"] for line in log.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def kill_when(args: list[str], env: dict[str, str], ws: Path, task: str, ready: Any) -> None:
    """Start `cairn ARGS` and SIGKILL it once its history satisfies `ready`."""
    proc = subprocess.Popen(
        [str(BIN / "cairn"), *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 240
    while proc.poll() is None and time.monotonic() < deadline:
        if ready(history_events(ws, task)):
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.02)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, f"not killed: {err.decode()[-2000:]}"


def asks(events: list[dict[str, Any]]) -> int:
    return sum(1 for e in events if e["type"] == "model_call" and "/piece" in e["call"]["key"])


def after_first_test_run(events: list[dict[str, Any]]) -> bool:
    return any(e["type"] == "tool_call" and e["call"]["tool"] == "run_tests" for e in events)


KILLS = {
    "between-two-asks": lambda events: asks(events) >= 2,
    "after-the-first-test-run": after_first_test_run,
}


@pytest.fixture(scope="module")
def env(prefect_server: str) -> dict[str, str]:
    found = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    return found | {"PREFECT_API_URL": prefect_server}


@pytest.fixture(scope="module")
def uninterrupted(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("pieces-ref")
    proc = subprocess.run(
        [str(BIN / "cairn"), *run_args(ws, "pieces"), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["status"] == "complete"
    return ws


@pytest.mark.parametrize("where", list(KILLS))
def test_a_killed_piecewise_task_resumes_without_asking_a_finished_piece_again(
    where: str, env: dict[str, str], uninterrupted: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    kill_when(run_args(ws, "pieces"), env, ws, "pieces", KILLS[where])
    assert cairn(["resume", "pieces", "--workspace", str(ws)], env)["status"] == "complete"
    got, want = piece_asks(ws, "pieces"), piece_asks(uninterrupted, "pieces")
    assert got == want  # every ask the uninterrupted run made, each once: none again after the kill
    # six_times' first body failed its example when Cairn ran it, the second passed and was
    # seconded by one more sample (key index + 1000 per ask of the piece); the first answers of
    # double and triple passed and were not
    assert sorted(key.split("/")[2] for key in want) == ["0", "1", "1002", "2", "2002"]
    solution = (ws / "tasks" / "pieces" / "artifacts" / "solution.py").read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(compile(solution, "solution.py", "exec"), namespace)
    assert [namespace[n](2) for n in ("double", "triple", "six_times")] == [4, 6, 12]
    pieces = (
        "3 of 3 functions verified by their examples (double, triple, six_times); "
        "seconded by another sample: six_times"
    )
    assert cairn(["show", "pieces", "--workspace", str(ws)], env)["pieces"] == pieces
