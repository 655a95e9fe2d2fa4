"""The task loop as a plain function: iterate, validate what is new, decide, finish.

`run_loop` does not know how an iteration runs: the task's flow passes one that starts an
iteration subflow run (`cairn.flows.prefect.flow`), tests and benchmarks one that calls `run_iteration`
in process. Either way the state comes from `history.jsonl`, so a resumed task continues here
from wherever its log says it stopped.

A `Reviewer` may stop the loop between iterations: the task's flow passes one that suspends the
run for a person's review (`cairn.flows.prefect.review`); the plain loop knows only that it may answer
"stop".

>>> result = run_loop(session, lambda n, mode, recovery: None, NoPages())  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from pydantic import Field

from cairn.core import (
    Coverage,
    Evidence,
    EvidenceRecorded,
    Frozen,
    IterationMode,
    IterationRecord,
    StrategyName,
    TaskFinished,
    TaskStatus,
    ValidationRecorded,
    Verdict,
)
from cairn.flows.loop.policy import Decision, LoopPolicy, decide
from cairn.flows.loop.unverified import ANSWER_KEPT, keep_best_answer
from cairn.flows.steps.deliverable import deliverable_text, judged_file
from cairn.flows.steps.session import Session, learner_for
from cairn.flows.strategies import strategy_name
from cairn.memory.context.levels import apply_promotions
from cairn.memory.log.state import TaskState
from cairn.tasks.task_grounding import checked_for
from cairn.tasks.validation import has_tests, validate

Iterate = Callable[[int, IterationMode, bool], object]


class TaskResult(Frozen):
    task_id: str
    status: str
    complete: bool
    iterations: int
    workspace: str
    report_path: str | None
    stop_reason: str | None
    verdict: Verdict | None
    unmet: list[str] = Field(default_factory=list)  # the last verdict's unmet checks (none if complete)
    coverage: Coverage | None = None  # how far it got (sources read; a coverage goal's items)
    task_type: str = ""
    strategy: StrategyName | None = None  # how its work was done (`cairn.flows.strategies`)
    model_calls: int = 0
    failed_model_calls: int = 0
    tokens: int = 0
    usd: float = 0.0


class Publisher(Protocol):
    """Where a task shows its progress: its UI pages in Prefect (`cairn.flows.prefect.ui`), or nowhere."""

    def publish_iteration(self, state: TaskState, record: IterationRecord) -> None: ...

    def publish_progress(self, state: TaskState) -> None: ...


class NoPages:
    def publish_iteration(self, state: TaskState, record: IterationRecord) -> None:
        """Nothing to show: the run has no UI."""

    def publish_progress(self, state: TaskState) -> None:
        """Nothing to show: the run has no UI."""


class Reviewer(Protocol):
    """Who may look at the task before the next iteration (a person, through the Prefect UI)."""

    def review(self, session: Session, decision: Decision) -> str | None:
        """A stop reason if the reviewer stops the task here, else None (go on)."""
        ...


class NoReview:
    def review(self, session: Session, decision: Decision) -> str | None:
        """Nobody reviews: the loop policy alone decides."""
        return None


def run_loop(
    session: Session, iterate: Iterate, publisher: Publisher, reviewer: Reviewer | None = None
) -> TaskResult:
    """Run the session's task until it is complete or the loop policy (or a reviewer) stops it."""
    reviewer = reviewer or NoReview()
    _catch_up(session, publisher)
    policy = LoopPolicy(model_failures=session.config.model_failures)
    decision = _reviewed(session, reviewer, decide(session.state, policy))
    while decision.stop is None:
        n = len(session.state.iterations) + 1
        iterate(n, decision.mode, decision.recovery)
        state = session.recorder.refresh()
        if has_new_evidence(state):
            validate_now(session, n)
        publisher.publish_iteration(session.state, session.state.iterations[-1])
        decision = _reviewed(session, reviewer, decide(session.state, policy))
    result = finish(session, decision.stop)
    publisher.publish_progress(session.state)
    return result


def _reviewed(session: Session, reviewer: Reviewer, decision: Decision) -> Decision:
    if decision.stop is not None:
        return decision
    stop = reviewer.review(session, decision)
    return decision if stop is None else Decision(stop=stop)


def _catch_up(session: Session, publisher: Publisher) -> None:
    """Validate a finished iteration the previous run stopped right after (as an uninterrupted run would)."""
    state = session.state
    if state.current == 0 and state.iterations and has_new_evidence(state):
        validate_now(session, state.iterations[-1].iteration)
        publisher.publish_iteration(session.state, session.state.iterations[-1])


def has_new_evidence(state: TaskState) -> bool:
    last = state.verdict.iteration if state.verdict else 0
    return any(ev.iteration > last for ev in state.evidence)


def validate_now(session: Session, iteration: int) -> Verdict:
    """Run the task type's suite over the evidence and what the deliverable claims; record the
    verdict and its evidence."""
    state, config = session.state, session.config
    suites = Path(config.validators_dir) if config.validators_dir else None
    repo = session.recorder.repo
    text = deliverable_text(state, repo.artifacts)
    verdict = validate(
        state.task_type,
        state.evidence,
        has_tests=has_tests(state.files),
        suites_dir=suites,
        iteration=iteration,
        checked=checked_for(state, text, session.reader, session.verifier),
    )
    judged = judged_file(state, repo.artifacts)
    verdict = verdict.model_copy(
        update={
            "deliverable": Path(judged).relative_to(repo.artifacts).as_posix() if judged else "",
            "answer": text[:ANSWER_KEPT],
        }
    )
    evidence = Evidence(
        type="validation",
        content=verdict.rationale[:500],
        confidence=verdict.confidence,
        source=verdict.validation_id,
        iteration=iteration,
    )
    session.recorder.record(ValidationRecorded(verdict=verdict), EvidenceRecorded(evidence=[evidence]))
    return verdict


def finish(session: Session, reason: str | None) -> TaskResult:
    """Record how the task ended (once), credit the memories it used, and say where the report is.
    A task that ends without passing its checks ends `incomplete`, its best answer kept and
    marked unverified (`cairn.flows.loop.unverified`)."""
    state = session.state
    complete = bool(state.verdict and state.verdict.complete)
    report = judged_file(state, session.artifacts)
    if state.status == "running" or state.stop_reason != reason:
        status: TaskStatus = "complete" if complete else "incomplete"
        kept = [] if complete else keep_best_answer(session, reason or "")
        session.recorder.record(
            *kept, TaskFinished(status=status, stop_reason=reason or "", report_path=report)
        )
        # The episode's end: memories the task used move toward its outcome (TD(lambda)).
        updates = learner_for(session.deps, state).end_episode(1.0 if complete else 0.0)
        apply_promotions(session.deps.store, updates)
        session.recorder.repo.commit([session.recorder.repo.history.path], f"Task finished: {reason}")
    state = session.state
    spent = state.model_cost
    return TaskResult(
        task_id=state.task_id,
        status=state.status,
        complete=complete,
        unmet=state.verdict.unmet if state.verdict and not complete else [],
        iterations=len(state.iterations),
        workspace=str(session.deps.workspace.root),
        report_path=report,
        stop_reason=state.stop_reason,
        verdict=state.verdict,
        coverage=state.coverage,
        task_type=state.task_type,
        strategy=strategy_name(state),
        model_calls=len(state.model_calls),
        failed_model_calls=sum(not call.ok for call in state.model_calls),
        tokens=spent.tokens,
        usd=spent.usd,
    )
