"""A question: read the sources, answer as soon as something new was read, and ask the planner
only when the answer is not there yet (then answer anyway when it has nothing new to propose).

The answer is proven, part by part, by the verifier (`cairn.flows.steps.deliver`); what it cannot
prove is still given, marked unverified.
"""

from __future__ import annotations

from cairn.core import PlannedCall, StrategyName
from cairn.flows.steps.deliver import Delivery, delivery
from cairn.flows.steps.plan import NextCalls, missing_checks, opening, planner_calls
from cairn.flows.strategies.strategy import Turn


class Question:
    name: StrategyName = "question"
    complete_when = "each part of its answer is proven by a line read, or proven absent (no line near it)"

    def next_calls(self, turn: Turn) -> NextCalls:
        session, state = turn.session, turn.session.state
        if reads := opening(session):
            return NextCalls.just(reads, state.frontier)
        if (answer := self._deliver(turn)) is not None:
            return answering(answer, state.frontier)
        planned = planner_calls(session, turn.executor, turn.iteration, turn.context, turn.recovery)
        if not planned.batch and (answer := self._deliver(turn, force=True)) is not None:
            return answering(answer, planned.frontier)  # nothing new to do: answer with what is known
        return planned

    def _deliver(self, turn: Turn, force: bool = False) -> Delivery | None:
        missing = missing_checks(turn.session)
        return delivery(turn.session, turn.executor, turn.iteration, missing, turn.context, force=force)


def answering(answer: Delivery, frontier: list[PlannedCall]) -> NextCalls:
    calls = [answer.call]
    return NextCalls(
        batch=calls, candidates=calls, frontier=frontier, worked=answer.worked, judged=answer.judged
    )
