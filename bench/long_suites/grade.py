"""The delivered ledger, read and scored against the corpus's truth.

Cairn's report carries its answer as a Markdown table under a `## Ledger` heading: one row per
item, the item first, then one column per field the goal asks for (here the owning team and the
p95 latency budget), then where it was read. Only that table is read: a report without one
delivered nothing, whatever its prose says, because a bench that guessed rows out of prose would
be grading its own guesses.

A delivered row is right when its item is in the truth (names compared loosely: case, spacing,
hyphens, a leading "the", a trailing "service") and both fields match (owners without "Team",
budgets as numbers of milliseconds, "not given" for a budget no file gives). Anything else is
wrong: an unknown item, a wrong field, a second row for an item already delivered.

Two fields in general (`Fields`): a *name* field (a service's owning team, a dataset's steward),
compared as owners are, and a *figure* field (the p95 latency budget, a retention period),
compared as a number in its `Unit`. A cell is proven (its value as written), `Unverified: X`
(a value Cairn could not prove: X is still compared with the truth, but the row counts apart,
neither right nor wrong), or open (`…`: not read yet, no claim). A proven `not given` where the
truth has a value is a false not given: a wrong row, and counted. `right`, `wrong`, `precision`
and `recall` speak of proven rows only, as they did before any cell could be unverified.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:  # the generator imports `item_key` from here, to keep its names apart
    from long_suites.corpus import TruthRow

# "right", "unknown_item", "duplicate", "wrong_both", and "wrong_<label>" for one wrong field
# ("wrong_owner", "wrong_budget" for services); "unverified" and "open" rows are neither.
Verdict = str
CellState = Literal["proven", "unverified", "conflict", "open"]
NOT_GIVEN = frozenset({"not given", "not stated", "none given", "n/a"})
OPEN = frozenset({"…", "...", "—"})  # not read yet, or looked for and not found: no claim
_UNVERIFIED = re.compile(r"^\s*unverified\s*[:\-–—]\s*", re.I)
_CONFLICT = re.compile(r"^\s*conflict\s*:\s*", re.I)  # `Conflict: 1320 ms; 1410 ms`: one of them, unproven
_PERCENT = re.compile(r"\d+(?:\.\d+)?\s*%")  # "95% of requests": a share, never the figure
_HEADING = re.compile(r"^(#{1,6})\s*(.*?)\s*#*\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^:?-{2,}:?$")
_MARKUP = re.compile(r"[*`]+")
# A citation left in a cell ("180 ms [source: a.md:4]", "Team Finch (a.md)") is not part of its value.
_CITATION = re.compile(r"\[[^\]]*\]|\(?[\w:./-]+\.(?:md|csv|json|txt)(?::\d+)?\)?", re.I)
_PERCENTILE = re.compile(r"\bp\d{2,3}\b", re.I)  # "p95" is the field's name, never its value


class Unit(BaseModel):
    """A figure field's unit: the words a cell may write it in, each with its size in the base
    unit (`ms` for a budget: `s` is 1000). A bare number is in the base unit; a number in another
    unit of time (`91 hours` for days) is a figure that matches nothing."""

    model_config = ConfigDict(frozen=True)

    name: str
    words: dict[str, float]

    def figures(self, text: str) -> set[float]:
        """Every figure a text gives, in the base unit (ordinals such as "95th" are no figure).

        >>> sorted(MS.figures("0.2 s, or 180 ms at p95 for 95% of calls"))
        [180.0, 200.0]
        >>> DAYS.figures("91 hours")
        {nan}
        """
        found: set[float] = set()
        foreign = [w for w in _OTHER_UNITS if w not in self.words]
        pattern = _figure_pattern(tuple(self.words), tuple(foreign))
        for number, word in pattern.findall(_PERCENT.sub(" ", _PERCENTILE.sub(" ", text))):
            size = self.words.get(word.lower(), math.nan) if word else 1.0
            found.add(float(number.replace(",", "")) * size)
        return found


# Units of time a figure may be given in that are not the field's own: such a figure is no match.
_OTHER_UNITS = ("µs", "us", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute")
_OTHER_UNITS += ("minutes", "h", "hr", "hrs", "hour", "hours", "day", "days", "week", "weeks")
_OTHER_UNITS += ("month", "months", "year", "years")


@lru_cache(maxsize=16)
def _figure_pattern(words: tuple[str, ...], foreign: tuple[str, ...] = ()) -> re.Pattern[str]:
    """A number, then maybe one of the unit's words or another unit's (the longest first: `ms`
    before `s`)."""
    alternatives = "|".join(re.escape(w) for w in sorted((*words, *foreign), key=len, reverse=True))
    return re.compile(rf"(\d[\d,]*(?:\.\d+)?)\s*({alternatives})?\b", re.I)


MS = Unit(
    name="ms",
    words={"ms": 1, "millisecond": 1, "milliseconds": 1, "s": 1000, "sec": 1000, "secs": 1000}
    | {"second": 1000, "seconds": 1000},
)
DAYS = Unit(name="days", words={"d": 1, "day": 1, "days": 1, "week": 7, "weeks": 7, "wk": 7, "wks": 7})


class Fields(BaseModel):
    """What a kind's ledger asks of each item: a name field and a figure field, how a ledger's
    header names each (a regex on the header cell, to find the columns whatever their order),
    and the labels of their wrong verdicts."""

    model_config = ConfigDict(frozen=True)

    name_label: str = "owner"
    figure_label: str = "budget"
    name_header: str = r"\bown|\bteam\b|\bwho\b"
    figure_header: str = r"p95|latency|budget|millisecond|\bms\b"
    unit: Unit = MS


SERVICE_FIELDS = Fields()


class Truth(BaseModel):
    """One item's truth in general: its name field's value, its figure (None: no file gives it)
    in the figure field's base unit, and what sort of trap it is (`plain` for none)."""

    model_config = ConfigDict(frozen=True)

    item: str
    name: str
    figure: int | None
    kind: str = "plain"


class LedgerRow(BaseModel):
    """One delivered row, its cells as written: `owner` is the name field's cell (a dataset's
    steward too), `budget` the figure field's."""

    model_config = ConfigDict(frozen=True)

    item: str
    owner: str = ""
    budget: str = ""
    source: str = ""


class Score(BaseModel):
    """How the delivered rows compare with the truth."""

    truth: int
    delivered: int
    right: int
    wrong: int
    missing: int  # truth rows no delivered row names
    precision: float | None  # right of proven rows (right + wrong); None: no proven row
    recall: float
    wrong_reasons: dict[str, int]
    distractors: dict[str, bool]  # each distractor kind: were all its rows right?
    examples: list[str]  # a few wrong rows, for the reader
    unverified: int = 0  # rows with an `Unverified:` cell and no wrong proven cell
    unverified_right: int = 0  # of those, rows whose unverified values are right
    false_not_given: int = 0  # proven `not given` cells whose truth has a value
    open: int = 0  # rows with an open cell (`…`) and no wrong proven or unverified cell


def parse_ledger(report: str, fields: Fields | None = None) -> list[LedgerRow]:
    """The rows of the first table under a `Ledger` heading; none when there is no such table.
    Without `fields` the columns are taken in order (item, owner, budget, source...); with them,
    the header finds the two fields' columns, so a goal that asks for the budget first is read
    right.

    >>> text = "# Summary\\n\\n## Ledger\\n\\n| service | team | budget | source |\\n|---|---|---|---|\\n"
    >>> parse_ledger(text + "| ledger sync | Team Finch | 180 ms | a.md |\\n")
    [LedgerRow(item='ledger sync', owner='Team Finch', budget='180 ms', source='a.md')]
    >>> parse_ledger("The ledger sync service is owned by Team Finch.")
    []
    >>> swapped = "## Ledger\\n| service | its p95 budget | the owning team |\\n"
    >>> parse_ledger(swapped + "| kalo | 40 ms | Team Rook |\\n", SERVICE_FIELDS)
    [LedgerRow(item='kalo', owner='Team Rook', budget='40 ms', source='')]
    """
    lines = _table_lines(_under_ledger(report.splitlines()))
    rows = [_cells(line) for line in lines]
    if not rows:
        return []
    header = rows[0]
    if len(rows) > 1 and all(_SEPARATOR.match(cell.replace(" ", "")) for cell in rows[1] if cell):
        rows = rows[2:]  # header and separator
    else:
        rows = rows[1:]  # a table without a separator still has its header first
    order = _columns(header, fields) if fields else (1, 2)
    return [_row(cells, order) for cells in rows if any(cells)]


def _columns(header: list[str], fields: Fields) -> tuple[int, int]:
    """The name field's column and the figure field's, found by their header cells; in order
    (1, 2) when the header does not tell them apart."""
    cells = [(n, cell.lower()) for n, cell in enumerate(header) if n]
    figure = next((n for n, cell in cells if re.search(fields.figure_header, cell)), None)
    name = next((n for n, cell in cells if n != figure and re.search(fields.name_header, cell)), None)
    if figure is None or name is None:
        return (1, 2)
    return (name, figure)


def _under_ledger(lines: list[str]) -> list[str]:
    """The lines after the first `Ledger` heading, up to the next heading of its level or above."""
    for start, line in enumerate(lines):
        found = _HEADING.match(line.strip())
        if found and found.group(2).strip().lower() == "ledger":
            level = len(found.group(1))
            body = lines[start + 1 :]
            for end, rest in enumerate(body):
                other = _HEADING.match(rest.strip())
                if other and len(other.group(1)) <= level:
                    return body[:end]
            return body
    return []


def _table_lines(lines: list[str]) -> list[str]:
    """The first run of lines that begin with a pipe (the first table)."""
    table: list[str] = []
    for line in lines:
        if line.strip().startswith("|"):
            table.append(line.strip())
        elif table:
            break
    return table


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


def _row(cells: list[str], order: tuple[int, int] = (1, 2)) -> LedgerRow:
    name, figure = order
    padded = [*cells, *[""] * (max(order) + 1)]
    rest = [cell for n, cell in enumerate(cells) if n not in (0, name, figure)]
    return LedgerRow(item=padded[0], owner=padded[name], budget=padded[figure], source=" | ".join(rest))


def item_key(name: str) -> str:
    """An item's name as compared: no markup or case, hyphens as spaces, no "the" or "service".

    >>> item_key("The **Ledger-Sync** service")
    'ledger sync'
    >>> item_key("billing-api") == item_key("billing")
    False
    """
    text = _plain(name).replace("-", " ").replace("_", " ")
    text = " ".join(text.split()).removeprefix("the ")
    return text.removesuffix(" service").strip()


def owner_key(owner: str) -> str:
    """A team as compared: "Team Finch", "team finch" and "Finch" are one team.

    >>> owner_key("**Team Finch**") == owner_key("finch")
    True
    """
    return _plain(owner).removeprefix("team ").strip(" .")


def budget_matches(cell: str, truth_ms: int | None) -> bool:
    """Whether a budget cell states the true budget: one figure in ms (or s), or "not given".

    >>> budget_matches("180 ms", 180), budget_matches("0.18 s", 180), budget_matches("180", 180)
    (True, True, True)
    >>> budget_matches("not given", None), budget_matches("180 ms", None), budget_matches("p95", 95)
    (True, False, False)
    >>> budget_matches("180 ms [source: corpus/a.md:4]", 180)
    True
    """
    return figure_matches(cell, truth_ms, MS)


def figure_matches(cell: str, truth: int | None, unit: Unit) -> bool:
    """Whether a figure cell states the true figure: one figure in `unit`, or "not given".

    >>> figure_matches("13 weeks", 91, DAYS), figure_matches("91", 91, DAYS)
    (True, True)
    >>> figure_matches("90 days, was 60", 90, DAYS)
    False
    """
    text = _plain(cell).strip(" .")
    if truth is None:
        return text in NOT_GIVEN
    figures = unit.figures(text)
    # A cell that gives two different figures ("180 ms, was 200 ms") states neither.
    return len(figures) == 1 and abs(figures.pop() - truth) < 0.5


def cell_state(cell: str) -> tuple[CellState, str]:
    """How a cell is meant, and its value: `Unverified: X` is X unproven, `…` is open.

    >>> cell_state("Unverified: Team Finch"), cell_state("**unverified** - 40 ms")
    (('unverified', 'Team Finch'), ('unverified', '40 ms'))
    >>> cell_state("…"), cell_state("not given"), cell_state("Conflict: 1320 ms; 1410 ms")
    (('open', '…'), ('proven', 'not given'), ('conflict', '1320 ms; 1410 ms'))
    """
    text = _MARKUP.sub("", cell).strip()
    if found := _UNVERIFIED.match(text):
        return "unverified", text[found.end() :].strip()
    if found := _CONFLICT.match(text):
        return "conflict", text[found.end() :].strip()
    if text in OPEN:
        return "open", text
    return "proven", cell


def _plain(cell: str) -> str:
    """A cell's text without markup or citations, in lower case, its spaces collapsed."""
    return " ".join(_MARKUP.sub("", _CITATION.sub(" ", cell)).lower().split())


def score(
    rows: Iterable[LedgerRow], truth: Sequence[TruthRow | Truth], fields: Fields = SERVICE_FIELDS
) -> Score:
    """Rows right, wrong and missing, precision and recall, the unverified rows and the false
    not givens, and how each distractor fared.

    >>> from long_suites.corpus import TruthRow
    >>> truth = [TruthRow(service="ledger sync", owner="Team Finch", budget_ms=180)]
    >>> score([LedgerRow(item="Ledger Sync", owner="Finch", budget="180 ms")], truth).right
    1
    >>> s = score([LedgerRow(item="ledger sync", owner="Finch", budget="Unverified: 180 ms")], truth)
    >>> (s.right, s.wrong, s.unverified, s.unverified_right)
    (0, 0, 1, 1)
    """
    by_key = {item_key(row.item): row for row in map(as_truth, truth)}
    judged = list(_judged(rows, by_key, fields))
    right_keys = {item_key(j.row.item) for j in judged if j.verdict == "right"}
    named = {item_key(j.row.item) for j in judged} & set(by_key)
    wrong = [j for j in judged if j.verdict not in ("right", "unverified", "open")]
    unverified = [j for j in judged if j.verdict == "unverified"]
    proven = len(right_keys) + len(wrong)
    return Score(
        truth=len(by_key),
        delivered=len(judged),
        right=len(right_keys),
        wrong=len(wrong),
        missing=len(set(by_key) - named),
        precision=round(len(right_keys) / proven, 4) if proven else None,
        recall=round(len(right_keys) / len(by_key), 4) if by_key else 0.0,
        wrong_reasons=dict(Counter(j.verdict for j in wrong)),
        distractors=_distractors(list(by_key.values()), right_keys),
        examples=[f"{j.verdict}: {j.row.item} | {j.row.owner} | {j.row.budget}" for j in wrong[:5]],
        unverified=len(unverified),
        unverified_right=sum(j.values_right for j in unverified),
        false_not_given=sum(j.false_not_given for j in judged),
        open=sum(j.verdict == "open" for j in judged),
    )


def as_truth(row: TruthRow | Truth) -> Truth:
    """The service corpus's truth row in general terms (a `Truth` as it is)."""
    if isinstance(row, Truth):
        return row
    return Truth(item=row.service, name=row.owner, figure=row.budget_ms, kind=row.kind)


class _Judged(BaseModel):
    row: LedgerRow
    verdict: Verdict
    values_right: bool = False  # an unverified row: every value it gives matches the truth
    false_not_given: int = 0


def _judged(rows: Iterable[LedgerRow], by_key: dict[str, Truth], fields: Fields) -> Iterable[_Judged]:
    seen: set[str] = set()
    for row in rows:
        key = item_key(row.item)
        states = [cell_state(row.owner), cell_state(row.budget)]
        claims = any(state == "proven" for state, _ in states)
        if key not in by_key or key in seen:
            # A row of an item that is not there (or told twice) is wrong when it claims anything.
            verdict = "unknown_item" if key not in by_key else "duplicate"
            given = any(state in ("unverified", "conflict") for state, _ in states)
            unclaimed = "unverified" if given else "open"
            yield _Judged(row=row, verdict=verdict if claims else unclaimed)
            continue
        seen.add(key)
        yield _cells_verdict(row, states, by_key[key], fields)


def _cells_verdict(
    row: LedgerRow, states: list[tuple[CellState, str]], truth: Truth, fields: Fields
) -> _Judged:
    (name_state, name), (figure_state, figure) = states
    # A conflict cell gives several values, unproven: right when the truth is one of them.
    names = name.split("; ") if name_state == "conflict" else [name]
    name_ok = any(owner_key(n) == owner_key(truth.name) for n in names)
    given = figure.split("; ") if figure_state == "conflict" else [figure]
    figure_ok = any(figure_matches(f, truth.figure, fields.unit) for f in given)
    false_not_given = int(
        name_state == "proven" and _plain(name).strip(" .") in NOT_GIVEN and not name_ok
    ) + int(figure_state == "proven" and _plain(figure).strip(" .") in NOT_GIVEN and not figure_ok)
    name_wrong = name_state == "proven" and not name_ok
    figure_wrong = figure_state == "proven" and not figure_ok
    if name_wrong or figure_wrong:
        verdict = _field_verdict(not name_wrong, not figure_wrong, fields)
        return _Judged(row=row, verdict=verdict, false_not_given=false_not_given)
    if {"unverified", "conflict"} & {name_state, figure_state}:
        cells = zip(states, (name_ok, figure_ok), strict=True)
        right = all(ok for (state, _), ok in cells if state != "open")
        return _Judged(row=row, verdict="unverified", values_right=right)
    return _Judged(row=row, verdict="open" if "open" in (name_state, figure_state) else "right")


def _field_verdict(owner_ok: bool, budget_ok: bool, fields: Fields = SERVICE_FIELDS) -> Verdict:
    if owner_ok and budget_ok:
        return "right"
    if owner_ok:
        return f"wrong_{fields.figure_label}"
    return f"wrong_{fields.name_label}" if budget_ok else "wrong_both"


def _distractors(truth: list[Truth], right_keys: set[str]) -> dict[str, bool]:
    kinds = sorted({row.kind for row in truth} - {"plain"})
    return {
        kind: all(item_key(row.item) in right_keys for row in truth if row.kind == kind) for kind in kinds
    }
