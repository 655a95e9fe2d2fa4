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
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:  # the generator imports `item_key` from here, to keep its names apart
    from long_suites.corpus import TruthRow

Verdict = Literal["right", "unknown_item", "duplicate", "wrong_owner", "wrong_budget", "wrong_both"]
NOT_GIVEN = frozenset({"not given", "not stated", "none given", "n/a"})
_HEADING = re.compile(r"^(#{1,6})\s*(.*?)\s*#*\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^:?-{2,}:?$")
_MARKUP = re.compile(r"[*`]+")
# A citation left in a cell ("180 ms [source: a.md:4]", "Team Finch (a.md)") is not part of its value.
_CITATION = re.compile(r"\[[^\]]*\]|\(?[\w:./-]+\.(?:md|csv|json|txt)(?::\d+)?\)?", re.I)
_PERCENTILE = re.compile(r"\bp\d{2,3}\b", re.I)  # "p95" is the field's name, never its value
_FIGURE = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s)?\b", re.I)


class LedgerRow(BaseModel):
    """One delivered row, its cells as written."""

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
    precision: float | None  # None: nothing was delivered
    recall: float
    wrong_reasons: dict[str, int]
    distractors: dict[str, bool]  # each distractor kind: were all its rows right?
    examples: list[str]  # a few wrong rows, for the reader


def parse_ledger(report: str) -> list[LedgerRow]:
    """The rows of the first table under a `Ledger` heading; none when there is no such table.

    >>> text = "# Summary\\n\\n## Ledger\\n\\n| service | team | budget | source |\\n|---|---|---|---|\\n"
    >>> parse_ledger(text + "| ledger sync | Team Finch | 180 ms | a.md |\\n")
    [LedgerRow(item='ledger sync', owner='Team Finch', budget='180 ms', source='a.md')]
    >>> parse_ledger("The ledger sync service is owned by Team Finch.")
    []
    """
    lines = _table_lines(_under_ledger(report.splitlines()))
    rows = [_cells(line) for line in lines]
    if len(rows) > 1 and all(_SEPARATOR.match(cell.replace(" ", "")) for cell in rows[1] if cell):
        rows = rows[2:]  # header and separator
    else:
        rows = rows[1:]  # a table without a separator still has its header first
    return [_row(cells) for cells in rows if any(cells)]


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


def _row(cells: list[str]) -> LedgerRow:
    padded = [*cells, "", "", ""]
    return LedgerRow(item=padded[0], owner=padded[1], budget=padded[2], source=" | ".join(cells[3:]))


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
    text = _plain(cell).strip(" .")
    if truth_ms is None:
        return text in NOT_GIVEN
    figures = _figures_ms(text)
    # A cell that gives two different budgets ("180 ms, was 200 ms") states neither.
    return len(figures) == 1 and abs(figures.pop() - truth_ms) < 0.5


def _plain(cell: str) -> str:
    """A cell's text without markup or citations, in lower case, its spaces collapsed."""
    return " ".join(_MARKUP.sub("", _CITATION.sub(" ", cell)).lower().split())


def _figures_ms(text: str) -> set[float]:
    found: set[float] = set()
    for number, unit in _FIGURE.findall(_PERCENTILE.sub(" ", text)):
        value = float(number.replace(",", ""))
        found.add(value * 1000 if unit and unit.startswith("s") else value)
    return found


def score(rows: Iterable[LedgerRow], truth: list[TruthRow]) -> Score:
    """Rows right, wrong and missing, precision and recall, and how each distractor fared.

    >>> from long_suites.corpus import TruthRow
    >>> truth = [TruthRow(service="ledger sync", owner="Team Finch", budget_ms=180)]
    >>> score([LedgerRow(item="Ledger Sync", owner="Finch", budget="180 ms")], truth).right
    1
    """
    by_key = {item_key(row.service): row for row in truth}
    verdicts = list(_verdicts(rows, by_key))
    right_keys = {item_key(row.item) for row, verdict in verdicts if verdict == "right"}
    named = {item_key(row.item) for row, _ in verdicts} & set(by_key)
    wrong = [(row, verdict) for row, verdict in verdicts if verdict != "right"]
    delivered = len(verdicts)
    return Score(
        truth=len(truth),
        delivered=delivered,
        right=len(right_keys),
        wrong=len(wrong),
        missing=len(set(by_key) - named),
        precision=round(len(right_keys) / delivered, 4) if delivered else None,
        recall=round(len(right_keys) / len(truth), 4) if truth else 0.0,
        wrong_reasons=dict(Counter(verdict for _, verdict in wrong)),
        distractors=_distractors(truth, right_keys),
        examples=[f"{verdict}: {row.item} | {row.owner} | {row.budget}" for row, verdict in wrong[:5]],
    )


def _verdicts(rows: Iterable[LedgerRow], by_key: dict[str, TruthRow]) -> Iterable[tuple[LedgerRow, Verdict]]:
    seen: set[str] = set()
    for row in rows:
        key = item_key(row.item)
        if key not in by_key:
            yield row, "unknown_item"
            continue
        if key in seen:
            yield row, "duplicate"
            continue
        seen.add(key)
        truth = by_key[key]
        owner_ok = owner_key(row.owner) == owner_key(truth.owner)
        budget_ok = budget_matches(row.budget, truth.budget_ms)
        yield row, _field_verdict(owner_ok, budget_ok)


def _field_verdict(owner_ok: bool, budget_ok: bool) -> Verdict:
    if owner_ok and budget_ok:
        return "right"
    if owner_ok:
        return "wrong_budget"
    return "wrong_owner" if budget_ok else "wrong_both"


def _distractors(truth: list[TruthRow], right_keys: set[str]) -> dict[str, bool]:
    kinds = sorted({row.kind for row in truth} - {"plain"})
    return {
        kind: all(item_key(row.service) in right_keys for row in truth if row.kind == kind) for kind in kinds
    }
