"""Durable runs, end to end on the session's Prefect server, with the deterministic offline model.

One interrupted run covers both ways a run breaks: a tool call raises in iteration 1 (the opening
read of the six corpus files; the iteration's Prefect retry must skip the calls that had
finished), and the process is SIGKILLed in iteration 2 once its call's result is in Prefect but
not yet in the task's history (the watchdog marks it Crashed; `cairn resume` finishes it without
running that call again). The faults are injected by `tests/e2e/faults.py`, which runs the CLI
with wrapped executors and counts every tool or model call that really executed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cairn.core import UncertainCallResolved
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import Workspace
from tests.conftest import BIN, CORPUS, QUESTION_FILE, ROOT, listing

pytestmark = pytest.mark.e2e
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()
TASK = "interrupted-run"


@pytest.fixture(scope="module")
def interrupted(prefect_server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    ws = tmp_path_factory.mktemp("interrupted-ws")
    counter = ws / "calls.txt"
    env = {**os.environ, "PREFECT_API_URL": prefect_server}
    args = ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(ws), "--task-id", TASK]
    count = ["--count", str(counter)]
    # Seven results reach iteration 1: its first attempt gets 1/1's, then stops at the fault in 1/2
    # (a batch is recorded only once all its calls finished: nothing is); its retry reads the five
    # others back from Prefect and runs 1/2. So the 8th is iteration 2's one call, `answer`: killed
    # once the deliverable is written and the call's result is in Prefect, before it is recorded.
    first = with_faults([*count, "--fail-call", "1/2", "--kill-after-results", "8"], args, env)
    assert (ws / "tasks" / TASK).is_dir(), first.stderr[-3000:]
    before = Workspace(ws).task(TASK).state()
    states = _wait_crashed(TASK)
    resumed = with_faults(count, ["resume", TASK, "--workspace", str(ws), "--json"], env)
    return {
        "ws": ws,
        "counter": counter,
        "first": first,
        "before": before,
        "states": states,
        "resumed": resumed,
    }


def with_faults(faults: list[str], args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tests.e2e.faults", *faults, "--", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)


def _wait_crashed(task_id: str, timeout: float = 30.0) -> dict[str, str]:
    """Flow run name -> state type, once the killed parent run is no longer RUNNING."""
    deadline = time.monotonic() + timeout
    while True:
        states = _flow_states(task_id)
        if states.get(f"cairn-{task_id}") != "RUNNING" or time.monotonic() > deadline:
            return states
        time.sleep(0.5)


def _flow_states(task_id: str) -> dict[str, str]:
    return asyncio.run(_read_flow_states(task_id))


async def _read_flow_states(task_id: str) -> dict[str, str]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName, FlowRunFilterTags

    tagged = FlowRunFilter(tags=FlowRunFilterTags(all_=[f"task:{task_id}"]))
    named = FlowRunFilter(name=FlowRunFilterName(any_=[f"cairn-{task_id}"]))
    async with get_client() as client:
        runs = [
            *await client.read_flow_runs(flow_run_filter=tagged, **listing("flow_runs")),
            *await client.read_flow_runs(flow_run_filter=named, **listing("flow_runs")),
        ]
    return {r.name: r.state.type.value for r in sorted(runs, key=lambda r: r.created or 0) if r.state}


def test_the_kill_came_mid_iteration_after_some_calls(interrupted: dict[str, object]) -> None:
    first = interrupted["first"]
    assert isinstance(first, subprocess.CompletedProcess)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    before = interrupted["before"]
    assert isinstance(before, TaskState)
    # The write had started and its result was not recorded: the resume must settle it, not redo it.
    assert before.current == 2 and [c.tool for c in before.uncertain_calls] == ["answer"]
    assert len(before.iterations) == 1


def test_a_killed_run_is_marked_crashed_without_anyone_doing_anything(interrupted: dict[str, object]) -> None:
    states = interrupted["states"]
    assert isinstance(states, dict)
    assert states[f"cairn-{TASK}"] == "CRASHED", states
    assert states["iteration-2"] == "CRASHED", states


def test_failed_call_is_retried_by_the_iteration_without_rerunning_finished_calls(
    interrupted: dict[str, object],
) -> None:
    calls = _calls(interrupted)
    # 1/2 raised in iteration 1's first run (twice: the task's own retry); its second run ran it once
    # and found 1/1 and 1/3 finished (recorded or cached), so nothing of iteration 1 ran twice.
    assert calls[f"{TASK}/1/2/tool"] == 1
    assert all(n == 1 for key, n in calls.items() if key.startswith(f"{TASK}/1/")), calls


def test_resume_completes_the_task_and_runs_no_finished_call_twice(interrupted: dict[str, object]) -> None:
    resumed = interrupted["resumed"]
    assert isinstance(resumed, subprocess.CompletedProcess)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    calls = _calls(interrupted)
    assert [key for key, n in calls.items() if n > 1] == []
    assert any(k.startswith(f"{TASK}/2/") and k.endswith("/deliver") for k in calls), calls
    assert f"{TASK}/2/1/tool" in calls


def test_resumed_task_equals_an_uninterrupted_run(
    interrupted: dict[str, object], reference_run: tuple[Path, str]
) -> None:
    ref_ws, ref_id = reference_run
    ref = Workspace(ref_ws).task(ref_id).state()
    got = Workspace(Path(str(interrupted["ws"]))).task(TASK).state()
    assert got.status == ref.status == "complete"
    assert _evidence(got) == _evidence(ref)  # nothing lost, nothing twice
    assert len({ev.evidence_id for ev in got.evidence}) == len(got.evidence)
    assert [c.call_id for c in got.calls] == [c.call_id for c in ref.calls]
    assert got.frontier == ref.frontier and len(got.iterations) == len(ref.iterations)
    assert got.report_path and ref.report_path
    assert Path(got.report_path).read_bytes() == Path(ref.report_path).read_bytes()
    assert Workspace(Path(str(interrupted["ws"]))).task(TASK).history.verify().ok


def test_ctrl_c_prints_the_task_id_and_the_resume_command(prefect_server: str, tmp_path: Path) -> None:
    env = {**os.environ, "PREFECT_API_URL": prefect_server}
    history = tmp_path / "tasks" / "ctrl-c" / "history.jsonl"
    args = ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(tmp_path), "--task-id", "ctrl-c"]
    # A shell may start background jobs with SIGINT ignored; a terminal's Ctrl-C finds it at default.
    proc = subprocess.Popen(
        [str(BIN / "cairn"), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and '"type":"tool_call"' not in _text(history):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert f"cairn resume ctrl-c --workspace {tmp_path}" in err


def _calls(interrupted: dict[str, object]) -> Counter[str]:
    return Counter(Path(str(interrupted["counter"])).read_text(encoding="utf-8").split())


def _evidence(state: TaskState) -> list[tuple[str, str, str, int]]:
    return sorted((e.type, e.source, e.content, e.iteration) for e in state.evidence)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_resume_continues_the_same_flow_run_then_links_a_new_one(
    interrupted: dict[str, object], prefect_server: str
) -> None:
    runs = asyncio.run(_runs_named(f"cairn-{TASK}"))
    assert (
        len(runs) == 1 and runs[0].state and runs[0].state.type.value == "COMPLETED"
    )  # the killed run, continued
    env = {**os.environ, "PREFECT_API_URL": prefect_server}
    again = with_faults([], ["resume", TASK, "--workspace", str(interrupted["ws"]), "--json"], env)
    assert again.returncode == 0, again.stderr[-3000:]
    newest, first = asyncio.run(_runs_named(f"cairn-{TASK}"))  # a finished run is not reopened
    assert f"resumed-from:{first.id}" in newest.tags and newest.id != first.id


async def _runs_named(name: str) -> list[Any]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName
    from prefect.client.schemas.sorting import FlowRunSort

    async with get_client() as client:
        found = FlowRunFilter(name=FlowRunFilterName(any_=[name]))
        return list(
            await client.read_flow_runs(flow_run_filter=found, sort=FlowRunSort.START_TIME_DESC, limit=10)
        )


def test_a_run_killed_inside_its_write_resumes_unattended_to_the_same_report(
    prefect_server: str, tmp_path: Path, reference_run: tuple[Path, str]
) -> None:
    """SIGKILL inside `answer`, the call that writes the deliverable (the file is on disk, its result
    not yet returned): the resume, with the default `--on-uncertain ask`, finds the write took
    effect and goes on (issue 35: it stopped with exit 6, waiting for a person)."""
    env = {**os.environ, "PREFECT_API_URL": prefect_server}
    task = "killed-in-write"
    args = ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(tmp_path), "--task-id", task]
    killed = with_faults(["--kill-in-tool", "answer"], args, env)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    assert [s.tool for s in Workspace(tmp_path).task(task).state().uncertain_calls] == ["answer"]

    resumed = with_faults([], ["resume", task, "--workspace", str(tmp_path), "--json"], env)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    events = Workspace(tmp_path).task(task).read().events
    decided = [(e.decision, e.by) for e in events if isinstance(e, UncertainCallResolved)]
    assert decided == [("found", "cairn")]
    got, ref = (
        Workspace(tmp_path).task(task).state(),
        Workspace(reference_run[0]).task(reference_run[1]).state(),
    )
    assert got.status == "complete" and [c.call_id for c in got.calls] == [c.call_id for c in ref.calls]
    assert got.report_path and ref.report_path
    assert Path(got.report_path).read_bytes() == Path(ref.report_path).read_bytes()
