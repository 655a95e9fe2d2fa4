"""Words as the verifier reads them: punctuation kept (a clause ends at a comma), figures whole
(`14.50`, `$57,000`, `3%`), each word with its lemma and whether it carries content.

>>> [(w.text, w.content) for w in words("It cost $57,000, not 14.50")]
[('It', False), ('cost', True), ('$57,000', True), (',', False), ('not', False), ('14.50', True)]
>>> forms_of(words("The Normans were led by Rollo.")) >= {"norman", "normans", "lead", "led", "rollo"}
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from cairn.tasks.grounding.lemmas import lemma
from cairn.tasks.grounding.lexicon import FRAME, MONTHS, NEGATIONS

# A time of day whole (`21:00`, the `T` of an ISO timestamp apart), a figure whole, a word, a mark.
_WORD = re.compile(
    r"\d{1,2}:\d{2}(?::\d{2})?(?!\d)|T(?=\d{1,2}:\d{2})|[$€£]?\d+(?:,\d{3})*(?:\.\d+)?%?"
    r"|[A-Za-z][\w'’]*(?:-[\w'’]+)*|[^\w\s]"
)
_POSSESSIVE = re.compile(r"['’]s$")
CLAUSE_MARKS = frozenset(",;:()—–[]")  # where a clause ends inside a sentence


@dataclass(frozen=True)
class Word:
    """One word or mark of a text, where it is, and how it compares."""

    text: str
    lower: str  # lower-cased, a possessive `'s` dropped
    lemma: str
    start: int
    end: int
    content: bool  # not a function word, not a mark
    capitalised: bool
    number: bool
    mark: bool  # punctuation

    @property
    def forms(self) -> tuple[str, ...]:
        """What it matches: as written (lower-cased), its lemma, a figure without its currency."""
        return (self.lower, self.lemma, self.lower.lstrip("$€£"))


def words(text: str) -> list[Word]:
    """Every word and mark of `text`, in order."""
    found = []
    for match in _WORD.finditer(text):
        written = match.group(0)
        lower = _POSSESSIVE.sub("", written.lower().replace("’", "'"))
        mark = not (written[0].isalnum() or written[0] in "$€£")
        number = bool(re.match(r"[$€£]?\d", written))
        base = lemma(lower) if lower.isalpha() else lower
        month = written[0].isupper() and lower in MONTHS  # `May` of `7 May 2023` is no modal
        content = not mark and (month or (lower not in FRAME and base not in FRAME))
        found.append(
            Word(
                written, lower, base, match.start(), match.end(), content, written[0].isupper(), number, mark
            )
        )
    return found


def forms_of(found: Iterable[Word]) -> set[str]:
    """Every form the words offer for matching."""
    return {form for word in found for form in word.forms}


def negated(found: Iterable[Word]) -> bool:
    """Whether the words hold a negation (`not`, `never`, `didn't`)."""
    return any(w.lower in NEGATIONS or w.lower.endswith("n't") for w in found)


__all__ = ["CLAUSE_MARKS", "Word", "forms_of", "negated", "words"]
