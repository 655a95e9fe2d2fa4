"""One strategy per kind of work, chosen once per task from its type and goal
(`cairn.tasks.strategy_choice`) and recorded in its history: a question, a coverage goal, a
coding goal, a general task. Each is one module with the same interface (`Strategy`); a new kind
of work is one new module and one line here.

>>> strategy_of(TaskState(task_type="coding_task", goal="Write f() in f.py.")).name
'coding'
"""

from __future__ import annotations

from cairn.core import StrategyName
from cairn.flows.strategies.action_work import Action
from cairn.flows.strategies.coding_work import Coding
from cairn.flows.strategies.coverage_work import Coverage
from cairn.flows.strategies.general_work import General
from cairn.flows.strategies.question_work import Question
from cairn.flows.strategies.strategy import Strategy, Turn
from cairn.memory.log.state import TaskState
from cairn.tasks.strategy_choice import strategy_for

BY_NAME: dict[StrategyName, Strategy] = {
    "question": Question(),
    "coverage": Coverage(),
    "coding": Coding(),
    "general": General(),
    "action": Action(),
}


def strategy_name(state: TaskState) -> StrategyName:
    """The strategy the task's creation recorded (chosen again from its type and goal for a task
    created before 0.5)."""
    return state.strategy or strategy_for(state.task_type, state.goal)


def strategy_of(state: TaskState) -> Strategy:
    return BY_NAME[strategy_name(state)]


__all__ = ["BY_NAME", "Strategy", "Turn", "strategy_name", "strategy_of"]
