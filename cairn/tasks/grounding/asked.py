"""What one part of a goal asks: the kind of answer, its words, and which of them only say what it
is asked about.

A question's content terms split in two. Its *subject* terms identify what it is about: a name
(`Team Kestrel`, `Caroline`), what follows `of` (`the budget of the notifications service`), a
possessive (`Caroline's`), a relative clause (`the team that owns the search gateway`), or what a
pronoun stands for (`its`, bound by the caller to an earlier part). The rest is its *attribute*:
what it asks of the subject (`office`, `leads`, `p95 latency budget`). The line that gives the
answer must state the attribute and the names; another line linked to it may state the rest of
the subject (that is a two-hop question).

>>> asked = parse("What is the p95 latency budget of the notifications service?")
>>> asked.kind, sorted(asked.attribute), sorted(asked.subject)
('what', ['budget', 'latency', 'p95'], ['notification', 'service'])
>>> asked = parse("Which office does Team Kestrel sit in?")
>>> asked.kind, asked.head, sorted(asked.names)
('which', 'office', ['kestrel', 'team'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from cairn.tasks.grounding.figures import UNITS
from cairn.tasks.grounding.lemmas import Token, lemma, term, tokens
from cairn.tasks.grounding.lexicon import (
    AUXILIARIES,
    BE_FORMS,
    COUNT_NOUNS,
    DATE_NOUNS,
    FRAME,
    HOW_MEASURES,
    NOT_NAMES_IN_QUESTIONS,
    PREPOSITIONS,
    RELATIVE_PRONOUNS,
    THIRD_PERSON_PRONOUNS,
)

AnswerKind = Literal["name", "which", "place", "date", "figure", "what", "yesno", "reason"]

_OF = frozenset(["of"])
_UNIT_ASKED = re.compile(r"\bhow (long|many|much)\b(?:\s+(\w+))?", re.I)


@dataclass(frozen=True)
class Asked:
    """One part of a goal, read for the quote check."""

    part: str
    kind: AnswerKind
    terms: frozenset[str]  # every content term
    names: frozenset[str]  # capitalised terms: stated by the answer's own lines
    subject: frozenset[str]  # terms that identify what is asked about (a linked line may state them)
    head: str | None = None  # the term the answer stands beside (`which office`: office)
    unit: str | None = None  # the unit a figure is asked in (`how many days`: day)
    pointer: bool = False  # a pronoun stands for something an earlier part named
    copula: bool = False  # `what is ...` (a value of the subject), not `what did X do` (an object)
    bound: tuple[str, ...] = field(default=())  # what the pronoun was bound to, when it was

    @property
    def attribute(self) -> frozenset[str]:
        """What the answer's own lines must state: every term but the subject's (names included)."""
        return (self.terms - self.subject) | self.names

    def bind(self, words: frozenset[str], label: str) -> Asked:
        """This part with its pronoun standing for `words` (subject terms of an earlier part)."""
        return Asked(
            part=self.part,
            kind=self.kind,
            terms=self.terms | words,
            names=self.names,
            subject=self.subject | words,
            head=self.head,
            unit=self.unit,
            pointer=True,
            copula=self.copula,
            bound=(*self.bound, label),
        )


def parse(part: str) -> Asked:
    """Read one question (an instruction reads as `what`: any stated value answers it)."""
    toks = tokens(part)
    words = [t.lower for t in toks]
    kind, head_at = _kind(words)
    terms = {term(t, first=n == 0) for n, t in enumerate(toks) if _content(t)}
    names = {
        t.lower
        for n, t in enumerate(toks)
        if n and t.capitalised and _content(t) and t.lower not in NOT_NAMES_IN_QUESTIONS
    }
    subject = set(names) | _subject_terms(toks, head_at)
    head = _head(toks, kind, head_at, names)
    return Asked(
        part=part,
        kind=kind,
        terms=frozenset(terms),
        names=frozenset(names),
        subject=frozenset(subject - ({head} if head else set())),
        head=head,
        unit=_unit(part, words) if kind == "figure" else None,
        pointer=not names and any(w in THIRD_PERSON_PRONOUNS for w in words[1:]),
        copula=len(words) > 1 and words[1] in BE_FORMS,
    )


def _unit(part: str, words: list[str]) -> str | None:
    if words[:2] in (["what", "time"], ["which", "time"]):
        return "clock"
    return wanted_unit(part)


def wanted_unit(part: str) -> str | None:
    """The unit a `how many days`, `how long` or `how many litres` question asks its figure in.

    >>> wanted_unit("How many days of water does it hold?"), wanted_unit("How long does it take?")
    ('day', 'time')
    """
    match = _UNIT_ASKED.search(part)
    if match is None:
        return None
    if match.group(1).lower() == "long":
        return "time"
    return UNITS.get(match.group(2).lower()) if match.group(2) else None


def _content(token: Token) -> bool:
    return token.lower not in FRAME and token.lemma not in FRAME


def _kind(words: list[str]) -> tuple[AnswerKind, int]:
    """The kind of answer, and where the words the answer is about begin."""
    first = words[0] if words else ""
    second = words[1] if len(words) > 1 else ""
    if first in ("who", "whom", "whose"):  # `who is the head of X` asks a name like `who heads X`
        return "name", 1
    if first == "when":
        return "date", 1
    if first == "where":
        return "place", 1
    if first == "how" and second in HOW_MEASURES:
        return "figure", 2
    if first in ("what", "which") and second == "time":
        return "figure", 2  # a time of day
    if first in ("what", "which") and second in DATE_NOUNS:
        return "date", 2
    if first in ("what", "which") and second in COUNT_NOUNS:
        return "figure", 2
    if first in ("what", "which") and second and second not in FRAME:
        plural = lemma(second) != second
        return ("reason" if plural else "which"), 1  # `which cities`: one line's name is not all
    if first in AUXILIARIES:
        return "yesno", 1
    if first == "why" or (first == "how" and second in AUXILIARIES) or words[-1:] == ["for"]:
        return "reason", 1  # a reason or a manner: no line's words can be checked to give it
    return "what", 1


def _head(toks: list[Token], kind: AnswerKind, start: int, names: set[str]) -> str | None:
    """`which office`: office; `who leads`: lead; `what did Caroline research`: research; `what
    is the p95 budget of ...`: budget (the last word before the first preposition)."""
    if kind == "which":
        return toks[1].lemma
    words = [t for t in toks[start:] if t.lower not in THIRD_PERSON_PRONOUNS]
    if kind == "name" or not words or words[0].lower not in AUXILIARIES:
        return next((t.lemma for t in words if _content(t) and t.lower not in names), None)
    last = None
    for t in words[1:]:
        if t.lower in PREPOSITIONS and last is not None:
            break
        if _content(t) and t.lower not in names:
            last = t.lemma
    return last


def _subject_terms(toks: list[Token], start: int) -> set[str]:
    """Terms after `of`, after a relative word that follows a noun, or before a possessive."""
    found: set[str] = set()
    tail = False
    for n, t in enumerate(toks):
        if n < start:
            continue
        follows_word = n > start and toks[n - 1].lower not in FRAME
        if t.lower in _OF or (t.lower in RELATIVE_PRONOUNS and follows_word):
            tail = True
            if t.lower in RELATIVE_PRONOUNS:
                found.add(toks[n - 1].lemma)  # `the team that ...`: the team is what is described
            continue
        if tail and _content(t):
            found.add(t.lemma)
    return found


__all__ = ["AnswerKind", "Asked", "parse", "wanted_unit"]
