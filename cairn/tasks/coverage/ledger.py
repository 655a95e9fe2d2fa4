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
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from datetime import date

from cairn.core import LedgerCell, LedgerRow
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.items import Subjects, key
from cairn.tasks.grounding.figures import dates, figures
from cairn.tasks.grounding.lemmas import tokens
from cairn.tasks.grounding.proof import quoted
from cairn.tasks.grounding.relative_dates import heading_date
from cairn.tasks.grounding.units import Unit
from cairn.tasks.verify.corpus import Corpus
from cairn.tasks.verify.decision import Said, Scored, scored, shown_value
from cairn.tasks.verify.model import Thresholds
from cairn.tasks.verify.question import read_question

HEADING_WORDS = 4  # a heading that names an item is short
# A heading names an item only where the verifier finds a value of every field at least this
# likely under it: a handbook that defines the fields in prose stays no row.
PLAUSIBLE = 0.9
# An unproven value is given at this probability or above, else the cell gives none: on the
# paraphrased ledgers (`bench/agent_suites/long.py`, N = 250, seed 0, 16 goals) every value the
# reader gave at 0.1 or above was right (210), 4 of 537 at 0.05, 1,777 of 5,394 at 0.0005.
GIVEN = 0.1
Section = tuple[str, str]  # (source, the headings a unit stands under)
# A served model's reading of a heading's section (`cairn.tasks.coverage.served`): whether its lines
# give every field of the item the heading names a value.
SectionReader = Callable[[str, list[Unit]], bool]
FieldScores = tuple[list[Scored], Thresholds]  # one field's candidates for a row, and the thresholds


class Ledger:
    """The items of one coverage goal and the units about them, grown as units are read."""

    def __init__(self, goal: CoverageGoal) -> None:
        self.goal = goal
        self.section_reader: SectionReader | None = None  # asked where the fitted reader finds no row
        self.units: list[Unit] = []
        self._subjects = Subjects(goal)
        self._about: dict[str, dict[int, int | None]] = defaultdict(dict)  # item -> unit -> naming unit
        self._names: dict[str, tuple[str, str]] = {}  # item -> (name as first written, where)
        self._in_section: dict[Section, dict[str, int]] = defaultdict(dict)  # section -> item -> unit
        self._headings: dict[Section, int] = {}  # section -> its heading unit
        self._lower: set[str] = set()
        self._capitals: set[str] = set()
        self._sources: Corpus | None = None
        self._shapes: dict[str, dict[str, Shape]] = defaultdict(dict)  # field -> item -> its value's shape
        self._first: dict[str, set[str]] = defaultdict(set)  # a name's first word -> the items so named
        self._mentions: dict[str, list[int]] = defaultdict(list)  # a word -> the units that write it
        self._homeless: dict[Section, list[int]] = defaultdict(list)  # units about no item, yet
        self._columns: dict[str, Column | None] = {}  # field -> its column kind, while no shape changes

    def add(self, units: Iterable[Unit]) -> list[str]:
        """Add units read; the keys of the items they are about (new or not), in the order found."""
        touched: dict[str, None] = {}
        waiting: dict[Section, list[int]] = defaultdict(list)
        for unit in units:
            n = len(self.units)
            self.units.append(unit)
            self._learn_case(unit)
            for word in set(_words(unit.said)):
                self._mentions[word].append(n)
            if unit.heading:
                self._headings[(unit.source, _join(unit.under, unit.text))] = n
                continue
            about = self._named(n)
            mentioned = [] if about else self._mentioned(n)
            for item, naming in about:
                self._attach(item, n, naming, touched)
            for item in mentioned:
                self._mention(item, n, touched)
            if not about and not mentioned:
                waiting[(unit.source, unit.under)].append(n)
        for section, numbers in waiting.items():
            self._attach_section(section, numbers, touched)
        self._look_back(touched)
        return list(touched)

    def _mentioned(self, n: int) -> list[str]:
        """The known items whose whole name unit `n` writes (`of zutur is 1320 ms`), a longer known
        name masking a shorter one inside it (`x v2` is not `x`)."""
        words = _words(self.units[n].said)
        found, at = [], 0
        while at < len(words):
            names = [
                k for k in self._first.get(words[at], ()) if words[at : at + len(k.split())] == k.split()
            ]
            longest = max(names, key=len, default=None)
            if longest is not None and longest not in found:
                found.append(longest)
            at += len(longest.split()) if longest else 1
        return found

    def _look_back(self, touched: dict[str, None]) -> None:
        """Items first named now, attached to the lines read before that already wrote their name
        (a memo read before the register that names its item)."""
        for item in self._names:
            first = item.split()[0]
            if item in self._first[first]:
                continue
            self._first[first].add(item)
            for n in dict.fromkeys(self._mentions.get(first, [])):
                fresh = n not in self._about[item] and not self.units[n].heading
                if fresh and item in self._mentioned(n):
                    self._mention(item, n, touched)

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
        among = self._among(item)
        read = self._read()
        questions = {f: read_question(self.goal.question(f, name)) for f in self.goal.fields}
        found = {f: scored(q, read, among=among) for f, q in questions.items()}
        cells = [self._cell(item, field, found, exhausted, among) for field in self.goal.fields]
        return LedgerRow(item=name, source=where, cells=cells)

    def lines(self, item: str) -> list[Unit]:
        """The units about the item (and those naming it for them), in reading order."""
        return [self.units[n] for n in self._among(item)]

    def _among(self, item: str) -> list[int]:
        about = self._about[item].items()
        return sorted({n for unit, naming in about for n in (unit, naming) if n is not None})

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
        they stand under when the section states every field of it (as the fitted reader finds, or
        a served model reads it: `section_reader`)."""
        named = self._in_section.get(section, {})
        if len(named) == 1:
            item, naming = next(iter(named.items()))
            for n in numbers:
                self._attach(item, n, naming, touched)
            return
        heading = self._headings.get(section)
        if named or heading is None or not _name_like(self.units[heading].text):
            self._homeless[section] += numbers
            return
        name = self.units[heading].text.strip()
        item = key(name)
        trial = sorted({*self._about.get(item, {}), *numbers, heading})
        if all(self._gives(name, field, trial) for field in self.goal.fields) or (
            self.section_reader is not None and self.section_reader(name, [self.units[n] for n in trial])
        ):
            self._names.setdefault(item, (name, f"{self.units[heading].source}:{self.units[heading].line}"))
            self._in_section[section][item] = heading
            for n in numbers:
                self._attach(item, n, heading, touched)
        else:
            self._homeless[section] += numbers

    def _mention(self, item: str, n: int, touched: dict[str, None]) -> None:
        """Unit `n` writes the item's name: it is about the item, and so are the lines of its section
        that name nothing, once the section names that item alone (`Each record is kept for 182
        days.` after `Ines Okafor is the point of contact for lobelpri.`)."""
        self._attach(item, n, None, touched)
        section = (self.units[n].source, self.units[n].under)
        self._in_section[section].setdefault(item, n)
        if len(self._in_section[section]) == 1:
            for other in self._homeless.pop(section, []):
                self._attach(item, other, n, touched)

    def _gives(self, name: str, field: str, among: list[int]) -> bool:
        """Whether these units give the field a value the verifier does not rule out (a heading
        above them names an item only then: a handbook's definitions are no row)."""
        found, thresholds = scored(read_question(self.goal.question(field, name)), self._read(), among=among)
        return bool(found) and found[0].probability >= max(thresholds.absent, PLAUSIBLE)

    def _cell(
        self, item: str, field: str, every: dict[str, FieldScores], exhausted: bool, among: list[int]
    ) -> LedgerCell:
        read = self._read()
        found, thresholds = _own_values(field, every), every[field][1]
        own = [s for s in found if not _names_field(s, field, read)]
        if own:  # the column's kind is read from each item's likeliest value
            self._set_shape(field, item, shape(shown_value(own[0].candidate, read)))
        # Absence is a claim: not while a candidate is near, nor while a labelled value of the item
        # that no other field took stands (`Answer within (ms, 95%): 870`), whatever its label's words.
        absent = exhausted and not any(s.probability >= thresholds.absent for s in every[field][0])
        absent = absent and not self._unplaced(item, field, every, among)
        absent = absent and not self._measured(field, among)
        if not any(s.probability >= thresholds.complete for s in found) and (
            both := self._changed(item, field, among)
        ):
            return both
        return _judged(self._fit(field, found, read), thresholds, read, exhausted, absent)

    def _set_shape(self, field: str, item: str, found: Shape) -> None:
        if self._shapes[field].get(item) != found:
            self._shapes[field][item] = found
            self._columns.pop(field, None)

    def _column(self, field: str) -> Column | None:
        """The field's column kind (`column_kind`), worked out again only after a shape changed:
        every cell asks it, and a ledger of 1,000 rows would count 1,000 shapes for each."""
        if field not in self._columns:
            self._columns[field] = column_kind(list(self._shapes[field].values()))
        return self._columns[field]

    def _measured(self, field: str, among: list[int]) -> bool:
        """Whether the field may be a figure (its column holds figures, or is too mixed to say) and
        the item's lines hold a figure with a unit (`Each record is kept for 182 days`): then the
        field is not proven absent, whatever the reader makes of the sentence."""
        kind = self._column(field)
        if kind is not None and kind[0] != "figure":
            return False
        return any(f.unit is not None for n in among for f in figures(self.units[n].said))

    def _changed(self, item: str, field: str, among: list[int]) -> LedgerCell | None:
        """Both values, where the item's latest dated lines (a memo of 2 March) give the field
        another value than its earlier lines do (a register): see `_both`."""
        days = {n: dated(self.units[n]) or date.min for n in among}
        latest = max(days.values(), default=date.min)
        late, early = [n for n in among if days[n] == latest], [n for n in among if days[n] < latest]
        if latest == date.min or not early:
            return None
        read, question = self._read(), read_question(self.goal.question(field, self.name(item)))
        # Every candidate of these few lines is scored, not the ranker's best four: a memo's own
        # words ("the 95th-percentile response-time target of ...") outrank its figure.
        every: Said = lambda value, line: True  # noqa: E731
        newer, older = (
            self._fit(field, scored(question, read, among=g, said=every)[0], read) for g in (late, early)
        )
        if not older:
            return None
        # A memo may write the old value beside the new one ("1320 ms, not the 1410 ms ..."): the
        # later lines' likeliest value that the earlier lines' does not equal.
        changed = next((s for s in newer if not _same(s.candidate.text, older[0].candidate.text)), None)
        if changed is None or min(changed.probability, older[0].probability) < GIVEN:
            return None  # both values are given, unproven: each as likely as any value a cell gives
        return _both(changed, older[0], read)

    def _fit(self, field: str, found: list[Scored], read: Corpus) -> list[Scored]:
        """The candidates that can be the field's value: not a label or the field's own name, and of
        the shape most of the column's values have (`column_kind`)."""
        kind = self._column(field)
        return [
            s
            for s in found
            if not _names_field(s, field, read)
            and (kind is None or fits(shape(shown_value(s.candidate, read)), kind))
        ]

    def _unplaced(self, item: str, field: str, every: dict[str, FieldScores], among: list[int]) -> list[str]:
        """The values of the item's `label: value` pairs (a record's, a table row's, `Deletion
        schedule: 210 days`) that are neither the item's name nor the likeliest value of another
        field: while one stands, a field is not proven absent, whatever its label's words."""
        taken = {key(self.name(item))}
        for other, (found, _) in every.items():
            if other != field:
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


def _own_values(field: str, every: dict[str, FieldScores]) -> list[Scored]:
    """The field's candidates less those another field of the row finds likelier its own: one
    value on a line answers one field (`260` of `ms at 95th percentile: 260` is the budget's,
    though the owner's question finds it too).

    >>> from types import SimpleNamespace as S
    >>> c = lambda text, p: S(candidate=S(key=text), probability=p)
    >>> owner, budget = [c("260", 0.002), c("Team Curlew", 0.001)], [c("260", 0.003)]
    >>> every = {"owner": (owner, None), "budget": (budget, None)}
    >>> [s.candidate.key for s in _own_values("owner", every)]
    ['Team Curlew']
    """
    rivals: dict[str, float] = {}
    for other, (found, _) in every.items():
        if other != field:
            for s in found:
                rivals[s.candidate.key] = max(rivals.get(s.candidate.key, 0.0), s.probability)
    return [s for s in every[field][0] if s.probability >= rivals.get(s.candidate.key, 0.0)]


def _judged(
    found: list[Scored], thresholds: Thresholds, read: Corpus, exhausted: bool, absent: bool
) -> LedgerCell:
    """A cell from the verifier's scores (see the module docstring): an unproven value only at
    `GIVEN` or above; under it, no value (`—`), or `not given` where absence is proven."""
    passing = [s for s in found if s.probability >= thresholds.complete]
    best = found[0] if found else None
    if not passing:
        if best is not None and best.probability >= GIVEN:
            unit = read.sentences[best.candidate.sentence].unit
            note = f"the verifier gives {best.probability:.2f}; proven takes {thresholds.complete:.2f}"
            return LedgerCell(
                value=shown_value(best.candidate, read),
                quotes=[quoted(unit)],
                status="unverified",
                note=note,
                score=best.probability,
            )
        if not exhausted:
            return LedgerCell(status="open")
        near = f"; nearest: {best.candidate.text} ({best.probability:.3f})" if best else ""
        if absent:
            return LedgerCell(status="not_given", note=f"no line read gives it{near}")
        why = f"no value of its kind the reader finds likely (it gives one at {GIVEN}){near}"
        return LedgerCell(status="unverified", note=why, score=best.probability if best else None)
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
    by_day = sorted(((dated(u) or date.min, s, u) for s, u in distinct.values()), key=lambda d: d[0])
    latest, older = by_day[-1], by_day[:-1]
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
    values = "; ".join(shown_value(s.candidate, read) for s, _ in distinct.values())
    note = f"the lines read give several values: {given}"
    return LedgerCell(value=values, status="conflict", note=note, quotes=quotes)


def _same(a: str, b: str) -> bool:
    """One value, written alike or as the same figure (`1410` and `1410 ms`).

    >>> _same("1410", "1410 ms"), _same("Team Wren", "team wren"), _same("1320 ms", "1410 ms")
    (True, True, False)
    """
    numbers = [{f.value for f in figures(v)} for v in (a, b)]
    if numbers[0] and numbers[1]:
        return numbers[0] == numbers[1]
    return key(a) == key(b)


def _both(later: Scored, best: Scored, read: Corpus) -> LedgerCell:
    """Two values for one field, the later line's and the likeliest other: offline nothing judges
    whether the later one changes the other, so the cell gives both, with their lines, unproven."""
    units = [read.sentences[s.candidate.sentence].unit for s in (later, best)]
    values = [shown_value(s.candidate, read) for s in (later, best)]
    day = dated(units[0])
    where = [f"{u.source}:{u.line}" for u in units]
    given = f"{values[0]} ({where[0]}, {day}) and {values[1]} ({where[1]})"
    return LedgerCell(
        value="; ".join(values),
        quotes=[quoted(u) for u in units],
        status="conflict",
        note=f"the lines read give two values: {given}; which is current is not proven",
        score=best.probability,
    )


def dated(unit: Unit) -> date | None:
    """When a line was written: the date of the heading it stands under, else a full date in it."""
    if day := heading_date(unit.context):
        return day
    full = [date(d.year, d.month, d.day) for d in dates(unit.said) if d.year and d.day]
    return max(full, default=None)


Shape = tuple[str, str | None]  # ("figure", its unit), ("name", None) or ("words", None)
Column = tuple[str, frozenset[str | None]]  # a column's kind, and the units its figures are written in
COLUMN_SHARE = 0.6  # a column has a kind when this share of its items' likeliest values have it
COLUMN_MIN = 8  # items before a column's kind is read from them
UNIT_SHARE = 0.1  # a unit the column's figures are written in, at least this share of them


def shape(value: str) -> Shape:
    """What a value is, as a spreadsheet types a column: a figure (with its unit), a name
    (capitalised), or words.

    >>> shape("0.93 seconds"), shape("95 of every 100"), shape("Team Wren"), shape("front of the cluster")
    (('figure', 's'), ('figure', None), ('name', None), ('words', None))
    """
    found = figures(value)
    if found:
        return ("figure", found[0].unit)
    return ("name", None) if value[:1].isupper() else ("words", None)


def column_kind(shapes: list[Shape]) -> Column | None:
    """The kind most of a column's values share, with the units its figures are written in; None
    while the column is too short or mixed to say.

    >>> column_kind([("figure", "ms")] * 8 + [("words", None)])
    ('figure', frozenset({'ms'}))
    >>> column_kind([("name", None)] * 4 + [("words", None)] * 4) is None
    True
    """
    if len(shapes) < COLUMN_MIN:
        return None
    kinds = Counter(k for k, _ in shapes)
    kind, count = kinds.most_common(1)[0]
    if count < COLUMN_SHARE * len(shapes):
        return None
    units = Counter(u for k, u in shapes if k == kind)
    return kind, frozenset(u for u, n in units.items() if n >= UNIT_SHARE * count)


def fits(value: Shape, kind: Column) -> bool:
    """Whether a value's shape is the column's kind (a figure in one of its units)."""
    return value[0] == kind[0] and (value[0] != "figure" or value[1] in kind[1])


def _names_field(s: Scored, field: str, read: Corpus) -> bool:
    """A candidate that names the field, not its value: a label (`Responsible team:` before its
    value), or a figure of the field's own words (`95` of `p95 latency budget`)."""
    sentence = read.sentences[s.candidate.sentence]
    end = sentence.words[s.candidate.span[1] - 1].end
    if sentence.unit.said[end:].lstrip().startswith(":"):
        return True
    numbers = {f.value for f in figures(s.candidate.text)}
    own = {float(n) for n in re.findall(r"\d+", field)}
    return bool(numbers & own)


def _words(text: str) -> list[str]:
    """A line's words as item names are keyed (`key`): `Ledger-Sync,` is `ledger`, `sync`."""
    return re.findall(r"[^\W_]+", text.lower())


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


def _join(under: str, heading: str) -> str:
    return f"{under} › {heading}" if under else heading


def _name_like(heading: str) -> bool:
    """A heading that can name an item: a few words, no figure or date (`## Achtes mirror`)."""
    words = heading.split()
    return 0 < len(words) <= HEADING_WORDS and not re.search(r"\d", heading)


__all__ = ["Column", "Ledger", "Shape", "column_kind", "dated", "shape"]
