"""The ledger of a coverage goal: one row per item found, each field quoted from where it was read.

Units are added as they are read; each addition names the items it touches, and only those rows
are worked out again, so an iteration's cost follows what it read, not what was read before it.

A unit is about an item when it names it (`cairn.tasks.coverage.items`), when it points back to a
sentence that does (`Its p95 latency budget is ...`), or when the section it stands in names one
item and no other (a service's note: `p95 latency budget: 175 ms.` after `Service note:
calqui.`); a section naming none is about its heading (`## Achtes mirror`) when a value for every
field stands under it, so a handbook's definitions never become a row. A record (a table row, a
CSV row, a JSON object, a front matter) names its item by its first value; a note whose file is
named after an item (`iltor-gate.md` saying `Iltor gate ...`) is about it.

A field of an item is the field's question (`cairn.tasks.coverage.goal`) judged by the verifier
over the item's lines, as any answer is (`cairn.tasks.verify`): proven when a value reaches the
`complete` threshold (`quoted`), else the best value given `unverified`. Two proven values from
two lines: the later dated one wins (a memo of 2 March 2026 correcting a table), noted as a
correction; with no later date, the cell is a conflict. A field stays open until every source was
read; then it is "not given" only when no candidate reaches the `absent` threshold, a claim of
absence proven like an answer.

>>> from cairn.tasks.coverage.goal import coverage_goal
>>> from cairn.tasks.grounding.units import units_of
>>> ledger = Ledger(coverage_goal("For every service, list the team that owns it and its p95 budget."))
>>> text = "The billing service is owned by Team Finch. Its p95 budget is 180 ms."
>>> touched = ledger.add(units_of("source:a.md", text))
>>> [(c.value, c.status) for c in ledger.row(touched[0]).cells]  # offline, the verifier proves neither
[('Team Finch', 'unverified'), ('180 ms', 'unverified')]
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import date

from cairn.core import LedgerCell, LedgerRow
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.items import Subjects, key
from cairn.tasks.grounding.figures import dates
from cairn.tasks.grounding.lemmas import tokens
from cairn.tasks.grounding.proof import quoted
from cairn.tasks.grounding.relative_dates import heading_date
from cairn.tasks.grounding.units import Unit
from cairn.tasks.verify.corpus import Corpus
from cairn.tasks.verify.decision import Scored, scored, shown_value
from cairn.tasks.verify.model import Thresholds
from cairn.tasks.verify.question import read_question

HEADING_WORDS = 4  # a heading that names an item is short
# A heading names an item only where the verifier finds a value of every field at least this
# likely under it: a handbook that defines the fields in prose stays no row.
PLAUSIBLE = 0.9
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
        self._sources: Corpus | None = None

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
        trial = sorted({*self._about.get(item, {}), *numbers, heading})
        if all(self._gives(name, field, trial) for field in self.goal.fields):
            self._names.setdefault(item, (name, f"{self.units[heading].source}:{self.units[heading].line}"))
            self._in_section[section][item] = heading
            for n in numbers:
                self._attach(item, n, heading, touched)

    def _gives(self, name: str, field: str, among: list[int]) -> bool:
        """Whether these units give the field a value the verifier does not rule out (a heading
        above them names an item only then: a handbook's definitions are no row)."""
        found, thresholds = scored(read_question(self.goal.question(field, name)), self._read(), among=among)
        return bool(found) and found[0].probability >= max(thresholds.absent, PLAUSIBLE)

    def _cell(self, item: str, name: str, field: str, exhausted: bool) -> LedgerCell:
        read = self._read()
        among = sorted(
            {n for unit, naming in self._about[item].items() for n in (unit, naming) if n is not None}
        )
        question = read_question(self.goal.question(field, name))
        found, thresholds = scored(question, read, among=among)
        if exhausted and not any(s.probability >= thresholds.absent for s in found):
            unplaced = self._unplaced(item, field, among)
            if unplaced:  # no proof of absence: give the labelled value no other field took
                found, _ = scored(question, read, among=among, said=lambda v, _: _within(v, unplaced))
                inside = [s for s in found if s.given]
                return _judged(inside + [s for s in found if not s.given], thresholds, read, False)
        return _judged(found, thresholds, read, exhausted)

    def _unplaced(self, item: str, field: str, among: list[int]) -> list[str]:
        """The values of the item's `label: value` pairs (a record's, a table row's, `Deletion
        schedule: 210 days`) that are neither the item's name nor the likeliest value of another
        field: while one stands, a field is not proven absent, whatever its label's words."""
        name = self.name(item)
        taken = {key(name)}
        for other in self.goal.fields:
            if other != field:
                found, _ = scored(read_question(self.goal.question(other, name)), self._read(), among=among)
                taken |= {found[0].candidate.key} if found else set()
        values = [value for n in among for value in _pair_values(self.units[n].said)]
        return [v for v in values if not any(t in v or v in t for t in taken)]

    def _read(self) -> Corpus:
        """The units read so far, as the verifier reads them (built again only after new reads)."""
        if self._sources is None or len(self._sources) != len(self.units):
            self._sources = Corpus(self.units)
        return self._sources

    def _learn_case(self, unit: Unit) -> None:
        for n, t in enumerate(tokens(unit.said)):
            if t.text.islower():
                self._lower.add(t.text)
            elif n and t.capitalised:
                self._capitals.add(t.lower)


def _judged(found: list[Scored], thresholds: Thresholds, read: Corpus, exhausted: bool) -> LedgerCell:
    """A cell from the verifier's scores (see the module docstring)."""
    passing = [s for s in found if s.probability >= thresholds.complete]
    best = found[0] if found else None
    if not passing:
        if best is not None and (not exhausted or best.probability >= thresholds.absent):
            shown, corrects = _latest([s for s in found if s.probability >= best.probability / 2], read) or (
                best,
                "",
            )
            unit = read.sentences[shown.candidate.sentence].unit
            score = f"the verifier gives {shown.probability:.2f}; proven takes {thresholds.complete:.2f}"
            note = f"{score}{corrects}"
            return LedgerCell(
                value=shown_value(shown.candidate, read),
                quotes=[quoted(unit)],
                status="unverified",
                note=note,
                score=shown.probability,
            )
        if not exhausted:
            return LedgerCell(status="open")
        near = f"; nearest: {best.candidate.text} ({best.probability:.2f})" if best else ""
        return LedgerCell(status="not_given", note=f"no line read gives it{near}")
    by_line: dict[tuple[str, int], Scored] = {}
    for s in passing:  # one line gives one answer: its best value
        unit = read.sentences[s.candidate.sentence].unit
        by_line.setdefault((unit.source, unit.line), s)
    distinct: dict[str, tuple[Scored, Unit]] = {}
    for s in by_line.values():
        distinct.setdefault(s.candidate.key, (s, read.sentences[s.candidate.sentence].unit))
    if len(distinct) == 1:
        s, unit = next(iter(distinct.values()))
        return LedgerCell(
            value=shown_value(s.candidate, read), quotes=[quoted(unit)], status="quoted", score=s.probability
        )
    dated = sorted(((_dated(u) or date.min, s, u) for s, u in distinct.values()), key=lambda d: d[0])
    latest, older = dated[-1], dated[:-1]
    if latest[0] > older[-1][0]:
        note = "corrects " + ", ".join(f"{s.candidate.text} ({u.source}:{u.line})" for _, s, u in older)
        return LedgerCell(
            value=shown_value(latest[1].candidate, read),
            quotes=[quoted(latest[2])],
            status="quoted",
            note=note,
            score=latest[1].probability,
        )
    given = "; ".join(f"{s.candidate.text} ({u.source}:{u.line})" for s, u in distinct.values())
    quotes = [quoted(u) for _, u in distinct.values()]
    return LedgerCell(status="conflict", note=f"the lines read give several values: {given}", quotes=quotes)


def _latest(found: list[Scored], read: Corpus) -> tuple[Scored, str] | None:
    """Of the likeliest values from different lines, the one a later dated line gives (a memo
    correcting a table), with a note naming what it corrects; None when no line is later."""
    by_line: dict[tuple[str, int], Scored] = {}
    for s in found:
        unit = read.sentences[s.candidate.sentence].unit
        by_line.setdefault((unit.source, unit.line), s)
    dated = sorted(
        ((_dated(read.sentences[s.candidate.sentence].unit) or date.min, s) for s in by_line.values()),
        key=lambda d: d[0],
    )
    if len(dated) < 2 or dated[-1][0] <= dated[-2][0]:
        return None
    older = ", ".join(
        s.candidate.text for _, s in dated[:-1] if s.candidate.key != dated[-1][1].candidate.key
    )
    return dated[-1][1], f"; corrects {older}" if older else ""


def _dated(unit: Unit) -> date | None:
    """When a line was written: the date of the heading it stands under, else a full date in it."""
    if day := heading_date(unit.context):
        return day
    full = [date(d.year, d.month, d.day) for d in dates(unit.said) if d.year and d.day]
    return max(full, default=None)


def _pair_values(said: str) -> list[str]:
    """The values of a line's `label: value` pairs (`; ` between pairs, as a record is read), keyed
    as candidates are (`key`), figures and words alike.

    >>> _pair_values("Name: mirdal; Run by: Team Waxwing; Answer within (ms, 95%): 870")
    ['mirdal', 'team waxwing', '870']
    >>> _pair_values("Tomasz Achebe is the point of contact for astrin.")
    []
    """
    pairs = [part.partition(": ") for part in said.split("; ")]
    return [
        " ".join(value.lower().split()).strip(" .") for _, colon, value in pairs if colon and value.strip()
    ]


def _within(value: str, values: list[str]) -> bool:
    return " ".join(value.lower().split()) in " | ".join(values)


def _join(under: str, heading: str) -> str:
    return f"{under} › {heading}" if under else heading


def _name_like(heading: str) -> bool:
    """A heading that can name an item: a few words, no figure or date (`## Achtes mirror`)."""
    words = heading.split()
    return 0 < len(words) <= HEADING_WORDS and not re.search(r"\d", heading)


__all__ = ["Ledger"]
