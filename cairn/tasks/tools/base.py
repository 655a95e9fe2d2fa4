"""What every tool receives and returns.

A tool is a plain function `(ctx: ToolContext, **params) -> ToolOutput`; failures of the *agent's*
request (a bad path, a missing file) come back as an output with `outcome="failure"`, while a tool
that cannot run at all raises, so a Prefect retry can try it again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from cairn.core import CheckOutcome, Frozen, Outcome, TaskType, ToolsConfig
from cairn.memory.log.state import TaskState


def deliverable_file(task_type: TaskType) -> str:
    """The file a task's answer goes to (the one `answer` writes, the planners aim at): `answer.md`
    for a simple question, else `report.md`.

    >>> deliverable_file("simple_question"), deliverable_file("research_task")
    ('answer.md', 'report.md')
    """
    return "answer.md" if task_type == "simple_question" else "report.md"


class ToolContext(BaseModel):
    """Where a tool may act: the task's artifacts (read-write) and the sources (read-only)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    task_id: str
    artifacts: Path
    sources: dict[str, Path] = Field(default_factory=dict)
    workspace: Path | None = None
    timeout_s: float = 120.0  # wall-clock limit of one call (the toolset sets each tool's own)
    # The file `answer` writes (`deliverable_file`); a context made without a task (`cairn tools
    # run`, a test) answers as a simple question.
    deliverable: str = deliverable_file("simple_question")
    tools: ToolsConfig = ToolsConfig()  # the task's tools: each process builds its toolset from it
    # search_memory's backend: (query, k) -> formatted hits. A live client, never part of a cache key.
    search: Callable[[str, int], list[str]] | None = None
    # summarize_history's source: the task's current state. Also live, also never in a cache key.
    task_state: Callable[[], TaskState] | None = None
    # A file of the artifacts (relative path) as the task's last commit holds it, None if it holds none.
    committed: Callable[[str], bytes | None] | None = None


class WrittenFile(Frozen):
    path: str  # relative to artifacts/
    content: str
    purpose: str | None = None  # `ledger`: Cairn's report of a coverage goal (derived, not indexed again)


class ToolOutput(Frozen):
    text: str
    outcome: Outcome = "success"
    error: str | None = None
    paths: list[str] = Field(default_factory=list)
    written: WrittenFile | None = None
    checks: list[CheckOutcome] = Field(default_factory=list)
    seconds: float = 0.0  # the tool's own run time (set by `cairn.tasks.calls.run_tool_call`)
    exercised: list[str] = Field(default_factory=list)  # workspace functions a test run called


def failure(message: str, outcome: Outcome = "failure") -> ToolOutput:
    return ToolOutput(text=message, outcome=outcome, error=message)
