"""The ledger of a coverage goal: one row per item found, each field quoted from where it was read.

Units are added as they are read; each addition names the items it touches, and only those rows
are worked out again, so an iteration's cost follows what it read, not what was read before it.

A unit is about an item when it names it (`cairn.tasks.coverage.items`), when it points back to a
sentence that does (`Its p95 latency budget is ...`), or when the section it stands in names one
item and no other (a service's note: `p95 latency budget: 175 ms.` after `Service note:
calqui.`); a section naming none is about its heading (`## Achtes mirror`) when it states every
field under it, so a handbook's definitions never become a row. A field of an item is the value
its units give to the field's question (`cairn.tasks.coverage.goal`), by the quote check's own
rules (`answer_values.value_in`: of the kind asked, never one of the question's words), quoted
with the line that makes the unit about the item. Two units giving two values: the later dated
one wins (a memo of 2 March 2026 correcting a table), noted as a correction; with no later date,
the cell is a conflict. A field no line gives stays open until every source was read, then reads
"not given".

>>> from cairn.tasks.coverage.goal import coverage_goal
>>> from cairn.tasks.grounding.units import units_of
>>> ledger = Ledger(coverage_goal("For every service, list the team that owns it and its p95 budget."))
>>> text = "The billing service is owned by Team Finch. Its p95 budget is 180 ms."
>>> touched = ledger.add(units_of("source:a.md", text))
>>> [(c.value, c.status) for c in ledger.row(touched[0]).cells]
[('Team Finch', 'quoted'), ('180 ms', 'quoted')]
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from datetime import date

from cairn.core import LedgerCell, LedgerRow
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.items import Subjects, key
from cairn.tasks.grounding.answer_values import Value, value_in
from cairn.tasks.grounding.asked import Asked, parse
from cairn.tasks.grounding.figures import dates
from cairn.tasks.grounding.lemmas import content_terms, tokens
from cairn.tasks.grounding.proof import quoted
from cairn.tasks.grounding.relative_dates import heading_date
from cairn.tasks.grounding.units import Unit

HEADING_WORDS = 4  # a heading that names an item is short
Section = tuple[str, str]  # (source, the headings a unit stands under)


class Ledger:
    """The items of one coverage goal and the units about them, grown as units are read."""

    def __init__(self, goal: CoverageGoal) -> None:
        self.goal = goal
        self.units: list[Unit] = []
        self._subjects = Subjects(goal)
        self._about: dict[str, dict[int, int | None]] = defaultdict(dict)  # item -> unit -> naming unit
        self._names: dict[str, tuple[str, str]] = {}  # item -> (name as first written, where)
        self._in_section: dict[Section, dict[str, int]] = defaultdict(dict)  # section -> item -> unit
        self._headings: dict[Section, int] = {}  # section -> its heading unit
        self._lower: set[str] = set()
        self._capitals: set[str] = set()

    def add(self, units: Iterable[Unit]) -> list[str]:
        """Add units read; the keys of the items they are about (new or not), in the order found."""
        touched: dict[str, None] = {}
        waiting: dict[Section, list[int]] = defaultdict(list)
        for unit in units:
            n = len(self.units)
            self.units.append(unit)
            self._learn_case(unit)
            if unit.heading:
                self._headings[(unit.source, _join(unit.under, unit.text))] = n
                continue
            about = self._named(n)
            if about:
                for item, naming in about:
                    self._attach(item, n, naming, touched)
            else:
                waiting[(unit.source, unit.under)].append(n)
        for section, numbers in waiting.items():
            self._attach_section(section, numbers, touched)
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

    def _named(self, n: int) -> list[tuple[str, int | None]]:
        """The items unit `n` names, itself or through the sentences it points back to, each with
        the unit that names it (None: itself)."""
        unit, at = self.units[n], n
        while True:
            found = self._subjects.named(self.units[at])
            if found:
                for name in found:
                    self._names.setdefault(
                        key(name), (name, f"{self.units[at].source}:{self.units[at].line}")
                    )
                    self._in_section[(unit.source, unit.under)].setdefault(key(name), at)
                return [(key(name), None if at == n else at) for name in found]
            here = self.units[at]
            if not (here.refers_back and at > 0 and self.units[at - 1].paragraph == here.paragraph):
                return []
            at -= 1

    def _attach(self, item: str, n: int, naming: int | None, touched: dict[str, None]) -> None:
        self._about[item][n] = naming
        touched[item] = None

    def _attach_section(self, section: Section, numbers: list[int], touched: dict[str, None]) -> None:
        """Units that name no item: about the one item their section names, else about the heading
        they stand under when the section states every field of it."""
        named = self._in_section.get(section, {})
        if len(named) == 1:
            item, naming = next(iter(named.items()))
            for n in numbers:
                self._attach(item, n, naming, touched)
            return
        heading = self._headings.get(section)
        if named or heading is None or not _name_like(self.units[heading].text):
            return
        name = self.units[heading].text.strip()
        item = key(name)
        trial = {**self._about.get(item, {}), **{n: heading for n in numbers}}
        if all(self._found(item, name, field, trial) for field in self.goal.fields):
            self._names.setdefault(item, (name, f"{self.units[heading].source}:{self.units[heading].line}"))
            self._in_section[section][item] = heading
            for n in numbers:
                self._attach(item, n, heading, touched)

    def _cell(self, item: str, name: str, field: str, exhausted: bool) -> LedgerCell:
        return _judged(self._found(item, name, field, self._about[item]), exhausted)

    def _found(
        self, item: str, name: str, field: str, about: dict[int, int | None]
    ) -> list[tuple[Value, list[Unit]]]:
        """The values the units about an item give to one of its fields, each with its quotes."""
        asked = _asked(parse(self.goal.question(field, name)), name)
        known = frozenset(self._capitals - self._lower)
        asks = asked.attribute - asked.names  # what the field asks: the answering line states some of it
        own = (
            asked.names
        )  # the item's own words: stated by the line, or by the one that makes it about the item
        found: list[tuple[Value, list[Unit]]] = []
        for n, naming in about.items():
            unit = self.units[n]
            if not asks & unit.forms or not asked.attribute <= unit.forms | self._pointed_forms(n) | own:
                continue
            if value := value_in(unit, asked, known):
                found.append((value, [unit] if naming is None else [unit, self.units[naming]]))
        return found

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


def _asked(asked: Asked, name: str) -> Asked:
    """The question with the item's own words as names: the line that answers must be about the item."""
    own = frozenset(content_terms(name))
    return replace(asked, names=asked.names | own, terms=asked.terms | own)


def _judged(found: list[tuple[Value, list[Unit]]], exhausted: bool) -> LedgerCell:
    distinct: dict[object, tuple[Value, list[Unit]]] = {}
    for value, units in found:
        distinct.setdefault(value.key, (value, units))
    if not distinct:
        note = "no line read gives it" if exhausted else ""
        return LedgerCell(status="not_given" if exhausted else "open", note=note)
    if len(distinct) == 1:
        value, units = next(iter(distinct.values()))
        return LedgerCell(value=value.text, quotes=[quoted(u) for u in units], status="quoted")
    dated = sorted(((_dated(u[0]) or date.min, v, u) for v, u in distinct.values()), key=lambda d: d[0])
    latest, older = dated[-1], dated[:-1]
    if latest[0] > older[-1][0]:
        note = "corrects " + ", ".join(f"{v.text} ({u[0].source}:{u[0].line})" for _, v, u in older)
        return LedgerCell(
            value=latest[1].text, quotes=[quoted(u) for u in latest[2]], status="quoted", note=note
        )
    given = "; ".join(f"{v.text} ({u[0].source}:{u[0].line})" for v, u in distinct.values())
    quotes = [quoted(u[0]) for _, u in distinct.values()]
    return LedgerCell(status="conflict", note=f"the lines read give several values: {given}", quotes=quotes)


def _dated(unit: Unit) -> date | None:
    """When a line was written: the date of the heading it stands under, else a full date in it."""
    if day := heading_date(unit.context):
        return day
    full = [date(d.year, d.month, d.day) for d in dates(unit.said) if d.year and d.day]
    return max(full, default=None)


def _join(under: str, heading: str) -> str:
    return f"{under} › {heading}" if under else heading


def _name_like(heading: str) -> bool:
    """A heading that can name an item: a few words, no figure or date (`## Achtes mirror`)."""
    words = heading.split()
    return 0 < len(words) <= HEADING_WORDS and not re.search(r"\d", heading)


__all__ = ["Ledger"]
