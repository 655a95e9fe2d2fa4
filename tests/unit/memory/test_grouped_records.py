"""Events that belong together reach the log in one write, so a kill between two writes never
leaves half of them: a finished call without the file it wrote (a resume skips the call, and the
task never learns of its file), or the goal without its rule.

The offline model runs the example question to its end in process; every prefix of the log that a
kill between two writes could leave is then checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.core import (
    ConstraintExtracted,
    Event,
    FileRecorded,
    RunConfig,
    TaskCreated,
    ToolCallRecorded,
    UserMessage,
)
from cairn.flows.loop.request import TaskRequest
from cairn.flows.loop.start import start_task
from cairn.memory.log.history import HistoryLog
from cairn.memory.log.workspace import Workspace
from tests.conftest import CORPUS, QUESTION_FILE
from tests.unit.scripted import executor_for, run_whole_task


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many events each write to a log held, in order."""
    sizes: list[int] = []
    append = HistoryLog.append

    def counted(self: HistoryLog, *events: Event) -> object:
        sizes.append(len(events))
        return append(self, *events)

    monkeypatch.setattr(HistoryLog, "append", counted)
    return sizes


def prefixes(events: list[Event], sizes: list[int]) -> Iterator[list[Event]]:
    """What the log holds after each write."""
    end = 0
    for size in sizes:
        end += size
        yield events[:end]


def test_no_kill_between_two_writes_leaves_a_call_without_its_file_or_the_goal_without_its_rule(
    tmp_path: Path, writes: list[int]
) -> None:
    config = RunConfig(workspace=str(tmp_path), model="cairn/offline")
    result = run_whole_task(config, "q", QUESTION_FILE.read_text(encoding="utf-8").strip(), [CORPUS])
    assert result.status == "complete"
    events = list(Workspace(tmp_path).task("q").history.events())
    assert sum(writes) == len(events)
    writers = {
        e.call.call_id
        for e in events
        if isinstance(e, ToolCallRecorded) and e.call.tool in ("write_file", "answer")
    }
    assert writers, "the offline run writes its answer"
    for prefix in prefixes(events, writes):
        calls = {e.call.call_id for e in prefix if isinstance(e, ToolCallRecorded)}
        files = {e.file.created_by for e in prefix if isinstance(e, FileRecorded)}
        assert calls & writers <= files
        goal = any(isinstance(e, UserMessage) and e.role == "goal" for e in prefix)
        rules = sum(isinstance(e, ConstraintExtracted) for e in prefix)
        assert goal == (rules >= 1)


def test_a_task_killed_before_its_goal_was_recorded_gets_the_goal_and_its_rule_on_resume(
    tmp_path: Path,
) -> None:
    goal = "Write notes.md. Never cite Wikipedia."
    created = TaskCreated(task_id="t", goal=goal, task_type="general_task", model="cairn/offline")
    Workspace(tmp_path).create_task(created)  # what a kill right after creating the task leaves
    config = RunConfig(workspace=str(tmp_path), model="cairn/offline")
    session = start_task(TaskRequest.new(goal, config, task_id="t"), executor_for(config))
    assert [(m.role, m.text) for m in session.state.messages] == [("goal", goal)]
    assert [c.rule for c in session.state.constraints] == ["Never cite Wikipedia."]
    again = start_task(TaskRequest.new(goal, config, task_id="t"), executor_for(config))  # once only
    assert len(again.state.messages) == 1
