"""The values a sentence could give as an answer: runs of content words (a name may hold `of`, `and`,
`de` between its capitalised words; a figure its unit), every shorter run inside them, and two runs
joined by `of` or `and`; each with its shape.

>>> from cairn.tasks.verify.tokens import words
>>> found = words("The Peabody Museum of Archaeology and Ethnology opened in 1866.")
>>> max((text_of(found, s) for s in spans(found) if shape(found[s[0]:s[1]]) == "name"), key=len)
'Peabody Museum of Archaeology and Ethnology'
>>> [(text_of(found, s), shape(found[s[0]:s[1]])) for s in spans(found) if found[s[0]].number]
[('1866', 'date')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Literal, get_args

from cairn.tasks.grounding.lexicon import MONTHS, NAME_JOINERS
from cairn.tasks.verify.tokens import Word

Shape = Literal["date", "number", "quantity", "name", "mixed", "phrase"]
SHAPES: tuple[Shape, ...] = get_args(Shape)
Span = tuple[int, int]  # word positions: start, end (exclusive)
LONGEST = 6  # words in a value from inside one run
JOINED = 8  # words in a value of two runs joined by `of` or `and`
_YEAR = re.compile(r"^(?:1\d{3}|20\d{2})s?$")
_JOINS = (("of",), ("of", "the"), ("and",), ("to",))


def spans(found: Sequence[Word]) -> list[Span]:
    """Every candidate value of a sentence's words, in order."""
    runs = _runs(found)
    out: set[Span] = set()
    for a, b in runs:
        for x in range(a, b):
            for y in range(x + 1, min(b, x + LONGEST) + 1):
                if found[x].content and found[y - 1].content:
                    out.add((x, y))
    for (a, b), (c, d) in pairwise(runs):
        if tuple(w.lower for w in found[b:c]) in _JOINS and d - a <= JOINED:
            out.add((a, d))
    return sorted(out)


def _runs(found: Sequence[Word]) -> list[Span]:
    """Maximal runs of content words; a joiner between two capitalised words or figures stays in."""
    runs: list[Span] = []
    n = 0
    while n < len(found):
        if not found[n].content:
            n += 1
            continue
        end = n + 1
        while end < len(found) and (found[end].content or _joins(found, end)):
            end += 1
        runs.append((n, end))
        n = end
    return runs


def _joins(found: Sequence[Word], at: int) -> bool:
    before, after = found[at - 1], found[at + 1] if at + 1 < len(found) else None
    return (
        found[at].lower in NAME_JOINERS
        and after is not None
        and after.content
        and (after.capitalised or after.number)
        and (before.capitalised or before.number)
    )


def shape(found: Sequence[Word]) -> Shape:
    """What kind of value the words are: a date (a year, a month, a century), a bare number, a
    quantity (a number with more words), a name (every content word capitalised), mixed, or a
    phrase."""
    numbers = sum(w.number for w in found)
    months = sum(w.capitalised and w.lower in MONTHS for w in found)
    if numbers and (months or any(_YEAR.match(w.text) for w in found) or _century(found)):
        return "date"
    if numbers:
        return "number" if len(found) == 1 else "quantity"
    if months:
        return "date"
    capitals = sum(w.capitalised for w in found)
    if capitals and capitals == sum(w.content for w in found):
        return "name"
    return "mixed" if capitals else "phrase"


def _century(found: Sequence[Word]) -> bool:
    return any(w.lemma in ("century", "decade") for w in found)


def text_of(found: Sequence[Word], span: Span, said: str | None = None) -> str:
    """The span as written (from `said`, the text the words were read from, when given)."""
    first, last = found[span[0]], found[span[1] - 1]
    if said is not None:
        return said[first.start : last.end]
    return " ".join(w.text for w in found[span[0] : span[1]])


__all__ = ["SHAPES", "Shape", "Span", "shape", "spans", "text_of"]
