"""The task's story in its run's logs: what a person reads on the Logs tab of the Prefect UI.

Every event a run records becomes at most one INFO line (`story_line`, a pure function of the
event and the state after it): the plan with a one-line rationale per call, each call's insight,
the synthesis with its progress, the verdict, the report. `NarratingRecorder` is a `TaskRecorder`
that says each line as it records the event; the iteration subflows tell theirs on the task's
parent run (`telling`), so the parent's Logs tab reads as the whole story.

>>> story_line(IterationCompleted(record=IterationRecord(iteration=2, synthesis="Found it.")), TaskState())
'Iteration 2 synthesis (advancing): Found it.'
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from cairn.core import (
    Event,
    EvidenceRecorded,
    IterationCompleted,
    IterationRecord,
    IterationStarted,
    PieceChecked,
    PlannedCall,
    PlanRecorded,
    ReviewDecided,
    TaskFinished,
    ToolCallRecorded,
    UserMessage,
    ValidationRecorded,
    main_argument,
)
from cairn.memory.index.recorder import TaskRecorder
from cairn.memory.log.state import TaskState

Logger = logging.Logger | logging.LoggerAdapter[logging.Logger]
_ = (EvidenceRecorded, IterationRecord)  # named in the doctest


def _short(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def call_text(call: PlannedCall) -> str:
    arg = main_argument(call.params)
    return f"{call.tool}({_short(arg, 80)})" if arg else call.tool


def plan_lines(event: PlanRecorded) -> str:
    calls = "".join(
        f"\n  - {call_text(c)}: {_short(c.rationale, 160) or 'no rationale'}" for c in event.batch
    )
    return f"Iteration {event.iteration} plan: {len(event.batch)} calls{calls or ' (none)'}"


def story_line(event: Event, state: TaskState) -> str | None:
    """One line for the log, or None for events that tell nothing new (evidence, files)."""
    match event:
        case IterationStarted():
            taken = f"; takes in feedback: {_short(' / '.join(event.feedback))}" if event.feedback else ""
            return f"Iteration {event.iteration} starts ({event.mode} mode){taken}"
        case PlanRecorded():
            return plan_lines(event)
        case ToolCallRecorded(call=call):
            head = call_text(PlannedCall(tool=call.tool, params=call.params))
            said = call.insights or call.error or "(no insight)"
            return f"Call {call.call_id} {head} -> {call.outcome}: {_short(said)}"
        case IterationCompleted(record=record):
            progress = record.progress_assessment
            return f"Iteration {record.iteration} synthesis ({progress}): {_short(record.synthesis)}"
        case ValidationRecorded(verdict=v):
            status = "complete" if v.complete else "not complete"
            missing = f"; missing: {', '.join(v.missing)}" if v.missing else ""
            head = f"Verdict after iteration {v.iteration}: {status} ({v.confidence:.2f})"
            return f"{head}: {_short(v.rationale)}{missing}"
        case UserMessage(role="feedback"):
            return f"Feedback received: {_short(event.text)}"
        case PieceChecked():
            return piece_line(event)
        case ReviewDecided():
            return f"Review after iteration {event.iteration}: {event.decision} ({event.reviewer})"
        case TaskFinished():
            report = f"; report: {event.report_path}" if event.report_path else ""
            return f"Task {state.task_id} {event.status}: {event.stop_reason}{report}"
    return None


def piece_line(event: PieceChecked) -> str:
    """`Function find_zero (sample 4): passes its examples; another sample agrees on varied inputs`."""
    head = f"Function {event.name} (sample {event.draws})"
    if not event.passed:
        return f"{head}: fails its examples"
    if event.disagreement is not None:
        return f"{head}: passes its examples; {event.disagreement.words()}"
    seconded = "; another sample agrees on varied inputs" if event.seconded else ""
    return f"{head}: passes its examples{seconded}"


class NarratingRecorder(TaskRecorder):
    """A `TaskRecorder` that also says each recorded event's story line."""

    def __init__(self, inner: TaskRecorder, say: Callable[[str], None]) -> None:
        self.adopt(inner)
        self.say = say

    def recorded(self, event: Event, state: TaskState) -> None:
        line = story_line(event, state)
        if line:
            self.say(line)


_TELLER: ContextVar[Logger | None] = ContextVar("cairn_story_logger", default=None)


@contextmanager
def telling(logger: Logger) -> Iterator[None]:
    """Inside: runs started in this thread (the iteration subflows) tell their story to `logger`."""
    token = _TELLER.set(logger)
    try:
        yield
    finally:
        _TELLER.reset(token)


def story_logger() -> Logger:
    """The task's parent run logger when inside `telling`, else the current run's."""
    from prefect import get_run_logger

    return _TELLER.get() or get_run_logger()


def rules_line(state: TaskState) -> str:
    rules = [c.rule for c in state.active_constraints]
    return f"Rules: {'; '.join(_short(r, 120) for r in rules)}" if rules else "Rules: none stated"
