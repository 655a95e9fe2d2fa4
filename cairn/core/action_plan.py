"""An action goal's plan and what Cairn decided about each call of it.

The plan is made from the goal and the tools alone, before any tool output is read (`ActStep`:
a tool, the arguments the goal gives, and the arguments to take from earlier results); where it
did not go as planned, it is made once more from the goal, the tools and what became of each step,
still without a word of tool output, its steps numbered after the first plan's. Each call
Cairn makes or refuses is an `ActionChecked`: where every argument's value came from, or why the
call was not made.

>>> ActStep(tool="send_money", args={"amount": 10}, inputs={"recipient": "the bill's IBAN"}).takes
['amount', 'recipient']
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.core.frozen import Frozen, JsonValue


class ActStep(Frozen):
    """One call the goal needs: its tool, the values the goal gives (`args`), and for each other
    argument what to take from the results of the steps before it (`inputs`)."""

    tool: str
    args: dict[str, JsonValue] = Field(default_factory=dict)
    inputs: dict[str, str] = Field(default_factory=dict)
    why: str = ""

    @property
    def takes(self) -> list[str]:
        return [*self.args, *self.inputs]


class ActionsPlanned(Frozen):
    """The goal's plan, from the goal and the tools alone; `again`: the steps that follow a first
    plan that did not go as planned; `cut`: the model's reply ran away, its whole steps kept."""

    type: Literal["actions_planned"] = "actions_planned"
    steps: list[ActStep]
    again: bool = False
    cut: bool = False


class ActionChecked(Frozen):
    """A call of an action goal, checked before it runs: made (`refused` empty), with where each
    argument's value came from (`sources`), or refused, saying why. `step` is its step of the plan;
    None for a call a tool's output suggested (the plan never held it)."""

    type: Literal["action_checked"] = "action_checked"
    iteration: int
    step: int | None
    tool: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict)
    refused: str = ""
