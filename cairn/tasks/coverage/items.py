"""The items of a kind that a line names: the rows a coverage goal's ledger has.

A line names an item of kind `service` by a `service: billing` pair (a table row, a CSV row, a
JSON object, a `Service: billing` heading) or in prose, by the words before the kind word after a
determiner or at a sentence's start (`The ledger sync service is owned by ...`, `Ledger sync
service: ...`). Names are compared without case and with hyphens as spaces, so the same item
read from a table and from a memo is one row; `ledger sync` and `ledger sync v2` stay two.

>>> from cairn.tasks.grounding.units import units_of
>>> [items_in(u, "service") for u in units_of("a.md", "The ledger sync service is owned by Team Wren.")]
[['ledger sync']]
>>> [items_in(u, "service") for u in units_of("a.csv", "service,owner\\nbilling,Team Finch\\n")]
[['billing']]
"""

from __future__ import annotations

import re

from cairn.tasks.grounding.lemmas import FRAME, Token, tokens
from cairn.tasks.grounding.units import Unit

MAX_NAME_WORDS = 4
_DETERMINERS = frozenset(["the", "a", "an", "its", "our", "their", "this", "that"])
_STOP = (
    FRAME
    | _DETERMINERS
    | frozenset(["each", "every", "all", "any", "some", "no", "other", "another", "per", "which"])
)
_SEGMENT = re.compile(r";\s*")


def key(name: str) -> str:
    """How two names of one item compare: `Ledger-Sync` is `ledger sync`."""
    return " ".join(re.sub(r"[-_]+", " ", name.lower()).split()).strip(" .,:;\"'`")


def items_in(unit: Unit, kind: str) -> list[str]:
    """The names of the items of `kind` that `unit` names, as written (see the module docstring)."""
    found = _paired(unit.said, kind) or _in_prose(unit.said, kind)
    if unit.heading and not found:
        found = _paired(unit.text, kind) or _in_prose(unit.text, kind)
    return list(dict.fromkeys(n for n in found if key(n) and key(n) not in FRAME))


def _paired(text: str, kind: str) -> list[str]:
    names = []
    for segment in _SEGMENT.split(text):
        label, colon, value = segment.partition(": ")
        words = [t.lemma for t in tokens(label)]
        if colon and value.strip() and words and words[-1] == kind and len(words) <= 2:
            names.append(value.strip().rstrip("."))
    return names


def _in_prose(text: str, kind: str) -> list[str]:
    words = tokens(text)
    names = []
    for n, t in enumerate(words):
        if t.lemma != kind:
            continue
        j = n - 1
        while j >= 0 and n - j <= MAX_NAME_WORDS and _spaced(text, words, j) and words[j].lower not in _STOP:
            j -= 1
        opens = j < 0 or (words[j].lower in _DETERMINERS and _spaced(text, words, j))
        if j < n - 1 and opens:
            names.append(text[words[j + 1].start : words[n - 1].end])
    return names


def _spaced(text: str, words: list[Token], at: int) -> bool:
    """Nothing but a space (or a hyphen) between word `at` and the next: one phrase."""
    return text[words[at].end : words[at + 1].start].strip() in ("", "-", "_")


__all__ = ["items_in", "key"]
