"""The events of a task's `history.jsonl`: a discriminated union, one model per thing that happened.

Model-made decisions (a plan, a compression, an extracted constraint) are recorded as events, so
replaying the log never calls a model and reproduces the state and the index exactly.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from cairn.core.action_plan import ActionChecked, ActionsPlanned
from cairn.core.artifacts import CodeReference, FileReference
from cairn.core.coverage_ledger import Coverage, LedgerRow
from cairn.core.evidence_record import Evidence
from cairn.core.frozen import Frozen
from cairn.core.task_kinds import SourceSkip, StrategyName, TaskStatus, TaskType
from cairn.core.tool_calls import IterationMode, IterationRecord, PlannedCall, ToolCall
from cairn.core.tool_config import ToolsConfig
from cairn.core.usage import ModelCall, ModelProbe
from cairn.core.verdict import Disagreement, ModelJudgement, Verdict


class TaskCreated(Frozen):
    type: Literal["task_created"] = "task_created"
    task_id: str
    goal: str
    task_type: TaskType
    sources: dict[str, str] = Field(default_factory=dict)  # name -> absolute directory
    model: str = "cairn/offline"
    max_iterations: int = 40
    related: list[str] = Field(default_factory=list)
    max_usd: float | None = None  # budget for the task's model calls, counted from this log
    max_tokens: int | None = None
    strategy: StrategyName | None = None  # None: written before 0.5, chosen again from type and goal
    skipped_sources: dict[str, SourceSkip] = Field(default_factory=dict)  # `source:NAME/path` -> why not read


class BudgetSet(Frozen):
    """A person set the task's budget again (`cairn resume --max-usd/--max-tokens`)."""

    type: Literal["budget_set"] = "budget_set"
    max_usd: float | None = None
    max_tokens: int | None = None


class ModelCallRecorded(Frozen):
    type: Literal["model_call"] = "model_call"
    call: ModelCall


class ModelProbed(Frozen):
    """The model preflight of the run that starts here: the reply format chosen and the speed seen."""

    type: Literal["model_probed"] = "model_probed"
    probe: ModelProbe


class UserMessage(Frozen):
    """A person's words: the goal or feedback given while the task runs."""

    type: Literal["user_message"] = "user_message"
    text: str
    role: Literal["goal", "feedback"] = "feedback"


class GoalSplit(Frozen):
    """The parts the goal asks (each question, each thing asked for), split once when the task
    starts (`cairn.tasks.grounding.split_goal`): the validator wants an answer for each."""

    type: Literal["goal_split"] = "goal_split"
    parts: list[str]


class ConstraintExtracted(Frozen):
    """The rule a user message carries (the model said so), or none."""

    type: Literal["constraint_extracted"] = "constraint_extracted"
    message: str
    rule: str | None = None
    key: str | None = None


class ConstraintRetired(Frozen):
    type: Literal["constraint_retired"] = "constraint_retired"
    key: str


class IterationStarted(Frozen):
    type: Literal["iteration_started"] = "iteration_started"
    iteration: int
    mode: IterationMode = "fast"
    feedback: list[str] = Field(default_factory=list)  # user feedback this iteration takes in


class PlanRecorded(Frozen):
    """Candidates the planner proposed and the batch chosen from the frontier."""

    type: Literal["plan_recorded"] = "plan_recorded"
    iteration: int
    candidates: list[PlannedCall]
    batch: list[PlannedCall]
    frontier: list[PlannedCall]  # what stays queued after the batch was popped
    # Arithmetic Cairn worked out for the answer ("1260000 / 8400 = 150"): a figure it gives is
    # grounded when the files state its operands.
    worked: list[str] = Field(default_factory=list)
    # A served model's yes/no on the answers the verifier judges (one input of its decision).
    judged: list[ModelJudgement] = Field(default_factory=list)


class ToolCallRecorded(Frozen):
    type: Literal["tool_call"] = "tool_call"
    call: ToolCall


class ToolsConfigured(Frozen):
    """The task's tools beyond the built-ins (Python tools, MCP servers), its allow-list and limits."""

    type: Literal["tools_configured"] = "tools_configured"
    config: ToolsConfig


class ToolCallStarted(Frozen):
    """A call with side effects is about to run: appended (fsync'd) before it runs, so a crash
    before its `ToolCallRecorded` leaves it *uncertain* — it may or may not have taken effect."""

    type: Literal["tool_call_started"] = "tool_call_started"
    iteration: int
    index: int
    tool: str
    signature: str


class UncertainCallResolved(Frozen):
    """What was decided for an uncertain call: `skip` it (record it as not run), `rerun` it, or
    `found`: its effect is there, so its result is recorded without running it. A person decides
    (`by="person"`, `--on-uncertain`), or Cairn, for a tool whose doubt it can settle by looking
    or that is safe to run again (`by="cairn"`, the `reason` says which;
    `cairn.flows.loop.uncertain.rule`)."""

    type: Literal["uncertain_call_resolved"] = "uncertain_call_resolved"
    iteration: int
    index: int
    decision: Literal["skip", "rerun", "found"]
    by: Literal["person", "cairn"] = "person"
    reason: str = ""


class FileRecorded(Frozen):
    type: Literal["file_recorded"] = "file_recorded"
    file: FileReference
    code: CodeReference | None = None


class EvidenceRecorded(Frozen):
    type: Literal["evidence"] = "evidence"
    evidence: list[Evidence]


class CoverageRecorded(Frozen):
    """How far a task got after an iteration: sources read, and for a goal about every item of a
    kind, the ledger's rows that iteration added or changed (each whole)."""

    type: Literal["coverage"] = "coverage"
    iteration: int
    coverage: Coverage
    rows: list[LedgerRow] = Field(default_factory=list)
    new_ground: bool = False  # it read a source not read before, or added or changed a row


class PieceChecked(Frozen):
    """What Cairn found of one function of a piecewise coding goal (`cairn.tasks.pieces`) after
    asking for it: whether the body written passes the goal's examples for it, how many samples it
    has drawn so far, and, when a second sample was run beside it on inputs varied from the
    examples, whether they agreed."""

    type: Literal["piece_checked"] = "piece_checked"
    iteration: int
    name: str
    draws: int  # asks of this function so far, this iteration's included
    passed: bool  # the body written passes the goal's examples (Cairn ran them)
    seconded: bool = False  # another sample passed the examples too and agreed on every varied input
    disagreement: Disagreement | None = None  # ... or returned another value on this one


class IterationCompleted(Frozen):
    type: Literal["iteration_completed"] = "iteration_completed"
    record: IterationRecord


class ValidationRecorded(Frozen):
    type: Literal["validation"] = "validation"
    verdict: Verdict


class ReviewDecided(Frozen):
    """A person's review of the task after an iteration (`--review`): go on or stop, with the
    feedback (recorded beside it as a `UserMessage`) that the next plan takes in."""

    type: Literal["review_decided"] = "review_decided"
    iteration: int
    decision: Literal["continue", "stop"] = "continue"
    feedback: str = ""
    reviewer: Literal["ui", "cli"] = "ui"


class TaskFinished(Frozen):
    type: Literal["task_finished"] = "task_finished"
    status: TaskStatus
    stop_reason: str
    report_path: str | None = None


Event = Annotated[
    TaskCreated
    | UserMessage
    | GoalSplit
    | ConstraintExtracted
    | ConstraintRetired
    | IterationStarted
    | PlanRecorded
    | ToolCallRecorded
    | ToolsConfigured
    | ToolCallStarted
    | UncertainCallResolved
    | FileRecorded
    | EvidenceRecorded
    | CoverageRecorded
    | PieceChecked
    | IterationCompleted
    | ValidationRecorded
    | ReviewDecided
    | TaskFinished
    | BudgetSet
    | ModelCallRecorded
    | ModelProbed
    | ActionsPlanned
    | ActionChecked,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


class Envelope(Frozen):
    """One line of history.jsonl: the event, its position and a hash chained to the line before."""

    seq: int
    ts: float
    prev: str
    hash: str
    event: Event
