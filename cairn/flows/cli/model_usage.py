"""What a task's model calls cost, by kind and in total: for `cairn show`, `cairn run` and the UI.

>>> from cairn.core import CallCost, ModelCall
>>> calls = [ModelCall(key="t/1/0/plan", kind="plan", model="m", cost=CallCost(prompt_tokens=90,
...     completion_tokens=10, seconds=2.0)), ModelCall(key="t/1/0/plan", kind="plan", model="m", ok=False)]
>>> [(u.kind, u.calls, u.failed, u.cost.tokens) for u in usage(calls)]
[('plan', 2, 1, 100), ('total', 2, 1, 100)]
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel
from rich.table import Table

from cairn.core import CallCost, ModelCall
from cairn.flows.console import safe


class Usage(BaseModel):
    kind: str
    calls: int = 0
    failed: int = 0
    attempts: int = 0
    cost: CallCost = CallCost()

    def add(self, call: ModelCall) -> Usage:
        return self.model_copy(
            update={
                "calls": self.calls + 1,
                "failed": self.failed + (not call.ok),
                "attempts": self.attempts + call.attempts,
                "cost": self.cost + call.cost,
            }
        )


def usage(calls: Sequence[ModelCall]) -> list[Usage]:
    """One row per call kind (in order of first use), then the total."""
    rows: dict[str, Usage] = {}
    total = Usage(kind="total")
    for call in calls:
        rows[call.kind] = rows.get(call.kind, Usage(kind=call.kind)).add(call)
        total = total.add(call)
    return [*rows.values(), total] if rows else []


def usage_table(calls: Sequence[ModelCall]) -> Table:
    """The usage by kind, and under it, one line per failed call saying why it failed (and per call
    whose reply ran away, its completed part kept)."""
    failed = "\n".join(failure(call) for call in calls if call.error)
    table = Table(
        title="model calls", title_justify="left", caption=safe(failed) or None, caption_justify="left"
    )
    columns = ("kind", "calls", "failed", "attempts", "prompt tokens", "completion tokens", "seconds", "USD")
    for col in columns:
        table.add_column(col, justify="left" if col == "kind" else "right")
    for u in usage(calls):
        table.add_row(
            u.kind,
            str(u.calls),
            str(u.failed),
            str(u.attempts),
            f"{u.cost.prompt_tokens:,}",
            f"{u.cost.completion_tokens:,}",
            f"{u.cost.seconds:.1f}",
            f"{u.cost.usd:.4f}",
        )
    return table


def failure(call: ModelCall) -> str:
    """`failed plan t/3/0/plan (2 attempts, 2,304 tokens, 38.2 s): plan reply repeated itself ...`"""
    tries, cost = f"{call.attempts} attempt{'s' * (call.attempts != 1)}", call.cost
    spent = f"{tries}, {cost.completion_tokens:,} tokens, {cost.seconds:.1f} s"
    what = "failed" if not call.ok else "ran away"
    return f"{what} {call.kind} {call.key} ({spent}): {call.error or 'no reason recorded'}"
