"""`summarize_history`: the key decisions of a task, through the task's toolset."""

from __future__ import annotations

from pathlib import Path

from cairn.core import IterationRecord, PlannedCall, ToolCall, ToolsConfig
from cairn.memory.log.state import Constraint, TaskState
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.toolset import toolset_for


def test_registered_and_reads_the_task_state(tmp_path: Path) -> None:
    calls = [
        ToolCall(
            call_id="call-3-1",
            iteration=3,
            index=1,
            tool="write_file",
            params={"path": "report.md"},
            paths=["report.md"],
            insights="wrote the report",
            relevance="high",
        )
    ]
    state = TaskState(
        goal="Write the report",
        constraints=[Constraint(key="k", rule="Cite every fact.")],
        iterations=[IterationRecord(iteration=3, tool_calls=calls, synthesis="report drafted")],
    )
    ctx = ToolContext(task_id="t", artifacts=tmp_path, task_state=lambda: state)
    assert "summarize_history" in {spec.name for spec in toolset_for(ToolsConfig()).specs()}
    out = toolset_for(ToolsConfig()).execute(ctx, PlannedCall(tool="summarize_history", params={}))
    assert out.outcome == "success"
    assert "GOAL: Write the report" in out.text and "[active] Cite every fact." in out.text
    assert "report.md (it3)" in out.text and "wrote the report" in out.text


def test_without_a_state_it_is_an_error(tmp_path: Path) -> None:
    out = toolset_for(ToolsConfig()).execute(
        ToolContext(task_id="t", artifacts=tmp_path), PlannedCall(tool="summarize_history", params={})
    )
    assert out.outcome == "error"
