"""The ledger of a coverage goal: one row per item found, each field quoted from where it was read.

Units are added as they are read; each addition names the items it touches, and only those rows
are worked out again, so an iteration's cost follows what it read, not what was read before it.
A field of an item is the value the lines that name the item give to the field's question
(`cairn.tasks.coverage.goal`), taken by the quote check's own rules (`answer_values.value_in`:
of the kind asked, never one of the question's words), from a line that names the item itself
or points back to one that does. Two lines giving two values: the later dated one wins (a memo of
2 March 2026 correcting a table), noted as a correction; with no later date, the cell is a
conflict. A field no line gives stays open until every source was read, then reads "not given".

>>> from cairn.tasks.coverage.goal import coverage_goal
>>> from cairn.tasks.grounding.units import units_of
>>> ledger = Ledger(coverage_goal("For every service, list the team that owns it and its p95 budget."))
>>> text = "The billing service is owned by Team Finch. Its p95 budget is 180 ms."
>>> touched = ledger.add(units_of("source:a.md", text))
>>> [(c.value, c.status) for c in ledger.row(touched[0]).cells]
[('Team Finch', 'quoted'), ('180 ms', 'quoted')]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from datetime import date

from cairn.memory.models import LedgerCell, LedgerRow
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.items import items_in, key
from cairn.tasks.grounding.answer_values import Value, value_in
from cairn.tasks.grounding.asked import Asked, parse
from cairn.tasks.grounding.figures import dates
from cairn.tasks.grounding.lemmas import content_terms, tokens
from cairn.tasks.grounding.proof import quoted
from cairn.tasks.grounding.relative_dates import heading_date
from cairn.tasks.grounding.units import Unit


class Ledger:
    """The items of one coverage goal and the units that name them, grown as units are read."""

    def __init__(self, goal: CoverageGoal) -> None:
        self.goal = goal
        self.units: list[Unit] = []
        self._naming: dict[str, list[int]] = defaultdict(list)  # item key -> units naming it
        self._names: dict[str, tuple[str, str]] = {}  # item key -> (name as first written, where)
        self._lower: set[str] = set()
        self._capitals: set[str] = set()

    def add(self, units: Iterable[Unit]) -> list[str]:
        """Add units read; the keys of the items they name (new or not), in the order found."""
        touched: dict[str, None] = {}
        for unit in units:
            n = len(self.units)
            self.units.append(unit)
            self._learn_case(unit)
            for name in self._items(n):
                item = key(name)
                self._names.setdefault(item, (name, f"{unit.source}:{unit.line}"))
                self._naming[item].append(n)
                touched[item] = None
        return list(touched)

    @property
    def items(self) -> list[str]:
        """The keys of the items found, in the order found."""
        return list(self._names)

    def name(self, item: str) -> str:
        """The item's name as first written (what its row is called)."""
        return self._names[item][0]

    def row(self, item: str, exhausted: bool = False) -> LedgerRow:
        """The item's row as the units read so far give it. `exhausted`: every source was read, so
        a field no line gives is not given (else it stays open)."""
        name, where = self._names[item]
        cells = [self._cell(item, name, field, exhausted) for field in self.goal.fields]
        return LedgerRow(item=name, source=where, cells=cells)

    def _items(self, n: int) -> list[str]:
        """The items unit `n` names, itself or through the sentences it points back to."""
        found = items_in(self.units[n], self.goal.kind)
        while (
            not found
            and self.units[n].refers_back
            and n > 0
            and self.units[n - 1].paragraph == self.units[n].paragraph
        ):
            n -= 1
            found = items_in(self.units[n], self.goal.kind)
        return found

    def _cell(self, item: str, name: str, field: str, exhausted: bool) -> LedgerCell:
        asked = _about(parse(self.goal.question(field, name)), name)
        known = frozenset(self._capitals - self._lower)
        asks = asked.attribute - asked.names  # what the field asks: the answering line states some of it
        found: list[tuple[Value, Unit]] = []
        for n in dict.fromkeys(self._naming[item]):
            unit = self.units[n]
            if not asks & unit.forms or not asked.attribute <= unit.forms | self._pointed_forms(n):
                continue
            if value := value_in(unit, asked, known):
                found.append((value, unit))
        return _judged(found, exhausted)

    def _pointed_forms(self, n: int) -> frozenset[str]:
        forms: set[str] = set()
        while self.units[n].refers_back and n > 0 and self.units[n - 1].paragraph == self.units[n].paragraph:
            n -= 1
            forms |= self.units[n].forms
        return frozenset(forms)

    def _learn_case(self, unit: Unit) -> None:
        for n, t in enumerate(tokens(unit.said)):
            if t.text.islower():
                self._lower.add(t.text)
            elif n and t.capitalised:
                self._capitals.add(t.lower)


def _about(asked: Asked, name: str) -> Asked:
    """The question with the item's own words as names: the line that answers must name the item."""
    own = frozenset(content_terms(name))
    return replace(asked, names=asked.names | own, terms=asked.terms | own)


def _judged(found: list[tuple[Value, Unit]], exhausted: bool) -> LedgerCell:
    distinct: dict[object, tuple[Value, Unit]] = {}
    for value, unit in found:
        distinct.setdefault(value.key, (value, unit))
    if not distinct:
        return LedgerCell(
            status="not_given" if exhausted else "open", note="no line read gives it" if exhausted else ""
        )
    if len(distinct) == 1:
        value, unit = next(iter(distinct.values()))
        return LedgerCell(value=value.text, quotes=[quoted(unit)], status="quoted")
    dated = sorted(((_dated(u) or date.min, v, u) for v, u in distinct.values()), key=lambda d: d[0])
    latest, older = dated[-1], dated[:-1]
    if latest[0] > older[-1][0]:
        note = "corrects " + ", ".join(f"{v.text} ({u.source}:{u.line})" for _, v, u in older)
        return LedgerCell(value=latest[1].text, quotes=[quoted(latest[2])], status="quoted", note=note)
    given = "; ".join(f"{v.text} ({u.source}:{u.line})" for v, u in distinct.values())
    return LedgerCell(
        status="conflict",
        note=f"the lines read give several values: {given}",
        quotes=[quoted(u) for _, u in distinct.values()],
    )


def _dated(unit: Unit) -> date | None:
    """When a line was written: the date of the heading it stands under, else a full date in it."""
    if day := heading_date(unit.context):
        return day
    full = [d for d in dates(unit.said) if d.year and d.day]
    return max((date(d.year, d.month, d.day) for d in full if d.year and d.day), default=None)


__all__ = ["Ledger"]
