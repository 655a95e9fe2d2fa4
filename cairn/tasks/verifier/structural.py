"""The offline judge of meaning, from structure alone: where the shape of a line says what its
value is, a value on it answers a part without any model's say-so.

Three shapes say it (each quote as `cairn.tasks.verifier.exact` gives it, with the heading and, for a
table row, the header it stands under):
- a table's cell: the value fills one cell, and the part's content words are all in the row's
  other cells, the header or the heading, with the value's own column among them and the row
  about the part's subject (a word of the part, or, for a part that points back, `what is its
  budget?`, of the goal it was split from);
- a `Label: value` line: the value follows the label, and the part's content words are all in
  the label, the heading or the value, the label among them and the part's subject beside it
  (`Who leads it?` names none: any `Lead:` line would do);
- a heading that is the value, over a line that holds the part's other content words (`## Team
  Falcon` over `Owns the billing service.` answers which team owns it).
Other prose proves nothing here: whether a sentence states a value as the answer is a judgement of
meaning, a served model's to make (`cairn.tasks.verifier`). Words are compared as lemmas.

>>> row = QuotedLine(source="s", line=7, text="| billing | 180 | 99.95% |",
...                  context="SLOs ‖ | service | p95 latency budget (ms) | availability |")
>>> proves("What is the billing service's p95 latency budget?", "180 ms", row)
True
>>> proves("What is the billing service's p99 latency budget?", "180 ms", row)
False
>>> lead = QuotedLine(source="s", line=3, text="Lead: Priya Nandakumar", context="Team Falcon")
>>> proves("Who leads Team Falcon?", "Priya Nandakumar", lead), proves("Who leads Osprey?", "Priya", lead)
(True, False)
>>> proves("Who leads it?", "Priya Nandakumar", lead)
False
>>> owns = QuotedLine(source="s", line=2, text="Owns the billing service.", context="Team Falcon")
>>> proves("Which team owns the billing service?", "Team Falcon", owns)
True
"""

from __future__ import annotations

import re

from cairn.core import QuotedLine
from cairn.tasks.grounding.lemmas import content_terms, forms
from cairn.tasks.verifier.exact import HEADER, holds, normalised, quoted_in

_LABEL = re.compile(r"^(?:[-*+]\s+)?(?P<label>[^:|]{1,60}?):\s+(?P<rest>\S.*)$")


def proves(part: str, value: str, quote: QuotedLine, goal: str = "") -> bool:
    """Whether the quote's structure states `value` as the answer to `part`, a part of `goal`
    (the module docstring)."""
    asked = content_terms(part)
    if not asked or not value.strip() or not quoted_in(quote, value):
        return False
    heading, _, header = quote.context.partition(HEADER)
    if quote.text.startswith("|") and header:
        return _cell(asked, value, quote.text, header, heading, asked | content_terms(goal))
    if (labelled := _LABEL.match(quote.text)) is not None and _labelled(
        asked, value, labelled["label"], labelled["rest"], heading
    ):
        return True
    return _headed(asked, value, quote.text, heading)


def _cell(asked: set[str], value: str, row: str, header: str, heading: str, subject: set[str]) -> bool:
    cells, names = _cells(row), _cells(header)
    holding = [n for n, cell in enumerate(cells) if holds(cell, value, names[n] if n < len(names) else "")]
    if len(cells) != len(names) or len(holding) != 1:
        return False
    column = names[holding[0]]
    others = [cell for n, cell in enumerate(cells) if n != holding[0]]
    covered = forms(" ".join([*others, *names, heading, value]))
    return asked <= covered and bool(asked & forms(column)) and bool(subject & forms(" ".join(others)))


def _labelled(asked: set[str], value: str, label: str, rest: str, heading: str) -> bool:
    if holds(label, value) or not holds(rest, value):
        return False
    named = forms(label)
    return asked <= forms(f"{label} {heading} {value}") and bool(asked & named) and bool(asked - named)


def _headed(asked: set[str], value: str, line: str, heading: str) -> bool:
    return normalised(heading) == normalised(value) and asked <= forms(f"{line} {value}")


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


__all__ = ["proves"]
