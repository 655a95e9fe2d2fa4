"""What a question asks, read from its structure: the wh-phrase and the noun it asks about, the
words a line must say, the names and figures it stakes on, whether it is negated, and the unit a
figure is asked in.

The wh-word may stand anywhere (`In what country is Normandy located?`, `The treaty was signed
when?`); `what`/`which` followed by a noun asks for that noun (`which team`: a team), `how many
days` for a count of days. An aside in parentheses (`its p95 latency budget (in milliseconds)`)
says how the answer is written, not what a line must say: its words are no terms, and a unit it
names is the unit asked.

>>> q = read_question("In what country is Normandy located?")
>>> q.wh, q.head, q.terms, sorted(q.names)
('whatnoun', 'country', ('country', 'normandy', 'locate'), ['normandy'])
>>> q = read_question("What is the p95 latency budget of billing (in milliseconds)?")
>>> q.terms, q.unit
(('p95', 'latency', 'budget', 'billing'), 'ms')
>>> read_question("Who is the head of the Osprey team?").wh
'who'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from cairn.tasks.grounding.asked import wanted_unit
from cairn.tasks.grounding.figures import UNITS
from cairn.tasks.grounding.lexicon import BE_FORMS, COUNT_NOUNS, PREPOSITIONS, TEMPORAL_NOUNS, WH_WORDS
from cairn.tasks.verify.tokens import Word, negated, words

WhClass = Literal[
    "who", "when", "where", "why", "howmany", "howadj", "how", "whatdate", "whatcount", "whatnoun",
    "what", "other",
]  # fmt: skip
WH_CLASSES: tuple[WhClass, ...] = get_args(WhClass)
_ASIDE = re.compile(r"\s*\(([^()]*)\)")


@dataclass(frozen=True)
class Question:
    """One question (or a ledger field asked of an item), read for the verifier."""

    text: str
    words: tuple[Word, ...]
    wh: WhClass
    head: str | None  # the noun the wh-phrase asks for (`which team`: team), as a lemma
    terms: tuple[str, ...]  # content words as lemmas, in order, each once (the aside left out)
    names: frozenset[str]  # capitalised words past the first, lower-cased
    numbers: frozenset[str]  # figures it names (`2004`), without a currency sign
    negated: bool
    unit: str | None  # the unit a figure is asked in (`how many days`, `(in milliseconds)`)


def read_question(text: str) -> Question:
    """Read a question (see the module docstring)."""
    asides = _ASIDE.findall(text)
    bare = _ASIDE.sub("", text)
    found = words(bare)
    wh, head = _wh(found)
    return Question(
        text=text,
        words=tuple(found),
        wh=wh,
        head=head,
        terms=tuple(dict.fromkeys(w.lemma for w in found if w.content)),
        names=frozenset(w.lower for n, w in enumerate(found) if n and w.capitalised and w.content),
        numbers=frozenset(w.lower.lstrip("$€£") for w in found if w.number),
        negated=negated(found),
        unit=_unit(bare, asides),
    )


def _wh(found: list[Word]) -> tuple[WhClass, str | None]:
    """The wh-class and the noun it asks for."""
    at = next((n for n, w in enumerate(found) if w.lower in WH_WORDS), None)
    if at is None:
        return "other", None
    word = found[at].lower
    after = found[at + 1] if at + 1 < len(found) else None
    if word in ("who", "whom", "whose"):
        return "who", _copula_head(found, at)
    if word in ("when", "where", "why"):
        return word, None  # type: ignore[return-value]  # the three are WhClass members
    if word == "how":
        return _how(found, at)
    if after is None or not after.content:
        return "what", _copula_head(found, at)
    if after.lemma in TEMPORAL_NOUNS:
        return "whatdate", after.lemma
    if after.lemma in COUNT_NOUNS:
        return "whatcount", after.lemma
    return "whatnoun", after.lemma


def _copula_head(found: list[Word], at: int) -> str | None:
    """`what is the p95 latency budget of billing`: budget; `who is the head of X`: head (the last
    content word before the first preposition past the verb)."""
    after = found[at + 1] if at + 1 < len(found) else None
    if after is None or after.lower not in BE_FORMS:
        return None
    last = None
    for word in found[at + 2 :]:
        if word.mark or (word.lower in PREPOSITIONS and last is not None):
            break
        if word.content:
            last = word.lemma
    return last


def _how(found: list[Word], at: int) -> tuple[WhClass, str | None]:
    after = found[at + 1] if at + 1 < len(found) else None
    if after is not None and after.lower in ("many", "much"):
        noun = found[at + 2] if at + 2 < len(found) else None
        return "howmany", noun.lemma if noun is not None and noun.content else None
    if after is not None and after.content:
        return "howadj", after.lemma
    return "how", None


def _unit(text: str, asides: list[str]) -> str | None:
    """`how many days` asks days; an aside naming a unit (`(in milliseconds)`, `(ms)`) asks it."""
    for aside in asides:
        for word in re.findall(r"[A-Za-z%€$³]+", aside.lower()):
            if word in UNITS:
                return UNITS[word]
    return wanted_unit(text)


__all__ = ["WH_CLASSES", "Question", "WhClass", "read_question"]
