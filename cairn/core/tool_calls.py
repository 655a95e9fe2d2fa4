"""The calls of an iteration: planned (`PlannedCall`), run and read (`ToolCall`), and the record of
the iteration that holds them (`IterationRecord`).

>>> call = ToolCall(call_id="call-1-0", iteration=1, index=0, tool="read_file", params={"path": "a.md"})
>>> call.one_line()
'read_file(a.md) -> success: '
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.core.call_key import call_signature
from cairn.core.evidence_record import EvidenceType
from cairn.core.frozen import Frozen, JsonValue, now
from cairn.core.usage import CallCost

Relevance = Literal["high", "medium", "low"]
Outcome = Literal["success", "failure", "timeout", "error"]
Progress = Literal["advancing", "stuck", "regressing"]
IterationMode = Literal["fast", "deep"]

RERUN_AFTER_WRITE = frozenset({"run_tests", "lint", "run_python"})  # their result depends on the files


class Compression(Frozen):
    """The model's reading of one tool result (docs/design.md, "Reflection and context")."""

    insights: str = ""
    learning: str = ""
    relevance: Relevance = "medium"
    next_suggested_actions: str = ""


class PlannedCall(Frozen):
    """One candidate action of the BFS frontier."""

    tool: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    rationale: str = ""
    expected_evidence: list[EvidenceType] = Field(default_factory=list)
    score: float = 0.0
    # Its whole output goes to the answer in its own words: its note is the lines that hold the
    # goal's words, with no model call (`cairn.tasks.opening.extractive`).
    extractive: bool = False

    @property
    def signature(self) -> str:
        """Identity of a call for duplicate detection: tool plus canonical params."""
        return call_signature(self.tool, self.params)


class CheckOutcome(Frozen):
    """One named check inside a tool result (a test id, a linted file): the unit of a hot issue."""

    check_id: str
    passed: bool
    detail: str = ""


class ToolCall(Frozen):
    """One executed tool call with its raw (truncated) output and its compression."""

    call_id: str
    iteration: int
    index: int
    tool: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    raw_output: str = ""
    output_path: str | None = None  # full output kept as a workspace file when truncated
    outcome: Outcome = "success"
    execution_time: float = 0.0
    cost: CallCost = CallCost()
    compression_cost: CallCost = CallCost()
    tool_selection_rationale: str = ""
    insights: str = ""
    learning: str = ""
    relevance: Relevance = "medium"
    next_suggested_actions: str = ""
    error: str | None = None
    checks: list[CheckOutcome] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)  # files this call listed, read or wrote
    timestamp: float = Field(default_factory=now)
    exercised: list[str] = Field(default_factory=list)  # workspace functions a test run called

    def one_line(self) -> str:
        """The compressed, prompt-sized line of this call (layer 2)."""
        arg = main_argument(self.params)
        head = f"{self.tool}({arg})" if arg else self.tool
        text = self.insights or self.error or self.raw_output[:120].replace("\n", " ")
        learned = f"; learned: {self.learning}" if self.learning else ""
        return f"{head} -> {self.outcome}: {text}{learned}"


def main_argument(params: dict[str, JsonValue]) -> str:
    """The argument that names a call best (a path, a query, a command)."""
    for name in ("path", "query", "target", "command", "code", "question"):
        value = params.get(name)
        if isinstance(value, str) and value:
            return value if len(value) <= 60 else value[:57] + "..."
    return ""


class IterationRecord(Frozen):
    """Layer 1: the full record of one BFS iteration."""

    iteration: int
    mode: IterationMode = "fast"
    tool_calls: list[ToolCall] = Field(default_factory=list)
    synthesis: str = ""
    progress_assessment: Progress = "advancing"
    user_feedback: str = ""
    timestamp: float = Field(default_factory=now)
