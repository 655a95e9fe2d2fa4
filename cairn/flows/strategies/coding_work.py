"""A coding goal: once its sources are read, write the code (piece by piece when the goal names
several functions), add the imports it forgot, run the tests, fix what fails. The planner is asked
only when the coding step has nothing to do, and a test run follows any batch that leaves the
code untested.
"""

from __future__ import annotations

from dataclasses import replace

from cairn.core import StrategyName
from cairn.flows.steps.plan import NextCalls, choose, missing_checks, opening, planner_calls, sources_read
from cairn.flows.steps.write import coding_step, with_tests
from cairn.flows.strategies.strategy import Turn
from cairn.tasks.messages.schemas import Candidate


class Coding:
    name: StrategyName = "coding"
    complete_when = "every file the goal names is written and its tests and examples pass"

    def next_calls(self, turn: Turn) -> NextCalls:
        session = turn.session
        if reads := opening(session):
            return NextCalls.just(reads, session.state.frontier)
        if sources_read(session) and (step := self._step(turn)):
            written = choose(session, step)  # write, test, fix: no plan
            if written.batch:
                return written
        planned = planner_calls(session, turn.executor, turn.iteration, turn.context, turn.recovery)
        if not planned.batch and (step := self._step(turn)):
            planned = choose(session, step)
        return replace(planned, batch=with_tests(session, planned.batch))

    def _step(self, turn: Turn) -> list[Candidate]:
        return coding_step(turn.session, turn.executor, turn.iteration, missing_checks(turn.session))
