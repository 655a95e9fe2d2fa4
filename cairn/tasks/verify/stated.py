"""Whether an answer gives a value: the same figure (value and unit), the same day, or every
content word of the value; a name only when the answer's name around it is the value or a longer
name the line also says (`Team Kestrel` gives no `Team` of a line about Team Falcon).

>>> gives("It holds 1,260,000 m³.", "1260000 m3"), gives("Falcon owns it.", "Team Falcon")
(True, False)
>>> gives("They fell in February 1082.", "February 1082"), gives("In 1082.", "February 1082")
(True, False)
>>> gives("Team Kestrel owns it.", "Team", line="Team Falcon owns billing.")
False
"""

from __future__ import annotations

import re

from cairn.tasks.grounding import figures
from cairn.tasks.grounding.lexicon import MONTH_SPELLINGS
from cairn.tasks.verify.tokens import Word, forms_of, words

_YEAR = re.compile(r"1\d{3}|20\d{2}")
MONTH_NUMBERS = {spelling: n for n, month in enumerate(MONTH_SPELLINGS, start=1) for spelling in month}


def gives(answer: str, value: str, line: str = "", asked: str = "") -> bool:
    """Whether `answer` gives `value`, quoted from `line`, in answer to `asked` (a value made only
    of the question's own words is not what an answer gives)."""
    if not answer.strip() or not value.strip():
        return False
    said = words(answer)
    have = forms_of(said)
    days, said_days = _when(value), _when(answer)
    if days and not all(d in said_days for d in days):
        return False  # the same day, month or year: `January 2023` is not `January 20, 2023`
    said_figures = figures.figures(answer)
    in_dates = [(d.start, d.end) for d in figures.dates(answer)]  # `8` of `8 May, 2023` is no figure
    loose = {w.lower for w in said if not any(a <= w.start < b for a, b in in_dates)}
    written = figures.figures(value)
    for f in written:
        stated = any(
            figures.same_value(f.value, s.value) and (f.unit is None or s.unit in (None, f.unit))
            for s in said_figures
        )
        if not stated and not (f.unit is None and f.text.lower() in loose):
            return False
    inside = [(f.start, f.end) for f in written] + [(d.start, d.end) for d in figures.dates(value)]
    timed = bool(days)  # a time's words (`January`, `2023`) were compared as a time above
    content = [
        w
        for w in words(value)
        if w.content and not any(a <= w.start < b for a, b in inside) and not (timed and _timely(w))
    ]
    if not (content or written or days) or not all(any(form in have for form in w.forms) for w in content):
        return False
    question = forms_of(words(asked))
    if asked and content and all(any(form in question for form in w.forms) for w in content):
        return False
    return not line or _whole_name(said, content, forms_of(words(line)))


def _timely(word: Word) -> bool:
    return bool(_YEAR.fullmatch(word.text)) or (word.capitalised and word.lower in MONTH_NUMBERS)


def _when(text: str) -> set[tuple[int | None, int | None, int | None]]:
    """The times a text names, each as (year, month, day) at the precision it is written: a date,
    else a bare year or a month's name (`2023`, `January` of `January 20, 2023` name no time alone)."""
    found = figures.dates(text)
    if found:
        return {(d.year, d.month, d.day) for d in found}
    years = {(int(w.text), None, None) for w in words(text) if _YEAR.fullmatch(w.text)}
    months = {
        (None, MONTH_NUMBERS[w.lower], None)
        for w in words(text)
        if w.capitalised and w.lower in MONTH_NUMBERS
    }
    return years | months


def _whole_name(said: list[Word], value: list[Word], line: set[str]) -> bool:
    """A name is given when the answer's capitalised run around it adds nothing the line lacks."""
    if not value or not all(w.capitalised for w in value):
        return True
    own = {w.lower for w in value}
    for n, w in enumerate(said):
        if w.lower not in own or not w.capitalised:
            continue
        start, end = n, n + 1
        while start > 0 and said[start - 1].capitalised and said[start - 1].content:
            start -= 1
        while end < len(said) and said[end].capitalised and said[end].content:
            end += 1
        extra = {x.lower for x in said[start:end]} - own
        if extra <= line:
            return True
    return False


__all__ = ["gives"]
