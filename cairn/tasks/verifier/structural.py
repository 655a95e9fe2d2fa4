"""The offline judge of meaning, from structure alone: where the shape of a line says what its
value is, a value on it answers a part without any model's say-so.

Four shapes say it (each quote as `cairn.tasks.verifier.exact` gives it, with the heading and, for a
table row, the header it stands under):
- a table's cell: the value fills one cell, and the part's content words are all in the row's
  other cells, the header or the heading, with the value's own column among them and the row
  about the part's subject (a word of the part, or, for a part that points back, `what is its
  budget?`, of the goal it was split from);
- a `Label: value` line: the value follows the label, and the part's content words are all in
  the label, the heading or the value, the label among them and the part's subject beside it
  (`Who leads it?` names none: any `Lead:` line would do);
- a heading that is the value and holds the part's first content word, the kind it asks for,
  over a line that holds the part's other content words (`## Team Falcon` over `Owns the billing
  service.` answers which team owns it, not who leads the team that owns it);
- a heading that names the part's subject (every content word of the heading is one of the
  part's), over a line that holds the value, a name or a figure, and the part's other content
  words (`## Team Falcon` over `The team is led by Priya Nandakumar.` answers who leads Team
  Falcon).
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
>>> turn = QuotedLine(source="s", line=9, text="Caroline: Researching adoption agencies.", context="Day 2")
>>> proves("What did Caroline research?", "Researching adoption agencies", turn)  # a turn, not a field
False
>>> proves("Who leads it?", "Priya Nandakumar", lead)
False
>>> owns = QuotedLine(source="s", line=2, text="Owns the billing service.", context="Team Falcon")
>>> proves("Which team owns the billing service?", "Team Falcon", owns)
True
>>> proves("Which service does Team Falcon own?", "Team Falcon", owns)
False
>>> led = QuotedLine(source="s", line=3, text="The team is led by Priya Nandakumar.", context="Team Falcon")
>>> proves("Who leads Team Falcon?", "Priya Nandakumar", led), proves("Where does it sit?", "Priya", led)
(True, False)
>>> proves("Who leads Team Falcon?", "Lisbon", led.model_copy(update={"text": f"{led.text[:-1]} in Lisbon."}))
False
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cairn.core import QuotedLine
from cairn.tasks.grounding.lemmas import content_terms, forms, ordered_terms
from cairn.tasks.grounding.reads import Read
from cairn.tasks.verifier.exact import HEADER, PATH, every_line, holds, normalised, quoted_in

NEAR = 2  # words between a value in prose and the part's word it answers (`led by`)
_LABEL = re.compile(r"^(?:[-*+]\s+)?(?P<label>[^:|]{1,60}?):\s+(?P<rest>\S.*)$")
# A value in prose is taken whole only as a name or a figure: capitalised words or digits (a
# reader's span that ran on, `Priya Nandakumar and sits`, is neither).
_NAME_OR_FIGURE = re.compile(r"(?:[A-Z\d][\w'’.,%/-]*)(?: (?:[A-Z\d][\w'’.,%/-]*))*")
_COLUMN_UNIT = re.compile(r"\((?P<unit>[^\W\d][\w%/]*)\)")
_FIGURE = re.compile(r"[-+]?\d+(?:[.,]\d+)*")
_SENTENCE_END = re.compile(r"(?<=[^\s.])\.\s+|;\s*")


def proves(part: str, value: str, quote: QuotedLine, goal: str = "") -> bool:
    """Whether the quote's structure states `value` as the answer to `part`, a part of `goal`
    (the module docstring)."""
    asked = content_terms(part)
    if not asked or not value.strip() or content_terms(value) <= asked or not quoted_in(quote, value):
        return False  # a value the part itself says (`Team Falcon` for who leads it) answers nothing
    heading, header = _context(quote)
    if quote.text.startswith("|") and header:
        return _cell(asked, value, quote.text, header, heading, asked | content_terms(goal))
    if (labelled := _LABEL.match(quote.text)) is not None and _labelled(
        part, asked, value, labelled["label"], labelled["rest"], heading
    ):
        return True
    return _headed(part, asked, value, quote.text, heading) or _about(asked, value, quote.text, heading)


def stated(part: str, goal: str, reads: Sequence[Read]) -> tuple[str, QuotedLine] | None:
    """The one value the structure of the lines read states as the answer to `part`, with its
    line; None when none does, or when two different values do.

    >>> slo = "| service | p95 (ms) |\\n|---|---|\\n| billing | 180 |\\n| search | 250 |"
    >>> stated("What is the p95 of billing?", "", [Read("source:slo.md", slo)])[0]
    '180 ms'
    """
    found: dict[str, tuple[str, QuotedLine]] = {}
    for quote in every_line(reads):
        for value in _values(quote):
            key = normalised(value)
            if key and key not in found and proves(part, value, quote, goal):
                found[key] = (value, quote)
                if len(found) > 1:
                    return None
    return next(iter(found.values()), None)


def unstated(part: str, reads: Sequence[Read]) -> bool:
    """Whether the structure of what was read says it does not state `part`: a heading or a table
    row's first cell names the part's subject (all its words are the part's), so the files are
    about it, yet no section (the lines under one heading, with the headings and header they stand
    under) holds every content word of the part. Prose without headings never says so (a
    paraphrase holds other words).

    >>> teams = [Read("source:t.md", "# Teams\\n## Team Osprey\\nTeam Osprey owns notifications.")]
    >>> unstated("Who leads Team Osprey?", teams), unstated("What does Team Osprey own?", teams)
    (True, False)
    >>> unstated("Who leads Osprey?", [Read("source:p.md", "Osprey owns notifications.")])
    False
    """
    return unstated_in(part, list(every_line(reads)))


def unstated_in(part: str, lines: Sequence[QuotedLine]) -> bool:
    """`unstated` over the lines read."""
    asked = content_terms(part)
    lines = [q for q in lines if q.text]
    if not asked or not any(_names_subject(q, asked) for q in lines):
        return False
    return not in_a_section(part, lines)


def in_a_section(part: str, lines: Sequence[QuotedLine]) -> bool:
    """Whether the lines under one heading (with the headings and header they stand under) hold
    every content word of `part` between them."""
    sections: dict[tuple[str, str], set[str]] = {}
    for q in lines:
        key = (q.source, q.context.partition(HEADER)[0])
        sections.setdefault(key, set()).update(forms(f"{q.context} {q.text}"))
    asked = content_terms(part)
    return any(asked <= held for held in sections.values())


def _names_subject(quote: QuotedLine, asked: set[str]) -> bool:
    heading, header = _context(quote)
    first = _cells(quote.text)[0] if quote.text.startswith("|") and header else ""
    return any((named := content_terms(text)) and named <= asked for text in (heading, first))


def _values(quote: QuotedLine) -> list[str]:
    """What a line offers as a value: a table row's cells, a labelled line's value (to the end of
    its sentence), the heading it stands under."""
    heading, header = _context(quote)
    found = [heading] if heading else []
    if quote.text.startswith("|") and header:
        names = _cells(header)
        cells = [(cell, names[n] if n < len(names) else "") for n, cell in enumerate(_cells(quote.text))]
        return found + [_measured(cell, column) for cell, column in cells if cell]
    if (labelled := _LABEL.match(quote.text)) is not None:
        found.append(_SENTENCE_END.split(labelled["rest"], maxsplit=1)[0].strip().rstrip("."))
    if heading:  # under a heading that may name its subject: the line's names and figures
        found += [m.group().rstrip(".,") for m in _NAME_OR_FIGURE.finditer(quote.text)]
    return found


def _measured(cell: str, column: str) -> str:
    """A bare figure with the unit its column names (`400` under `budget (ms)`: `400 ms`)."""
    unit = _COLUMN_UNIT.search(column)
    return f"{cell} {unit['unit']}" if unit and _FIGURE.fullmatch(cell) else cell


def _cell(asked: set[str], value: str, row: str, header: str, heading: str, subject: set[str]) -> bool:
    cells, names = _cells(row), _cells(header)
    holding = [n for n, cell in enumerate(cells) if holds(cell, value, names[n] if n < len(names) else "")]
    if len(cells) != len(names) or len(holding) != 1:
        return False
    column = names[holding[0]]
    others = [cell for n, cell in enumerate(cells) if n != holding[0]]
    covered = forms(" ".join([*others, *names, heading, value]))
    return asked <= covered and bool(asked & forms(column)) and bool(subject & forms(" ".join(others)))


def _labelled(part: str, asked: set[str], value: str, label: str, rest: str, heading: str) -> bool:
    if holds(label, value) or not holds(rest, value):
        return False
    named = forms(label)
    # The label and the heading say what is asked; the value may add only what kind of thing it
    # is (`Owner: Team Falcon`). A transcript's `Caroline: Researching adoption agencies ...`
    # answers "What did Caroline research?" with words of the question: a turn, not a field.
    kind = next(iter(ordered_terms(part)), "")
    unsaid = asked - forms(f"{label} {heading}")
    return unsaid <= ({kind} & forms(value)) and bool(asked & named) and bool(asked - named)


def _headed(part: str, asked: set[str], value: str, line: str, heading: str) -> bool:
    named = forms(heading)  # the value is the heading, and says what kind of thing it is (`Team ...`)
    kind = next(iter(ordered_terms(part)), "")  # what the part asks for comes first: `Which team ...`
    return normalised(heading) == normalised(value) and kind in named and asked <= forms(line) | named


def _about(asked: set[str], value: str, line: str, heading: str) -> bool:
    subject = content_terms(heading)
    return (
        bool(subject)
        and subject <= asked
        and _NAME_OR_FIGURE.fullmatch(value.strip()) is not None
        and holds(line, value)
        and asked <= forms(line) | forms(heading)
        and _beside(value, asked - subject, line)
    )


def _beside(value: str, wanted: set[str], line: str) -> bool:
    """The value stands within `NEAR` words of one of the part's own words on the line (`led by
    Priya Nandakumar`, not `led by Priya Nandakumar and sits in the Lisbon office` for Lisbon)."""
    words = line.split()
    size = len(value.split())
    at = [n for n in range(len(words) - size + 1) if holds(" ".join(words[n : n + size]), value)]
    near = [n for n, word in enumerate(words) if forms(word) & wanted]
    return not wanted or any(_between(n, size, m) <= NEAR for n in at for m in near)


def _between(start: int, size: int, other: int) -> int:
    """How many words stand between a value (`size` words from `start`) and the word at `other`."""
    return start - other - 1 if other < start else other - start - size


def _context(quote: QuotedLine) -> tuple[str, str]:
    """The heading a quote stands under (the nearest of a path `Teams › Team Osprey`) and, for a
    table row, its table's header."""
    heading, _, header = quote.context.partition(HEADER)
    return heading.rsplit(PATH, 1)[-1].strip(), header


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


__all__ = ["in_a_section", "proves", "stated", "unstated", "unstated_in"]
