"""How a task's end becomes one line and an exit code (README, "Exit codes"), for `cairn run`,
`cairn resume` and `--json` alike: `ending` is the one mapping, so they cannot disagree.

A cron job or a CI step reads the code alone, so each way a task ends that calls for a different
act has its own: done (0), incomplete (8: the loop stopped it before its checks passed, its best
answer kept unverified), the model down (4), the budget spent (5), failed (1). A task stopped for
a review is answered before this (`ReviewPending`, 7).

>>> ending(TaskResult(task_id="t", status="incomplete", complete=False, iterations=6, workspace="ws",
...     report_path=None, stop_reason="iteration cap of 6 reached", verdict=None), "ws").exit_code
8
"""

from __future__ import annotations

from cairn.core import CairnError
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.loop.policy import BUDGET, MODEL_UNAVAILABLE
from cairn.tasks.model.failures import BudgetExhausted, ModelUnavailable


class TaskIncomplete(CairnError):
    """The loop stopped the task before its answer passed its checks (its iteration cap, a call
    repeated, validations or evidence that did not come, being stuck): its best answer is kept,
    marked Unverified. Not 0: "done, answer unverified" is not "done"; not 1: nothing failed."""

    exit_code = 8
    label = ""  # not an error: the task ran to an end its policy chose


class TaskFailed(CairnError):
    """The task ended failed."""


def ending(result: TaskResult, workspace: str) -> CairnError | None:
    """The error a task's end is at the command line; None for a complete task (exit 0)."""
    task_id, reason = result.task_id, result.stop_reason or ""
    if result.status == "complete":
        return None
    if reason.startswith(MODEL_UNAVAILABLE):
        return ModelUnavailable(f"{reason}; continue with: cairn resume {task_id} --workspace {workspace}")
    if reason.startswith(BUDGET):
        more = f"cairn resume {task_id} --max-usd N or --max-tokens N"
        return BudgetExhausted(f"{reason}; raise it with: {more}")
    if result.status in ("incomplete", "stopped"):  # `stopped`: how tasks before 0.3 recorded it
        count = len(result.unmet)
        unmet = f", {count} check{'s' if count != 1 else ''} unmet" if count else ""
        return TaskIncomplete(
            f"task {task_id} ended incomplete ({reason}{unmet}): its best answer is kept, marked "
            f"Unverified; `cairn show {task_id} --workspace {workspace}` lists what is unmet"
        )
    return TaskFailed(f"task {task_id} ended {result.status}: {reason or 'no reason recorded'}")


def exit_code(result: TaskResult, workspace: str) -> int:
    """The code the command exits with for this end (what `--json` reports as `exit_code`)."""
    error = ending(result, workspace)
    return error.exit_code if error is not None else 0
