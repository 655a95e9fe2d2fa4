"""The report of a coverage goal: how far the task got, then the ledger as a table, every cell
with where it was read. Written (and committed) after every iteration, so a task stopped at any
point leaves a deliverable that says how far it got.

>>> from cairn.core import Coverage, LedgerCell, LedgerRow, QuotedLine
>>> from cairn.tasks.coverage.goal import CoverageGoal
>>> spec = CoverageGoal(kind="service", fields=["the team that owns it"])
>>> quote = QuotedLine(source="source:c/a.md", line=3, text="...")
>>> row = LedgerRow(item="billing", cells=[LedgerCell(value="Team Finch", status="quoted", quotes=[quote])])
>>> coverage = Coverage(sources=2, read=1, kind="service", fields=spec.fields, items=1, done=1)
>>> text = ledger_report("For every service, the team that owns it.", spec, [row], coverage)
>>> print(text.split("## Sources")[0])
# Report: For every service, the team that owns it.
<BLANKLINE>
## Ledger
<BLANKLINE>
Coverage: 1 of 2 sources read; 1 service items found, 1 with the team that owns it proven or proven absent.
<BLANKLINE>
| service | the team that owns it | source |
|---|---|---|
| billing | Team Finch | source:c/a.md:3 |
<BLANKLINE>
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.core import Coverage, LedgerCell, LedgerRow
from cairn.tasks.coverage.goal import CoverageGoal

NOT_GIVEN = "not given"
NOT_FOUND = "—"


def ledger_report(goal: str, spec: CoverageGoal, rows: Sequence[LedgerRow], coverage: Coverage) -> str:
    """Markdown: the coverage line, the ledger table, and the sources it quotes."""
    head = [f"# Report: {_one_line(goal)}", "", "## Ledger", "", f"Coverage: {coverage.line()}.", ""]
    table = [
        "| " + " | ".join([spec.kind, *spec.fields, "source"]) + " |",
        "|" + "---|" * (len(spec.fields) + 2),
        *(_row(row) for row in rows),
    ]
    cited = list(dict.fromkeys(q.source for row in rows for cell in row.cells for q in cell.quotes))
    notes = [
        f"- {row.item}: {cell.note}"
        for row in rows
        for cell in row.cells
        if cell.note and (cell.status != "unverified" or not cell.value)
    ]
    tail = [
        "",
        *(["## Notes", "", *notes, ""] if notes else []),
        "## Sources",
        "",
        *(f"- {s}" for s in cited),
    ]
    return "\n".join([*head, *table, *tail]) + "\n"


def _row(row: LedgerRow) -> str:
    where = list(dict.fromkeys(f"{q.source}:{q.line}" for cell in row.cells for q in cell.quotes))
    cells = [row.item, *(_cell(cell) for cell in row.cells), "; ".join(where) or row.source]
    return "| " + " | ".join(c.replace("|", "/").replace("\n", " ") for c in cells) + " |"


def _cell(cell: LedgerCell) -> str:
    """A cell as the table shows it: `—` is a value looked for and not found, never proven absent."""
    if cell.status == "quoted":
        return cell.value
    if cell.status == "unverified":
        return f"Unverified: {cell.value}" if cell.value else NOT_FOUND
    if cell.status == "not_given":
        return NOT_GIVEN
    return f"Conflict: {cell.value}" if cell.status == "conflict" else "…"


def _one_line(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["NOT_FOUND", "NOT_GIVEN", "ledger_report"]
