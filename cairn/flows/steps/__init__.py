"""One iteration's steps and what they run through: the plan step and its breadth-first frontier,
write and deliver, the task's `Session`, the `Executor` that runs calls, and model calls recorded.
"""

from __future__ import annotations

from cairn.flows.steps.executor import Executor, InProcessExecutor, ToolResult, ToolRun
from cairn.flows.steps.model_calls import ask, record_model_call
from cairn.flows.steps.plan import plan_batch
from cairn.flows.steps.session import Session, deliverable_text, learner_for, open_session, report_path

__all__ = [
    "Executor",
    "InProcessExecutor",
    "Session",
    "ToolResult",
    "ToolRun",
    "ask",
    "deliverable_text",
    "learner_for",
    "open_session",
    "plan_batch",
    "record_model_call",
    "report_path",
]
