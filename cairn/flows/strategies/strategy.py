"""What every strategy is: given where the task stands, the calls its next iteration runs.

A strategy decides; the steps (`cairn.flows.steps`) do: read, deliver, write, ask the planner. The
loop records what the strategy chose, in one place (`cairn.flows.loop.iteration`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from cairn.core import StrategyName
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.plan import NextCalls
from cairn.flows.steps.session import Session


@dataclass(frozen=True)
class Turn:
    """One iteration's planning: the task's session, how calls run, which iteration, the CONTEXT
    block the planner sees, and whether the loop is recovering from a stuck streak."""

    session: Session
    executor: Executor
    iteration: int
    context: str
    recovery: bool = False


class Strategy(Protocol):
    """One kind of work: its name and when its deliverable is complete (both shown by `cairn
    show`), and how it chooses its next calls. The deliverable itself has one rule for every
    kind (`cairn.flows.steps.deliverable`)."""

    name: StrategyName
    complete_when: str

    def next_calls(self, turn: Turn) -> NextCalls: ...
