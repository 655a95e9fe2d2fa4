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
    """One field of one item of a coverage goal: the value its source states, quoted; or that the
    sources read do not give it (`missing`), or several values none of which is the latest."""

    value: str = ""
    quotes: list[QuotedLine] = Field(default_factory=list)
    status: Literal["quoted", "not_given", "conflict", "open"] = "open"
    note: str = ""  # why (`corrects 180 ms`, `two values: ...`)


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
    done: int = 0  # items with every field quoted or not given

    def line(self) -> str:
        """`97 of 240 sources read; 95 services, 93 with owner and budget quoted`."""
        head = f"{self.read} of {self.sources} sources read"
        if not self.kind:
            return head
        asked = " and ".join(self.fields)
        return f"{head}; {self.items} {self.kind} items found, {self.done} with {asked} quoted or not given"

    @property
    def complete(self) -> bool:
        return self.read >= self.sources and (not self.kind or self.done == self.items)
