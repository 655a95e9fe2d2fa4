"""A ledger row read by a served model: the model reads the item's lines and names each field's
value; Cairn takes a value only where a line of the item holds it, and the `Verifier` seam judges
it as it judges any answer's part.

The model sees every line read about the item, in reading order, each with where it stands and the
day it was written when the lines say, so it can tell which of two values a later note set (the
offline reader cannot: `cairn.tasks.coverage.ledger` gives both, as a conflict). What it answers
changes a cell only through exact checks: a value on no line of the item, or not of its column's
kind (a sentence where the column holds figures in ms), leaves the offline cell as it was; a value
a line holds is `quoted` when the verifier proves it, else `unverified` with its line; where
Cairn's reader proved another value, the cell gives both as a conflict.

>>> from cairn.core import LedgerCell, LedgerRow
>>> from cairn.tasks.coverage.goal import coverage_goal
>>> from cairn.tasks.grounding.units import units_of
>>> from cairn.tasks.verifier import CairnJudge
>>> goal = coverage_goal("For every service, list the team that owns it and its p95 budget.")
>>> units = units_of("source:a.md", "Kalo is run by Team Finch.\\n\\n2026-03-02: kalo moves to Team Wren.")
>>> row = LedgerRow(item="kalo", cells=[LedgerCell(value="Team Finch; Team Wren", status="conflict"),
...                                     LedgerCell(status="open")])
>>> read = read_row(goal, row, units, ["Team Wren", "180 ms"], [None, None], CairnJudge(), exhausted=False)
>>> [(c.value, c.status) for c in read.cells]
[('Team Wren', 'unverified'), ('', 'open')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from cairn.core import LedgerCell, LedgerRow, PartCheck, QuotedLine
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.ledger import Column, Shape, column_kind, dated, shape
from cairn.tasks.grounding.proof import quoted
from cairn.tasks.grounding.units import Unit
from cairn.tasks.messages.schemas import LedgerInput
from cairn.tasks.verifier import PartToVerify, Verifier, VerifyRequest
from cairn.tasks.verifier.exact import MAX_QUOTES, holds, normalised
from cairn.tasks.verifier.seam import verified

_FIGURE = re.compile(r"[-+]?\d[\d,.]*\s*[^\W\d]*%?")  # `970 ms`, `1.28 s`, `80 weeks`, `99.9%`


def row_input(goal: CoverageGoal, name: str, units: Sequence[Unit]) -> LedgerInput:
    """What the model is asked of one item (see the module docstring)."""
    lines = []
    for unit in units:
        day = dated(unit)
        when = f" ({day.isoformat()})" if day else ""
        lines.append(f"{unit.source}:{unit.line}{when}: {unit.shown}")
    return LedgerInput(item=name, questions=[goal.question(f, name) for f in goal.fields], lines=lines)


def read_row(
    goal: CoverageGoal,
    row: LedgerRow,
    units: Sequence[Unit],
    answers: Sequence[str],
    columns: Sequence[Column | None],
    verifier: Verifier,
    exhausted: bool,
    by: str = "the model",
) -> LedgerRow:
    """The offline row with the model's values taken where a line of the item holds them and
    they are of their column's kind (None: not known yet), each judged through `verifier` (one
    request for the row, one part per field). `by`: whose values they are, as the notes say."""
    values = _taken(answers, columns)
    held = [_holding(v, units) if v else [] for v in values]
    asked = [n for n, quotes in enumerate(held) if quotes]
    if not asked:
        return row
    parts = [_part(goal.question(goal.fields[n], row.item), values[n], held[n], row.cells[n]) for n in asked]
    request = VerifyRequest(goal=row.item, answer="", parts=parts, every_source_read=exhausted)
    checks = dict(zip(asked, verified(request, verifier), strict=True))
    cells = [
        _cell(row.cells[n], checks[n], by) if n in checks else row.cells[n] for n in range(len(row.cells))
    ]
    return row.model_copy(update={"cells": cells})


def judged_offline(
    goal: CoverageGoal, row: LedgerRow, units: Sequence[Unit], verifier: Verifier, exhausted: bool
) -> LedgerRow:
    """An offline row's values judged through a user's verifier, as a served model's are: a
    ledger is decided by the verifier the task was given, whoever read it."""
    values = [c.value if c.status in ("quoted", "unverified") else "" for c in row.cells]
    return read_row(goal, row, units, values, [None] * len(values), verifier, exhausted, by="Cairn's reader")


def gives_every_field(
    answers: Sequence[str], units: Sequence[Unit], columns: Sequence[Column | None]
) -> bool:
    """Whether the model's answers give every field a value one of these lines holds, of its
    column's kind: a heading's section is then about the item it names (a handbook's definitions,
    `Maintainer: the team paged first`, give none: before its column is typed, a value must be a
    name or a figure). A section holding a table of several rows is a register under its title,
    whose rows name their own items (`# Support rota` over its weeks)."""
    if sum(u.text.lstrip().startswith("|") for u in units) > 1:
        return False
    values = _taken(answers, columns)
    # Before a column is typed, only a value a spreadsheet would type (a name, a figure) makes a row.
    untyped = [v for v, k in zip(values, columns, strict=True) if k is None]
    return (
        all(values)
        and all(_holding(v, units) for v in values)
        and all(typed(v)[0] != "words" for v in untyped)
    )


def columns_of(answers: Iterable[Sequence[str]], fields: int) -> list[Column | None]:
    """Each field's column kind as the model's own values type it (`column_kind`): the offline
    reader's likeliest values, wrong on paraphrases, would type a column of names as words. A
    figure fits a column of figures in any unit (`0.15 seconds` among budgets in ms)."""
    rows = list(answers)
    values = [[_value(a[n]) for a in rows if n < len(a) and _value(a[n])] for n in range(fields)]
    return [column_kind([typed(v) for v in column]) for column in values]


def typed(value: str) -> Shape:
    """A cell's type as a spreadsheet reads a whole cell: a figure when the cell is a figure with at
    most a unit after it, a name when most of its words are capitalised, else words (a glossary's
    `The team paged first when something breaks` is no name; `the time within which 95 of every
    100 requests finish` no figure).

    >>> typed("0.15 seconds"), typed("Xiomara Quispe"), typed("The team paged first when it breaks")
    (('figure', 's'), ('name', None), ('words', None))
    """
    if _FIGURE.fullmatch(value.strip()):
        return shape(value)
    words = value.split()
    capitalised = sum(w[:1].isupper() for w in words)
    return ("name", None) if words and 2 * capitalised >= len(words) else ("words", None)


def _taken(answers: Sequence[str], columns: Sequence[Column | None]) -> list[str]:
    """The model's value for each field, "" where it gave none or one not of its column's kind."""
    values = [_value(answers[n]) if n < len(answers) else "" for n in range(len(columns))]
    return [v if k is None or typed(v)[0] == k[0] else "" for v, k in zip(values, columns, strict=True)]


def _holding(value: str, units: Sequence[Unit]) -> list[QuotedLine]:
    """The item's lines that hold the value, as written or as compared (a table row's cell
    under its column: `p95 latency budget (ms): 240` holds `240 ms`)."""
    found = [quoted(u) for u in units if holds(u.text, value, u.context) or holds(u.said, value, u.context)]
    return found[:MAX_QUOTES]


def _value(answer: str) -> str:
    """The model's value as it wrote it, less the full stop a sentence ends with (a reply that
    says there is none is on no line of the item, so the exact check leaves it out)."""
    return answer.strip().removesuffix(".").strip()


def _part(question: str, value: str, quotes: list[QuotedLine], cell: LedgerCell) -> PartToVerify:
    """One field as the verifier is asked it: Cairn's own word is its reader's proof of this very
    value, where it proved it."""
    proven = cell.status == "quoted" and normalised(cell.value) == normalised(value)
    own = PartCheck(
        part=question,
        answered=proven,
        value=value,
        quotes=cell.quotes if proven else [],
        score=cell.score,
        judge="cairn" if proven else "",
    )
    return PartToVerify(part=question, value=value, quotes=quotes, cairn=own)


def _cell(cell: LedgerCell, check: PartCheck, by: str) -> LedgerCell:
    """The cell the value makes, as the verifier judged it."""
    quotes = check.quotes[:2]
    if check.answered:
        return LedgerCell(value=check.value, quotes=quotes, status="quoted", note=f"judged by {check.judge}")
    same = normalised(cell.value) == normalised(check.value)
    if cell.status == "quoted" and not same:  # Cairn's reader proved another value: both, neither chosen
        note = f"the model reads {check.value}; Cairn's reader proves {cell.value}"
        return LedgerCell(value=f"{check.value}; {cell.value}", quotes=[*quotes, *cell.quotes][:3],
                          status="conflict", note=note)  # fmt: skip
    was = ""
    if cell.status == "conflict":
        was = f"; of {cell.value}, the model judges {check.value} current"
    elif cell.value and not same:
        was = f"; Cairn's reader gives {cell.value}"
    note = f"{by}'s value, on the line quoted; {check.why or 'not proven'}{was}"
    return LedgerCell(value=check.value, quotes=quotes, status="unverified", note=note, score=check.score)


__all__ = ["columns_of", "gives_every_field", "judged_offline", "read_row", "row_input"]
