"""A goal about every item of a kind: read every source, batch by batch, into the ledger
(`cairn.flows.steps.coverage`); the loop writes the report after each iteration. No planner is
asked. A goal whose every source was read without one item of its kind asked one value after all
(`What percent does the law require all spirits to have?`): it is answered as a question.
"""

from __future__ import annotations

from cairn.core import StrategyName
from cairn.flows.steps.coverage import next_reads, spec_of
from cairn.flows.steps.plan import NextCalls, opening
from cairn.flows.strategies.question_work import Question
from cairn.flows.strategies.strategy import Turn


class Coverage:
    name: StrategyName = "coverage"
    complete_when = "every source is read and each item's every field is proven, or proven absent"

    def next_calls(self, turn: Turn) -> NextCalls:
        session, state = turn.session, turn.session.state
        if reads := next_reads(session) or opening(session):
            return NextCalls.just(reads, state.frontier)
        if spec_of(state) is not None:  # every source read: the ledger is all there is to deliver
            return NextCalls.just([], [])
        return Question().next_calls(turn)
