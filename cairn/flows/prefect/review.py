"""A person reviews the task between iterations (`--review never|stuck|every`), in a Prefect form.

At a review point the task's deployment run *suspends*: its process exits and the Prefect UI shows
the run Suspended with a typed form (`ReviewInput`: feedback text, continue or stop). Submitting
it resumes the same flow run (a worker runs it again); the run comes back to the same point, where
`suspend_flow_run` now returns the submitted input instead of suspending, and the decision is
recorded in `history.jsonl` (`ReviewDecided`, plus the feedback as a `UserMessage`, which the next
plan takes in).

Without a server that outlives the run (`cairn run` on its temporary server), nobody could submit
the form: the task stops instead, resumable, with the stop reason `awaiting_review: ...`; the
command says in one line how to go on (`cairn feedback TASK "..."`, then `cairn resume TASK`), and
the resumed run records the review as given at the command line and goes on. A run that is not a
deployment run (a library caller's) logs how to give feedback, and goes on.

>>> review_due(TaskState(iterations=[IterationRecord(iteration=1)]), Decision(), "every")
True
>>> review_due(TaskState(iterations=[IterationRecord(iteration=1)]), Decision(), "stuck")
False
"""

from __future__ import annotations

import logging
from typing import Literal

from prefect.input import RunInput
from pydantic import Field

from cairn.core import Event, IterationRecord, ReviewDecided, UserMessage
from cairn.flows.loop.policy import Decision, awaiting_review
from cairn.flows.loop.start import extract_constraint
from cairn.flows.server.ephemeral import owns
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.session import Session
from cairn.memory.log.state import TaskState

ReviewMode = Literal["never", "stuck", "every"]


class ReviewInput(RunInput):
    """The form the Prefect UI shows on a suspended Cairn run."""

    feedback: str = Field(default="", description="What the agent should know or do differently")
    decision: Literal["continue", "stop"] = Field(default="continue", description="Go on, or stop here")


def review_due(state: TaskState, decision: Decision, mode: ReviewMode) -> bool:
    """Whether a person reviews before the next iteration: after every iteration (`every`), or when
    the loop is about to try a recovery prompt on its own (`stuck`); once per iteration."""
    if mode == "never" or decision.stop is not None or not state.iterations:
        return False
    last = state.iterations[-1].iteration
    if any(r.iteration == last for r in state.reviews):
        return False
    return mode == "every" or decision.recovery


def review_prompt(state: TaskState) -> str:
    """The markdown above the form: where the task stands, in a few lines."""
    last: IterationRecord = state.iterations[-1]
    verdict = state.verdict
    missing = (", ".join(verdict.missing) or "nothing") if verdict else "not validated yet"
    return (
        f"## Review task `{state.task_id}` after iteration {last.iteration}\n\n"
        f"**Goal:** {state.goal}\n\n"
        f"**Progress:** {last.progress_assessment} — {last.synthesis}\n\n"
        f"**Still missing:** {missing}\n\n"
        "Write feedback for the next plan (optional), choose *continue* or *stop*, and submit."
    )


def record_review(session: Session, executor: Executor, n: int, answer: ReviewInput, reviewer: str) -> None:
    """The decision in the log; feedback as a user message (and the rule it states, if any)."""
    text = answer.feedback.strip()
    said: list[Event] = []
    if text:
        index = len(session.state.messages)
        rule = extract_constraint(session, executor, text, index=index)
        said = [UserMessage(text=text, role="feedback"), rule]
    who: Literal["ui", "cli"] = "ui" if reviewer == "ui" else "cli"
    decided = ReviewDecided(iteration=n, decision=answer.decision, feedback=text, reviewer=who)
    session.recorder.record(*said, decided)  # one write: feedback is never kept without its decision


class PrefectReviewer:
    """Suspends the current deployment run at a review point (see the module docstring)."""

    def __init__(
        self,
        mode: ReviewMode,
        executor: Executor,
        logger: logging.Logger | logging.LoggerAdapter[logging.Logger],
    ) -> None:
        self.mode = mode
        self.executor = executor
        self.logger = logger

    def review(self, session: Session, decision: Decision) -> str | None:
        state = session.state
        if _resumed_after_review_stop(state):  # whatever `--review` the resume was given
            n = state.iterations[-1].iteration
            record_review(session, self.executor, n, ReviewInput(), "cli")
            self.logger.info("Review of iteration %d given at the command line: going on", n)
            return None
        if not review_due(state, decision, self.mode):
            return None
        n = state.iterations[-1].iteration
        where = _review_channel()
        if where == "cli":
            return self._at_the_command_line(session, n)
        if where is None:
            self.logger.warning(
                "Review point after iteration %d, but this run cannot wait for a form (not a "
                "deployment run): going on. Give feedback any time with "
                '`cairn feedback %s "..."`; the next iteration takes it in.',
                n,
                session.task_id,
            )
            return None
        answer, reviewer = self._ask(state, n)
        record_review(session, self.executor, n, answer, reviewer)
        self.logger.info(
            "Review after iteration %d: %s%s",
            n,
            answer.decision,
            f"; feedback: {answer.feedback.strip()}" if answer.feedback.strip() else "",
        )
        return f"stopped by the reviewer after iteration {n}" if answer.decision == "stop" else None

    def _at_the_command_line(self, session: Session, n: int) -> str:
        """Stop here for a review: no server would keep a form for it."""
        self.logger.warning(
            'Waiting for a review of iteration %d: give feedback with `cairn feedback %s "..."`, '
            "then continue with `cairn resume %s` (no Prefect server is running to hold a form)",
            n,
            session.task_id,
            session.task_id,
        )
        return awaiting_review(n)

    def _ask(self, state: TaskState, n: int) -> tuple[ReviewInput, str]:
        """Suspend (the process exits); once resumed with the form's input, return it ("ui").
        A run continued without the form (`cairn resume` of a suspended run) goes on ("cli")."""
        from prefect.flow_runs import suspend_flow_run

        self.logger.info(
            "Waiting for a review of iteration %d: open this run in the Prefect UI and submit the form",
            n,
        )
        form = ReviewInput.with_initial_data(description=review_prompt(state))
        try:
            answer = suspend_flow_run(wait_for_input=form, key=f"review-{n}", timeout=None)
        except Exception as exc:  # resumed without the form's input: no answer to load
            self.logger.warning("Continued without a review of iteration %d (%s): going on", n, exc)
            return ReviewInput(), "cli"
        return (answer if isinstance(answer, ReviewInput) else ReviewInput.model_validate(answer)), "ui"


def _resumed_after_review_stop(state: TaskState) -> bool:
    """The task stopped for a review of its last iteration and was resumed: the review was given
    at the command line (`cairn feedback`, its own event) and is recorded as such."""
    if not state.iterations:
        return False
    n = state.iterations[-1].iteration
    return state.stop_reason == awaiting_review(n) and not any(r.iteration == n for r in state.reviews)


def _review_channel() -> Literal["form", "cli"] | None:
    """Where a person can review this run: a form, for a deployment run on a server that outlives
    it (the only kind Prefect can suspend and reschedule); the command line, for one on this
    process's temporary server (it dies with us); None for a run that is no deployment run."""
    from prefect.context import FlowRunContext
    from prefect.settings import PREFECT_API_URL

    context = FlowRunContext.get()
    run = context.flow_run if context else None
    api = str(PREFECT_API_URL.value() or "")
    if not (api and run and run.deployment_id):
        return None
    return "cli" if owns(api) else "form"
