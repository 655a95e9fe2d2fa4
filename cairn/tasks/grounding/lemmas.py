"""Words compared as lemmas: `leads`, `led` and `lead` are one word, and so are `sits` and `sat`.

The quote check asks whether the lines read state every content word of a question. Lemmas
(simplemma's English tables, shipped inside its wheel) let a line say `led` where the question
says `leads`, and nothing looser: `p95` is not `p99`, `office` is not `desk`.

A question's word counts as its lemma; a capitalised word inside a question (a name) counts as
itself, lower-cased, since a lemmatizer may read `Wales` as a plural. A line offers both forms of
each of its words, so either matches.

>>> sorted(content_terms("Who leads Team Falcon's office?"))
['falcon', 'lead', 'office', 'team']
>>> {"lead", "sit"} <= forms("The team was led by Priya and sat in Lisbon.")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import simplemma

from cairn.tasks.grounding.lexicon import FRAME

WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
POSSESSIVE = re.compile(r"['’](?:s|S)$")


@dataclass(frozen=True)
class Token:
    """One word of a text: where it is, as written, lower-cased, and its lemma."""

    start: int
    end: int
    text: str
    lower: str
    lemma: str

    @property
    def capitalised(self) -> bool:
        return self.text[:1].isupper()


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The lemma of a lower-case word (`led` -> `lead`); the word itself when it has none."""
    found = simplemma.lemmatize(word, lang="en").lower()
    return found or word


def tokens(text: str) -> list[Token]:
    """Every word of `text`, possessive `'s` dropped (`Falcon's` is `falcon`)."""
    out = []
    for match in WORD.finditer(text):
        written = POSSESSIVE.sub("", match.group(0))
        lower = written.lower()
        out.append(Token(match.start(), match.start() + len(written), written, lower, lemma(lower)))
    return out


def term(token: Token, first: bool = False) -> str:
    """How a question's word is compared: a name as itself, any other word as its lemma."""
    return token.lower if token.capitalised and not first else token.lemma


def content_terms(text: str) -> set[str]:
    """The content words of a question (or any phrase), as terms: what a quote must state."""
    return set(ordered_terms(text))


def ordered_terms(text: str) -> list[str]:
    """`content_terms` in the order the text says them.

    >>> ordered_terms("Who leads the team that owns billing?")
    ['lead', 'team', 'own', 'billing']
    """
    found = tokens(text)
    return [
        term(t, first=n == 0) for n, t in enumerate(found) if t.lower not in FRAME and t.lemma not in FRAME
    ]


def forms(text: str) -> set[str]:
    """Every form a line offers for matching: each word lower-cased and as its lemma."""
    found: set[str] = set()
    for t in tokens(text):
        found.add(t.lower)
        found.add(t.lemma)
    return found


__all__ = ["Token", "content_terms", "forms", "lemma", "ordered_terms", "term", "tokens"]
