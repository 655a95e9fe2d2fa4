"""Relative days resolved against the date a line is dated by: Cairn's own arithmetic on dates.

A dated note, log or transcript says "I went to the support group yesterday" under a heading of
8 May 2023. Asked "when?", a small model answered the heading's date; the right answer is the day
before it. Cairn writes the date each relative expression means beside it, once, where the
model and the claim checks read the line, so "7 May 2023" is stated where the line speaks of the
support group (a date Cairn worked out from a supported one, as it does with sums).

>>> resolved("[1:56 pm on 8 May, 2023] Caroline: I went to a support group yesterday.")
'[1:56 pm on 8 May, 2023] Caroline: I went to a support group yesterday (7 May 2023).'
>>> print(dated_text("## Session 2 — 25 May, 2023\\nMel: We ran last Sunday; I painted last year."))
## Session 2 — 25 May, 2023
Mel: We ran last Sunday (the Sunday before 25 May 2023, 21 May 2023); I painted last year (2022).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from cairn.tasks.grounding import figures
from cairn.tasks.grounding.lexicon import NUMBER_WORDS, WEEKDAY_ABBREVIATIONS

# How many `a`, `an` or a number word up to six counts (`two weeks ago`).
_COUNT = {"a": 1, "an": 1} | {word: n for n, word in enumerate(NUMBER_WORDS[:6], start=1)}
# Days away from the day a line is dated by.
_SHIFT = {"yesterday": -1, "last night": -1, "today": 0, "tonight": 0, "tomorrow": 1}
_WEEKDAY = rf"(?P<wd>{'|'.join(WEEKDAY_ABBREVIATIONS)})[a-z]*\.?"
_RELATIVE = re.compile(
    rf"\b(?:(?P<before>the day before yesterday)|(?P<shift>{'|'.join(_SHIFT)})"
    rf"|last (?P<unit>week|weekend|month|year)|(?P<this>this|next) (?P<tunit>month|year)|last {_WEEKDAY}"
    rf"|(?P<n>\d+|{'|'.join(_COUNT)}) (?P<ago>day|week|month|year)s? ago)\b(?! \()",
    re.I,
)


def resolved(line: str, anchor: date | None = None) -> str:
    """`line` with the date each relative expression means written after it, counted from the
    last full date before it in the line (or `anchor`, the date of the heading it sits under)."""
    full = [(d.end, day) for d in figures.dates(line) if (day := _day(d)) is not None]
    out, last = [], 0
    for match in _RELATIVE.finditer(line):
        at = next((day for end, day in reversed(full) if end <= match.start()), anchor)
        meant = _meant(match, at) if at else None
        if meant:
            out += [line[last : match.end()], f" ({meant})"]
            last = match.end()
    return "".join(out) + line[last:]


def anchor_spans(line: str) -> list[tuple[int, int]]:
    """The spans of the dates in `line` that date a relative expression after them: the day a
    line was written, not the day its "yesterday" happened."""
    full = [d for d in figures.dates(line) if _day(d) is not None]
    spans = set()
    for match in _RELATIVE.finditer(line):
        if before := [d for d in full if d.end <= match.start()]:
            spans.add((before[-1].start, before[-1].end))
    return sorted(spans)


def dated_text(text: str) -> str:
    """Every line resolved, a heading's full date dating the lines under it; code blocks as they are."""
    anchor: date | None = None
    lines, code = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            code = not code
        if code or line.lstrip().startswith("```"):
            lines.append(line)
            continue
        if line.lstrip().startswith("#"):
            anchor = heading_date(line) or anchor
        lines.append(resolved(line, anchor))
    return "\n".join(lines)


def heading_date(heading: str) -> date | None:
    """The last full date a heading (or a path of headings) gives: the day its lines were written.

    >>> heading_date("Session 2 — 1:56 pm on 25 May, 2023")
    datetime.date(2023, 5, 25)
    """
    days = [day for d in figures.dates(heading) if (day := _day(d))]
    return days[-1] if days else None


def _day(found: figures.Date) -> date | None:
    if found.year is None or found.day is None:
        return None
    try:
        return date(found.year, found.month, found.day)
    except ValueError:  # 31 February
        return None


def _meant(match: re.Match[str], at: date) -> str | None:
    g = match.groupdict()
    if g["before"]:
        return _spelled(at - timedelta(days=2))
    if g["shift"]:
        return _spelled(at + timedelta(days=_SHIFT[g["shift"].lower()]))
    if g["unit"]:
        return _last(g["unit"].lower(), at)
    if g["tunit"]:
        step = 1 if g["this"].lower() == "next" else 0
        return _month(at, step) if g["tunit"].lower() == "month" else str(at.year + step)
    if g["wd"]:
        back = (at.weekday() - WEEKDAY_ABBREVIATIONS.index(g["wd"].lower())) % 7 or 7
        weekday = (at - timedelta(days=back)).strftime("%A")
        return f"the {weekday} before {_spelled(at)}, {_spelled(at - timedelta(days=back))}"
    count = int(g["n"]) if g["n"].isdigit() else _COUNT[g["n"].lower()]
    return _ago(g["ago"].lower(), count, at)


def _last(unit: str, at: date) -> str:
    if unit in ("week", "weekend"):
        return f"the {unit} before {_spelled(at)}"
    return _month(at, -1) if unit == "month" else str(at.year - 1)


def _ago(unit: str, count: int, at: date) -> str:
    if unit in ("day", "week"):
        return _spelled(at - timedelta(days=count * (7 if unit == "week" else 1)))
    return _month(at, -count) if unit == "month" else str(at.year - count)


def _month(at: date, step: int) -> str:
    index = at.year * 12 + at.month - 1 + step
    return date(index // 12, index % 12 + 1, 1).strftime("%B %Y")


def _spelled(day: date) -> str:
    return f"{day.day} {day.strftime('%B %Y')}"
