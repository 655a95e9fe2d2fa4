"""`summarize_history`: the key decisions of a long task, read from its own records (no model).

The agent uses it to orient itself after many iterations: which rules hold, what the user said,
which files it wrote, which checks failed and were fixed, where progress turned, what the last
verdict missed, and the latest high-relevance findings (docs/design.md, "Reflection and context").

>>> from pathlib import Path
>>> from cairn.memory.log.state import TaskState
>>> ctx = ToolContext(task_id="t", artifacts=Path("."), task_state=lambda: TaskState(goal="Ship it"))
>>> summarize_history(ctx).text.splitlines()[0]
'GOAL: Ship it'
"""

from __future__ import annotations

from cairn.memory.context.reasoning import key_decisions
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure

MAX_CHARS = 6000


def summarize_history(ctx: ToolContext, focus: str = "", limit: int = 20) -> ToolOutput:
    """The task's key decisions; `focus` keeps the turning points and findings that mention it."""
    if ctx.task_state is None:
        return failure("the task's history is not available in this run", "error")
    lines = key_decisions(ctx.task_state(), focus=focus, limit=max(1, min(int(limit), 100)))
    text = "\n".join(lines)
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + "\n[... summary truncated; use a narrower focus]"
    return ToolOutput(text=text)
