"""Which strategy a task's work follows, chosen once from its type and goal.

>>> strategy_for("coding_task", "Write slugify(text) in slug.py.")
'coding'
>>> strategy_for("simple_question", "Which team owns each service, and what is its budget?")
'coverage'
>>> strategy_for("simple_question", "How much water does the reservoir hold?")
'question'
>>> strategy_for("research_task", "Summarise what the notes say about the reservoir.")
'general'
>>> strategy_for("general_task", "Pay the bill in bill.txt.", acts=True)
'action'
"""

from __future__ import annotations

from cairn.core import StrategyName, TaskType
from cairn.tasks.coverage.goal import coverage_goal


def strategy_for(task_type: TaskType, goal: str, acts: bool = False) -> StrategyName:
    """A coding task writes code whatever its words; a general task given tools of the user's own
    that change the world (`acts`) is done through them, by a plan made from the goal alone; a goal
    about every item of a kind reads every source into a ledger; a question is answered from what
    was read; the rest follow the planner."""
    if task_type == "coding_task":
        return "coding"
    if acts and task_type == "general_task":
        return "action"
    if coverage_goal(goal) is not None:
        return "coverage"
    return "question" if task_type == "simple_question" else "general"
