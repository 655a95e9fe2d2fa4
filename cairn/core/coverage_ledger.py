"""How far a task got through what its goal ranges over: sources read, and for a goal about every
item of a kind (`for every service ...`), the ledger of items and their quoted fields.

>>> Coverage(sources=240, read=97).line()
'97 of 240 sources read'
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.core.frozen import Frozen
from cairn.core.verdict import QuotedLine


class LedgerCell(Frozen):
    """One field of one item of a coverage goal, as the verifier judged it: the value its source
    states, proven and quoted; a value given but not proven (`unverified`, with its line); that
    the sources read do not give it (`not_given`, proven like an answer: every source read and no
    candidate near the absence threshold); several proven values none of which is the latest; or
    not read yet (`open`)."""

    value: str = ""
    quotes: list[QuotedLine] = Field(default_factory=list)
    status: Literal["quoted", "unverified", "not_given", "conflict", "open"] = "open"
    note: str = ""  # why (`corrects 180 ms`, `two values: ...`, the verifier's score)
    score: float | None = None  # the verifier's probability for `value`


class LedgerRow(Frozen):
    """One item a coverage goal ranges over (`for every service ...`) and its fields, in the goal's
    order."""

    item: str
    source: str = ""  # where it was first found (`source:corpus/svc-001.md:3`)
    cells: list[LedgerCell] = Field(default_factory=list)

    @property
    def done(self) -> bool:
        """Every field quoted, or stated as not given by the sources read."""
        return bool(self.cells) and all(c.status in ("quoted", "not_given") for c in self.cells)


class Coverage(Frozen):
    """How far a task got through what its goal ranges over."""

    sources: int = 0  # source files the task can read
    read: int = 0  # of them, read whole (or searched for every question's words)
    kind: str = ""  # what a coverage goal ranges over (`service`), "" for other goals
    fields: list[str] = Field(default_factory=list)
    items: int = 0
    done: int = 0  # items with every field proven, or proven absent

    def line(self) -> str:
        """`97 of 240 sources read; 95 services, 93 with owner and budget quoted`."""
        head = f"{self.read} of {self.sources} sources read"
        if not self.kind:
            return head
        asked = " and ".join(self.fields)
        return (
            f"{head}; {self.items} {self.kind} items found, {self.done} with {asked} proven or proven absent"
        )

    @property
    def complete(self) -> bool:
        return self.read >= self.sources and (not self.kind or self.done == self.items)
