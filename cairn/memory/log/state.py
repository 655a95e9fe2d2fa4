"""`TaskState`: a pure fold over a task's events.

The state is never saved; it is recomputed from `history.jsonl`, so a crash loses at most the
event being written.

>>> state = replay([TaskCreated(task_id="t1", goal="Why?", task_type="simple_question")])
>>> state.goal
'Why?'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import Field

from cairn.core import (
    RERUN_AFTER_WRITE,
    ActionChecked,
    ActionsPlanned,
    ActStep,
    BudgetSet,
    CallCost,
    CheckOutcome,
    CodeReference,
    ConstraintExtracted,
    ConstraintRetired,
    Coverage,
    CoverageRecorded,
    Event,
    Evidence,
    EvidenceRecorded,
    FileRecorded,
    FileReference,
    Frozen,
    GoalSplit,
    IterationCompleted,
    IterationMode,
    IterationRecord,
    IterationStarted,
    LedgerRow,
    ModelCall,
    ModelCallRecorded,
    ModelJudgement,
    ModelProbe,
    ModelProbed,
    PieceChecked,
    PlannedCall,
    PlanRecorded,
    ReviewDecided,
    SourceSkip,
    StrategyName,
    TaskCreated,
    TaskFinished,
    TaskStatus,
    TaskType,
    ToolCall,
    ToolCallRecorded,
    ToolCallStarted,
    ToolsConfig,
    ToolsConfigured,
    UncertainCallResolved,
    UserMessage,
    ValidationRecorded,
    Verdict,
    call_signature,
)

HOT_ISSUE_TOOLS = frozenset({"run_tests", "lint"})


class Constraint(Frozen):
    key: str
    rule: str
    active: bool = True
    message: str = ""  # the user message that stated it


class CallStart(Frozen):
    """A side-effecting call of the unfinished iteration that was started, and any decision on it."""

    index: int
    tool: str
    signature: str
    decision: Literal["skip", "rerun", "found"] | None = None


class HotIssue(Frozen):
    """A failing check that stays in every prompt until the same check passes."""

    tool: str
    check_id: str
    content: str
    opened_by: str  # call id
    resolved_by: str | None = None

    @property
    def active(self) -> bool:
        return self.resolved_by is None


class TaskState(Frozen):
    task_id: str = ""
    goal: str = ""
    task_type: TaskType = "general_task"
    strategy: StrategyName | None = None  # as the task's creation recorded it
    sources: dict[str, str] = Field(default_factory=dict)
    skipped_sources: dict[str, SourceSkip] = Field(default_factory=dict)  # source files not read, and why
    model: str = "cairn/offline"
    max_iterations: int = 40
    related: list[str] = Field(default_factory=list)
    status: TaskStatus = "running"
    stop_reason: str | None = None
    report_path: str | None = None
    messages: list[UserMessage] = Field(default_factory=list)
    constraints: list[Constraint] = Field(default_factory=list)
    hot_issues: list[HotIssue] = Field(default_factory=list)
    iterations: list[IterationRecord] = Field(default_factory=list)
    current: int = 0  # iteration in progress (0: none)
    mode: IterationMode = "fast"
    pending_calls: list[ToolCall] = Field(default_factory=list)  # calls of the unfinished iteration
    done_calls: list[ToolCall] = Field(default_factory=list)  # the finished iterations' calls, in order
    repeats: dict[str, int] = Field(
        default_factory=dict
    )  # call signature -> runs (checks: since the last write)
    plan: list[PlannedCall] = Field(default_factory=list)  # the batch of the unfinished iteration
    frontier: list[PlannedCall] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    files: dict[str, FileReference] = Field(default_factory=dict)  # path -> latest reference
    code: dict[str, CodeReference] = Field(default_factory=dict)  # path -> documentation
    verdicts: list[Verdict] = Field(default_factory=list)
    feedback_seen: int = 0  # feedback messages already taken in by an iteration
    iteration_feedback: list[str] = Field(default_factory=list)  # what the current iteration took in
    reviews: list[ReviewDecided] = Field(default_factory=list)  # a person's decisions (`--review`)
    model_probe: ModelProbe | None = None  # what the last run's preflight learnt of the model's server
    model_calls: list[ModelCall] = Field(default_factory=list)
    run_start: int = 0  # model calls made before the last stop: a resume counts failures afresh
    max_usd: float | None = None
    max_tokens: int | None = None
    parts: list[str] = Field(default_factory=list)  # what the goal asks, split once at the start
    coverage: Coverage | None = None  # how far the task got (recorded after each iteration)
    covered: int = 0  # the last iteration whose coverage is recorded (a resume records it once)
    ledger: dict[str, LedgerRow] = Field(default_factory=dict)  # a coverage goal's items, by name
    new_ground: list[int] = Field(default_factory=list)  # iterations that read or found something new
    worked: list[str] = Field(default_factory=list)  # Cairn's arithmetic for the answer, "a / b = c"
    judged: list[ModelJudgement] = Field(default_factory=list)  # a served model's yes/no on answers
    plans: list[ActionsPlanned] = Field(default_factory=list)  # an action goal's plan, and its second
    checked_actions: list[ActionChecked] = Field(default_factory=list)  # its calls, made or refused
    pieces: dict[str, PieceChecked] = Field(default_factory=dict)  # a piecewise goal's functions, by name

    @property
    def actions(self) -> list[ActStep] | None:
        """An action goal's steps, once planned (`cairn.tasks.actions`): a second plan's follow
        the first's, so a step's number never changes."""
        return [step for plan in self.plans for step in plan.steps] if self.plans else None

    @property
    def model_cost(self) -> CallCost:
        """What every model call of the task cost so far (all runs, resumed ones included)."""
        total = CallCost()
        for call in self.model_calls:
            total += call.cost
        return total

    @property
    def failed_calls_in_a_row(self) -> int:
        """Model calls that failed since the last one that worked, in this run."""
        count = 0
        for call in reversed(self.model_calls[self.run_start :]):
            if call.ok:
                break
            count += 1
        return count

    tools: ToolsConfig | None = None  # Python tools and MCP servers beyond the built-ins
    call_starts: dict[int, CallStart] = Field(default_factory=dict)  # index -> start, this iteration

    @property
    def calls(self) -> list[ToolCall]:
        """Every executed call, finished iterations first (the fold keeps `done_calls`; a state
        built whole has only its iterations)."""
        if not self.done_calls and self.iterations:
            return [c for it in self.iterations for c in it.tool_calls] + self.pending_calls
        return self.done_calls + self.pending_calls

    @property
    def call_repeats(self) -> dict[str, int]:
        """How often each call ran (checks: since the last write), as the fold counted it."""
        if self.repeats or not self.calls:
            return self.repeats
        counts: dict[str, int] = {}
        for call in self.calls:  # a state built whole: count now
            counts = _repeats(counts, call)
        return counts

    @property
    def verdict(self) -> Verdict | None:
        return self.verdicts[-1] if self.verdicts else None

    @property
    def active_constraints(self) -> list[Constraint]:
        return [c for c in self.constraints if c.active]

    @property
    def active_hot_issues(self) -> list[HotIssue]:
        return [h for h in self.hot_issues if h.active]

    @property
    def feedback(self) -> list[str]:
        return [m.text for m in self.messages if m.role == "feedback"]

    @property
    def pending_feedback(self) -> list[str]:
        """Feedback no iteration has seen yet: the next iteration takes it into its prompt."""
        return self.feedback[self.feedback_seen :]

    @property
    def uncertain_calls(self) -> list[CallStart]:
        """Side-effecting calls started in this iteration whose result was never recorded and
        that nobody has decided on: they may or may not have taken effect. A call whose effect was
        found but whose result a crash kept from the history is looked at again."""
        done = {c.index for c in self.pending_calls}
        open_ = (None, "found")
        return [s for s in self.call_starts.values() if s.decision in open_ and s.index not in done]

    def apply(self, event: Event) -> TaskState:
        return _apply(self, event)


def replay(events: Iterable[Event]) -> TaskState:
    state = TaskState()
    for event in events:
        state = state.apply(event)
    return state


def _apply(s: TaskState, e: Event) -> TaskState:
    match e:
        case TaskCreated() | BudgetSet() | ModelCallRecorded() | ModelProbed() | TaskFinished() | GoalSplit():
            return _apply_run(s, e)
        case UserMessage():
            return s.model_copy(update={"messages": [*s.messages, e]})
        case ConstraintExtracted(rule=str(rule), key=str(key)):
            kept = [c for c in s.constraints if c.key != key]
            stated = Constraint(key=key, rule=rule, message=e.message)
            return s.model_copy(update={"constraints": [*kept, stated]})
        case ConstraintExtracted():
            return s
        case ConstraintRetired():
            retired = [c.model_copy(update={"active": False}) if c.key == e.key else c for c in s.constraints]
            return s.model_copy(update={"constraints": retired})
        case IterationStarted():
            return s.model_copy(
                update={
                    "current": e.iteration,
                    "mode": e.mode,
                    "pending_calls": [],
                    "plan": [],
                    "feedback_seen": s.feedback_seen + len(e.feedback),
                    "iteration_feedback": e.feedback,
                    "call_starts": {},
                }
            )
        case PlanRecorded():
            worked = [*s.worked, *(w for w in e.worked if w not in s.worked)]
            judged = [*s.judged, *(j for j in e.judged if j not in s.judged)]
            return s.model_copy(
                update={"plan": e.batch, "frontier": e.frontier, "worked": worked, "judged": judged}
            )
        case ToolCallRecorded():
            return _record_call(s, e.call)
        case FileRecorded():
            code = {**s.code, e.file.path: e.code} if e.code else s.code
            return s.model_copy(update={"files": {**s.files, e.file.path: e.file}, "code": code})
        case EvidenceRecorded():
            known = {ev.evidence_id for ev in s.evidence}
            fresh = [ev for ev in e.evidence if ev.evidence_id not in known]
            return s.model_copy(update={"evidence": [*s.evidence, *fresh]})
        case IterationCompleted():
            return s.model_copy(
                update={
                    "iterations": [*s.iterations, e.record],
                    "done_calls": [*s.done_calls, *e.record.tool_calls],
                    "current": 0,
                    "pending_calls": [],
                    "plan": [],
                    "call_starts": {},
                }
            )
        case ToolsConfigured() | ToolCallStarted() | UncertainCallResolved():
            return _apply_tools(s, e)
        case ValidationRecorded() | CoverageRecorded() | PieceChecked():
            return _apply_judged(s, e)
        case ReviewDecided() | ActionsPlanned() | ActionChecked():
            return _apply_decided(s, e)
    raise TypeError(f"unknown event {e!r}")


def _apply_decided(s: TaskState, e: ReviewDecided | ActionsPlanned | ActionChecked) -> TaskState:
    """What was decided: a person's review, an action goal's plan, each of its calls made or refused."""
    if isinstance(e, ReviewDecided):
        return s.model_copy(update={"reviews": [*s.reviews, e]})
    if isinstance(e, ActionsPlanned):
        return s.model_copy(update={"plans": [*s.plans, e]})
    return s.model_copy(update={"checked_actions": [*s.checked_actions, e]})


def _apply_judged(s: TaskState, e: ValidationRecorded | CoverageRecorded | PieceChecked) -> TaskState:
    """What a task's checks said: its verdict, how far it got, its ledger, each function's samples."""
    if isinstance(e, ValidationRecorded):
        return s.model_copy(update={"verdicts": [*s.verdicts, e.verdict]})
    if isinstance(e, PieceChecked):
        return s.model_copy(update={"pieces": {**s.pieces, e.name: e}})
    rows = {**s.ledger, **{row.item: row for row in e.rows}} if e.rows else s.ledger
    ground = [*s.new_ground, e.iteration] if e.new_ground else s.new_ground
    update = {"coverage": e.coverage, "covered": e.iteration, "ledger": rows, "new_ground": ground}
    return s.model_copy(update=update)


def _apply_run(
    s: TaskState, e: TaskCreated | BudgetSet | ModelCallRecorded | ModelProbed | TaskFinished | GoalSplit
) -> TaskState:
    """The events about the task as a whole: its settings, its model calls, how a run ended."""
    match e:
        case TaskCreated():
            fields = (
                "task_id",
                "goal",
                "task_type",
                "sources",
                "skipped_sources",
                "model",
                "max_iterations",
                "related",
            )
            update = {name: getattr(e, name) for name in (*fields, "max_usd", "max_tokens", "strategy")}
            return s.model_copy(update=update)
        case BudgetSet():
            return s.model_copy(update={"max_usd": e.max_usd, "max_tokens": e.max_tokens})
        case GoalSplit():
            return s.model_copy(update={"parts": e.parts})
        case ModelCallRecorded():
            return s.model_copy(update={"model_calls": [*s.model_calls, e.call]})
        case ModelProbed():
            return s.model_copy(update={"model_probe": e.probe})
        case TaskFinished():
            update = {"status": e.status, "stop_reason": e.stop_reason, "report_path": e.report_path}
            return s.model_copy(update={**update, "run_start": len(s.model_calls)})


def _apply_tools(s: TaskState, e: ToolsConfigured | ToolCallStarted | UncertainCallResolved) -> TaskState:
    match e:
        case ToolsConfigured():
            return s.model_copy(update={"tools": e.config})
        case ToolCallStarted():
            start = CallStart(index=e.index, tool=e.tool, signature=e.signature)
            return s.model_copy(update={"call_starts": {**s.call_starts, e.index: start}})
    known = s.call_starts.get(e.index)
    if known is None:
        return s
    decided = known.model_copy(update={"decision": e.decision})
    return s.model_copy(update={"call_starts": {**s.call_starts, e.index: decided}})


def _record_call(s: TaskState, call: ToolCall) -> TaskState:
    again = any(c.call_id == call.call_id for c in s.pending_calls)
    pending = [c for c in s.pending_calls if c.call_id != call.call_id] + [call]
    update: dict[str, object] = {
        "pending_calls": pending,
        "hot_issues": update_hot_issues(s.hot_issues, call),
    }
    if not again:
        update["repeats"] = _repeats(s.repeats, call)
    return s.model_copy(update=update)


def _repeats(counts: dict[str, int], call: ToolCall) -> dict[str, int]:
    """How often each call ran, folded call by call (the loop policy's "same call 3 times"): a
    check re-run after a file write is new work, so a write starts the checks' counts afresh."""
    counted = dict(counts)
    if call.tool == "write_file" and call.outcome == "success":
        counted = {sig: n for sig, n in counted.items() if sig.split(":", 1)[0] not in RERUN_AFTER_WRITE}
    signature = call_signature(call.tool, call.params)
    counted[signature] = counted.get(signature, 0) + 1
    return counted


def update_hot_issues(issues: list[HotIssue], call: ToolCall) -> list[HotIssue]:
    """Open one issue per failing check of a test/lint call; resolve those the same tool now passes.

    A finished run of a check tool resolves every active issue of that tool whose check is not
    failing in this run (the run re-checked it and it passed, or the check no longer exists).
    """
    if call.tool not in HOT_ISSUE_TOOLS or (call.outcome in ("timeout", "error") and not call.checks):
        return issues
    failing = {c.check_id: c for c in call.checks if not c.passed}
    if call.outcome != "success" and not failing:
        # A failure without named checks is still one issue.
        detail = call.error or call.raw_output[:200]
        failing = {
            f"{call.tool}::run": CheckOutcome(check_id=f"{call.tool}::run", passed=False, detail=detail)
        }
    out = [
        h.model_copy(update={"resolved_by": call.call_id})
        if h.active and h.tool == call.tool and h.check_id not in failing
        else h
        for h in issues
    ]
    open_ids = {h.check_id for h in out if h.active and h.tool == call.tool}
    for check_id, check in failing.items():
        if check_id in open_ids:
            continue
        content = f"{call.tool} failing: {check_id}" + (f" — {check.detail}" if check.detail else "")
        out.append(HotIssue(tool=call.tool, check_id=check_id, content=content[:400], opened_by=call.call_id))
    return out
