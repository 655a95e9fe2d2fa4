"""What kind of task a goal is, and how a task ended.

>>> "coding_task" in TASK_TYPES
True
"""

from __future__ import annotations

from typing import Literal

TaskType = Literal["simple_question", "coding_task", "research_task", "general_task"]
TASK_TYPES: tuple[TaskType, ...] = ("simple_question", "coding_task", "research_task", "general_task")
# `incomplete`: the loop stopped a task whose checks were not met (its best answer is kept, marked
# unverified); `stopped`: what tasks that ended so before 0.3 recorded.
TaskStatus = Literal["running", "complete", "incomplete", "stopped", "failed"]
# How a task's work is done, chosen once from its type and goal (`cairn.tasks.strategy_choice`): a
# question is answered from what was read, a coverage goal reads every source into a ledger, a
# coding goal writes code until its tests pass, a general task follows its planner, and a goal
# acted on through the user's own tools follows a plan made from the goal alone.
StrategyName = Literal["question", "coverage", "coding", "general", "action"]
STRATEGIES: tuple[StrategyName, ...] = ("question", "coverage", "coding", "general", "action")
# Why a source file is not read as text (`cairn.memory.index.sources.skipped`): no words in it
# (an image, a PDF, a video), or too many to read (a data dump).
SourceSkip = Literal["binary", "too large"]
