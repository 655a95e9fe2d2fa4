"""A goal done through the user's tools (pay, book, send): a plan made from the goal and the
tools alone, run step by step (`cairn.flows.steps.act`), then the answer. No planner is asked
once tool output has been read, so an instruction inside an e-mail, a web page or a file can
never add a call or change a recipient: the values a step reads from results are checked
exactly (`cairn.tasks.actions`), and a call the results suggest is recorded as refused.
"""

from __future__ import annotations

from dataclasses import replace

from cairn.core import StrategyName
from cairn.flows.steps.act import due_steps, judged_acts, refuse_suggestions
from cairn.flows.steps.deliver import delivery
from cairn.flows.steps.plan import NextCalls, missing_checks
from cairn.flows.strategies.question_work import answering
from cairn.flows.strategies.strategy import Turn


class Action:
    name: StrategyName = "action"
    complete_when = (
        "every call of the goal's plan was made, its values traced to the goal or a result read, "
        "and the verifier judges that the calls made did what the goal asked"
    )

    def next_calls(self, turn: Turn) -> NextCalls:
        session = turn.session
        refuse_suggestions(session, turn.iteration)
        if calls := due_steps(session, turn.executor, turn.iteration):
            return NextCalls.just(calls, [])
        missing = missing_checks(session)
        answer = delivery(session, turn.executor, turn.iteration, missing, turn.context, force=True)
        if answer is None:
            return NextCalls.just([], [])
        return answering(replace(answer, judged=[*answer.judged, *judged_acts(session, turn.executor)]), [])
