"""One iteration's steps and what they run through: the planner and its breadth-first frontier,
write and deliver, the task's `Session`, the `Executor` that runs calls, and model calls recorded.
"""

from __future__ import annotations

from cairn.flows.steps.deliverable import deliverable_name, deliverable_text, judged_file
from cairn.flows.steps.executor import Executor, InProcessExecutor, ToolResult, ToolRun
from cairn.flows.steps.model_calls import ask, record_model_call
from cairn.flows.steps.session import Session, learner_for, open_session

__all__ = [
    "Executor",
    "InProcessExecutor",
    "Session",
    "ToolResult",
    "ToolRun",
    "ask",
    "deliverable_name",
    "deliverable_text",
    "judged_file",
    "learner_for",
    "open_session",
    "record_model_call",
]
