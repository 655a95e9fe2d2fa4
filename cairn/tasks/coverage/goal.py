"""A goal about every one of something: what it ranges over, and what it asks of each.

A goal ranges over items when it quantifies a kind (`every service`, `each dataset`, `all the
services`, `service by service`, `the services described here: for each one`), whatever its verb
or word order; the *fields* are what it asks of each: the noun phrases before the kind (`The
owning team and the p95 budget of every service`) or after it (`..., report its owner and its p95
budget`, `List each service with the team that owns it`), and the questions it asks of it (`Which
team owns each service, and what is its p95 latency budget?`). A field keeps its aside (`its p95
latency budget (in milliseconds)`): it says how the value is written, and the verifier reads its
unit from it. Each field is asked of one item as a question (`What is the p95 latency budget (in
milliseconds) of billing?`), which the verifier judges like any other.

>>> spec = coverage_goal("Summarise, for every service described in the corpus, the team that "
...                      "owns it and its p95 latency budget.")
>>> spec.kind, spec.fields
('service', ['the team that owns it', 'its p95 latency budget'])
>>> [spec.question(f, "billing") for f in spec.fields]
['Which team owns billing?', 'What is the p95 latency budget of billing?']
>>> coverage_goal("Which team owns each service, and what is its p95 latency budget?").fields
['the team that owns it', 'its p95 latency budget']
>>> coverage_goal("The owning team and the p95 budget (in ms) of every service.").fields
['the owning team', 'the p95 budget (in ms)']
"""

from __future__ import annotations

import re

from cairn.core import Frozen
from cairn.tasks.grounding.figures import UNITS
from cairn.tasks.grounding.lemmas import lemma
from cairn.tasks.grounding.lexicon import (
    ARTICLES,
    DEMONSTRATIVES,
    FRAME,
    INSTRUCTION_VERBS,
    NUMBER_WORDS,
    POSSESSIVE_DETERMINERS,
    PREPOSITIONS,
    QUANTIFIERS,
    THIRD_PERSON_PRONOUNS,
    WH_WORDS,
)

_SENTENCE = re.compile(r"(?<=[.;!?])\s+")
# `every service`, `each of the datasets`, `all the services`, `service by service`.
_QUANTIFIED = re.compile(
    r"\b(?:every|each|all)(?:\s+(?:of\s+)?the)?\s+(?P<kind>[A-Za-z][\w-]*)|\b(?P<twice>[A-Za-z][\w-]*)\s+by\s+(?P=twice)\b",
    re.I,
)
_PLURAL = re.compile(r"\bthe\s+(?:[\w-]+\s+)?(?P<kind>[a-z][\w-]*s)\b", re.I)  # `the services described here`
_CLAUSE = re.compile(r",?\s+and\s+(?=(?:" + "|".join(sorted(WH_WORDS)) + r")\b)|;\s*", re.I)
_WHICH = re.compile(r"^which\s+(?P<noun>\w+)\s+(?P<verb>\w+)\b", re.I)
_WHO = re.compile(r"^who\s+(?P<verb>\w+)\b", re.I)
_WHAT_IS = re.compile(r"^what\s+(?:is|are|was|were)\s+(?P<field>.+)$", re.I)
_TRAILING_UNIT = re.compile(r"\s+in\s+(?P<unit>[\w%³]+)$", re.I)
_WHO_FIELD = re.compile(
    r"^(?:the\s+)?(?P<noun>\w+)\s+(?:that|which|who)\s+(?P<verb>\w+)\s+(?:it|them)$", re.I
)
_DOES = re.compile(r"^who\s+(?P<verb>\w+)\s+(?:it|them)$", re.I)
_OWN = re.compile(r"^(?:its|their|the)\s+", re.I)
_OPENS_FIELD = POSSESSIVE_DETERMINERS | ARTICLES | WH_WORDS  # a field opens with one of these
_NOT_A_KIND = QUANTIFIERS | DEMONSTRATIVES | THIRD_PERSON_PRONOUNS | ARTICLES | frozenset(NUMBER_WORDS)


class CoverageGoal(Frozen):
    """What a goal ranges over (`kind`) and the fields it asks of each item, as the goal words them."""

    kind: str
    fields: list[str]

    def question(self, field: str, item: str) -> str:
        """The field asked of one item, as a question (see the module docstring)."""
        name = self.named(item)
        if found := _WHO_FIELD.match(field):
            return f"Which {found['noun']} {found['verb']} {name}?"
        if found := _DOES.match(field):
            return f"Who {found['verb']} {name}?"
        if field.lower().startswith("who "):  # `who signed the contract`
            return f"Who {field[4:]} of {name}?"
        return f"What is the {_OWN.sub('', field)} of {name}?"

    def named(self, item: str) -> str:
        """The item as its fields' questions name it: by its name alone (a line that states a field
        may name it without the kind: `Owning team: Team Wren` under `## Ledger sync`)."""
        return item


def coverage_goal(goal: str) -> CoverageGoal | None:
    """The goal read as one about every item of a kind, or None when it is not one. The range and
    its fields stand in one sentence: a standing rule beside a question ("Always cite the source
    file of every figure.") ranges over nothing.

    >>> coverage_goal("How many days does it hold? Always cite the source file of every figure.") is None
    True
    """
    for sentence in _SENTENCE.split(goal):
        for found in _QUANTIFIED.finditer(sentence):
            kind = _kind(sentence, found)
            if kind is None:
                continue
            fields = _fields(sentence, found)
            if fields:
                return CoverageGoal(kind=kind, fields=fields)
    return None


def ranges_over(goal: str) -> str | None:
    """The kind a goal quantifies (`every service`), whether or not its fields could be read: a
    goal that may range over items is read whole before it is judged.

    >>> ranges_over("Tell me something about each of the services."), ranges_over("Who owns billing?")
    ('service', None)
    """
    for sentence in _SENTENCE.split(goal):
        for found in _QUANTIFIED.finditer(sentence):
            if (kind := _kind(sentence, found)) is not None:
                return kind
    return None


def _kind(sentence: str, found: re.Match[str]) -> str | None:
    """The quantified noun as a lemma; `each one` stands for the plural noun before it."""
    word = (found["kind"] or found["twice"]).lower()
    if word in ("one", "of"):
        before = list(_PLURAL.finditer(sentence[: found.start()]))
        word = before[-1]["kind"].lower() if before else ""
    if not word or word in _NOT_A_KIND or word in FRAME:
        return None
    return lemma(word)


def _fields(sentence: str, found: re.Match[str]) -> list[str]:
    """What the sentence asks of each item: the questions it asks of it, else the noun phrases
    after the quantified kind (past a qualifier: `described in the corpus,`), else before it."""
    asked = _questions(sentence, found)
    if asked or sentence.split(" ")[0].lower() in WH_WORDS:
        return asked  # a question asks its fields as questions, or asks none of each item
    after = sentence[found.end() :].strip()
    joined = re.match(r"(?:with|and)\s+", after, re.I)  # `each service with ...`, `... and tell me ...`
    if joined:
        text = after[joined.end() :]
    else:
        mark = re.search(r"[,:]", after)
        text = after[mark.end() :] if mark else ""
    fields = _phrases(text)
    if fields:
        return fields
    before = re.sub(r"\s+(?:of|for|about|on)\s*$", "", sentence[: found.start()].strip(" ,:"))
    return _phrases(before, leading=True)


def _questions(sentence: str, found: re.Match[str]) -> list[str]:
    """A goal that asks questions of each item (`Which team owns each service, and what is its
    budget?`): each wh-clause as a field."""
    clauses = [c.strip(" ,?.") for c in _CLAUSE.split(sentence)]
    if not clauses or clauses[0].split(" ")[0].lower() not in WH_WORDS:
        return []
    fields = [field for clause in clauses if (field := _asked_field(clause)) is not None]
    return fields if len(fields) == len(clauses) else []


def _asked_field(clause: str) -> str | None:
    if not _asks_of_the_kind(clause):
        return None
    text = _QUANTIFIED.sub("it", clause).strip()
    if found := _WHICH.match(text):
        return f"the {found['noun']} that {found['verb']} it"
    if found := _WHO.match(text):
        return f"who {found['verb']} it"
    if found := _WHAT_IS.match(text):
        return _field(found["field"])
    return None


def _asks_of_the_kind(clause: str) -> bool:
    """Whether a wh-clause asks its question of the quantified kind: the kind is its verb's object
    (`Which team owns each service`) or follows a preposition of what it asks (`what is the budget
    of each service`); a kind inside a clause of its own (`What percent does the law require all
    spirits to have?`) qualifies the one value asked.

    >>> _asks_of_the_kind("Which team owns each service"), _asks_of_the_kind("what is the budget of each one")
    (True, True)
    >>> _asks_of_the_kind("What is the minimum percent a German law requires all spirits to have")
    False
    """
    found = _QUANTIFIED.search(clause)
    if found is None:
        return True
    before = clause[: found.start()].split()
    if not before:
        return True
    if before[-1].lower() in PREPOSITIONS:
        return True
    asked = _WHICH.match(clause) or _WHO.match(clause)
    return asked is not None and asked.end() == len(clause[: found.start()].rstrip())


def _phrases(text: str, leading: bool = False) -> list[str]:
    """The fields a list of noun phrases names (`report its owner (a team) and its p95 budget`):
    each piece from its first determiner, possessive or wh-word on; a piece with none is no field
    (`in these files`), and so is a leading clause that opens with another verb (`Cite the line
    of every figure`: a rule, not a request)."""
    text = text.strip(" .;:,?")
    if not text:
        return []
    first = text.split(" ")[0].lower()
    if leading and first not in _OPENS_FIELD and lemma(first) not in INSTRUCTION_VERBS and first != "i":
        return []
    fields = []
    for piece in _pieces(text):
        words = piece.split(" ")
        at = next((n for n, w in enumerate(words) if w.lower() in _OPENS_FIELD), None)
        if at is not None and (field := _field(" ".join(words[at:]))) is not None:
            fields.append(field)
    return fields


def _pieces(text: str) -> list[str]:
    """`a, b and c (in ms)` -> a, b, c (in ms): split on commas and `and`, never inside an aside."""
    pieces, depth, current = [], 0, ""
    for token in re.split(r"(\(|\)|,|\s+and\s+)", text):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        if depth == 0 and (token == "," or re.fullmatch(r"\s+and\s+", token or "")):
            pieces.append(current)
            current = ""
        else:
            current += token or ""
    return [p.strip() for p in [*pieces, current] if p.strip()]


def _field(text: str) -> str | None:
    """A field as the goal words it, a trailing `in ms` written as an aside (`(in ms)`)."""
    field = " ".join(text.split()).strip(" .,;:?")
    if asked := _WHAT_IS.match(field):
        field = asked["field"]  # `what is the renewal date`: the renewal date
    if field.split(" ")[0].lower() in _OPENS_FIELD:
        field = field[0].lower() + field[1:]  # `The owning team` opening the goal
    if (unit := _TRAILING_UNIT.search(field)) and unit["unit"].lower() in UNITS:
        field = f"{field[: unit.start()]} (in {unit['unit']})"
    words = [w.lower() for w in re.findall(r"[A-Za-z][\w-]*", re.sub(r"\([^)]*\)", "", field))]
    if not any(w not in FRAME and w not in ("it", "them", "one") for w in words):
        return None
    return field


__all__ = ["CoverageGoal", "coverage_goal", "ranges_over"]
