"""Durable runs without a Prefect engine: the task lock, UI page builders, server bookkeeping."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.core import Evidence, IterationRecord, ToolCall, Verdict
from cairn.flows.loop.claim import TaskBusy, TaskLock, read_holder
from cairn.flows.prefect.ui import (
    evidence_key,
    evidence_rows,
    iteration_key,
    iteration_markdown,
    progress_percent,
)
from cairn.flows.server.server import _redact_url, read_info
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import BadTaskId


def test_a_second_runner_is_refused_and_named(tmp_path: Path) -> None:
    with TaskLock(tmp_path, "t1", flow_run_id="run-a"):
        with pytest.raises(TaskBusy, match="run-a"):
            _in_another_thread(lambda: TaskLock(tmp_path, "t1", wait_s=0.2).__enter__())
        assert read_holder(tmp_path / "locks" / "t1.lock")["status"] == "running"
    assert read_holder(tmp_path / "locks" / "t1.lock")["status"] == "done"
    with TaskLock(tmp_path, "t1", flow_run_id="run-b"):  # free again once released
        assert read_holder(tmp_path / "locks" / "t1.lock")["flow_run_id"] == "run-b"


def test_other_tasks_are_not_blocked(tmp_path: Path) -> None:
    with TaskLock(tmp_path, "t1"), TaskLock(tmp_path, "t2", wait_s=0.1):
        pass


def test_a_claim_nested_in_the_same_call_chain_shares_the_outer_one(tmp_path: Path) -> None:
    """`cairn run` claims the task before Prefect starts; the flow's own claim then shares it."""
    with TaskLock(tmp_path, "t1") as outer:
        with TaskLock(tmp_path, "t1", flow_run_id="run-b", wait_s=0.1) as inner:
            assert inner.token == outer.token
            assert read_holder(tmp_path / "locks" / "t1.lock")["flow_run_id"] == "run-b"
        assert read_holder(tmp_path / "locks" / "t1.lock")["status"] == "running"  # still held
    assert read_holder(tmp_path / "locks" / "t1.lock")["status"] == "done"


def test_a_task_id_that_is_a_path_never_names_a_lock_file(tmp_path: Path) -> None:
    outside = tmp_path / "important"
    for task_id in (str(outside), "../../escape", "a/b"):
        with pytest.raises(BadTaskId):
            TaskLock(tmp_path / "ws", task_id)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def _in_another_thread(action: Callable[[], object]) -> None:
    """Run `action` in a fresh thread (no claims of ours in its context); re-raise what it raised."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            action()
        except BaseException as exc:  # handed back to the test
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


def _state() -> TaskState:
    call = ToolCall(
        call_id="call-1-1",
        iteration=1,
        index=1,
        tool="read_file",
        params={"path": "source:c/a.md"},
        insights="capacity | 4.2 GL",
        learning="the reservoir holds 4.2 GL",
    )
    record = IterationRecord(iteration=1, tool_calls=[call], synthesis="found the capacity")
    verdict = Verdict(
        complete=False, confidence=0.5, rationale="1 of 2 met", satisfied=["a"], missing=["b"], iteration=1
    )
    evidence = [Evidence(type="documentation", content="4.2 GL", source="call-1-1", iteration=1)]
    return TaskState(
        task_id="t1", goal="How big?", iterations=[record], verdicts=[verdict], evidence=evidence
    )


def test_iteration_markdown_has_every_part() -> None:
    state = _state()
    text = iteration_markdown(state, state.iterations[0], state.verdict)
    for part in (
        "## Plan",
        "read_file(source:c/a.md)",
        "## Calls",
        "capacity \\| 4.2 GL",
        "## Insights",
        "the reservoir holds",
        "## Synthesis",
        "found the capacity",
        "## Verdict",
        "Missing: b",
    ):
        assert part in text


def test_keys_rows_and_progress() -> None:
    state = _state()
    assert iteration_key("Task_1", 3) == "task-1-iteration-3" and evidence_key("t1") == "t1-evidence"
    assert evidence_rows(state)[0] == {
        "iteration": 1,
        "type": "documentation",
        "source": "call-1-1",
        "confidence": 1.0,
        "content": "4.2 GL",
    }
    assert progress_percent(state) == 50.0
    done = state.model_copy(update={"verdicts": [Verdict(complete=True, confidence=1.0, rationale="ok")]})
    assert progress_percent(done) == 100.0


def test_server_file_of_a_dead_process_is_ignored(tmp_path: Path) -> None:
    info = {
        "pid": 2**22 + 12345,
        "api_url": "http://127.0.0.1:1/api",
        "ui_url": "http://127.0.0.1:1",
        "database": "sqlite:x",
        "log": "x",
    }
    (tmp_path / "server.json").write_text(json.dumps(info), encoding="utf-8")
    assert read_info(tmp_path) is None
    assert _redact_url("postgresql+asyncpg://cairn:secret@db:5432/prefect") == (
        "postgresql+asyncpg://cairn:***@db:5432/prefect"
    )
