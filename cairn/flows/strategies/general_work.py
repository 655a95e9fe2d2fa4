"""A general task (research, a summary, anything that is neither a question, a ledger nor code):
the same steps as a question, its answer written as a report (`report.md`). It is a kind of its
own so that a task's history says which it was, and so that it can part from the question's way
without touching it.
"""

from __future__ import annotations

from cairn.core import StrategyName
from cairn.flows.strategies.question_work import Question


class General(Question):
    name: StrategyName = "general"
    complete_when = "the task type's checks pass over its report and the sources it cites"
