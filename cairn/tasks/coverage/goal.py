"""A goal about every one of something: what it ranges over, and what it asks of each.

"Summarise, for every service described in the corpus, the team that owns it and its p95 latency
budget." ranges over *services* and asks two *fields* of each. Each field is asked of one item as
a question the quote check can prove (`Which team owns the billing service?`, `What is the p95
latency budget of the billing service?`), so every cell of the ledger carries its quote as an
answer does.

>>> spec = coverage_goal("Summarise, for every service described in the corpus, the team that "
...                      "owns it and its p95 latency budget.")
>>> spec.kind, spec.fields
('service', ['the team that owns it', 'its p95 latency budget'])
>>> [spec.question(f, "billing") for f in spec.fields]
['Which team owns billing?', 'What is the p95 latency budget of billing?']
"""

from __future__ import annotations

import re

from cairn.core import Frozen
from cairn.tasks.grounding.lemmas import lemma

# `for every service`, `of each team`, `about all the services`: what a goal ranges over (not
# `citing the note each point comes from`, where `each` only says how to write).
_EVERY = re.compile(
    r"\b(?:for|of|about|on|in)\s+(?:every|each|all(?:\s+the)?)\s+(?P<kind>[A-Za-z][\w-]*)", re.I
)
_LEAD = re.compile(
    r"^(?:\w+\s*,?\s*)?(?:list|give|summari[sz]e|name|report|collect|gather|find|state|show)\b[,:]?\s*", re.I
)
_SENTENCE = re.compile(r"(?<=[.;!?])\s+")
_SPLIT = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_WHO = re.compile(r"^(?:the\s+)?(?P<noun>\w+)\s+(?:that|which|who)\s+(?P<verb>\w+)\s+(?:it|them)$", re.I)
_DOES = re.compile(r"^who\s+(?P<verb>\w+)\s+(?:it|them)$", re.I)
_OWN = re.compile(r"^(?:its|their|the)\s+", re.I)


class CoverageGoal(Frozen):
    """What a goal ranges over (`kind`) and the fields it asks of each item, as the goal words them."""

    kind: str
    fields: list[str]

    def question(self, field: str, item: str) -> str:
        """The field asked of one item, as a question (see the module docstring)."""
        name = self.named(item)
        if found := _WHO.match(field):
            return f"Which {found['noun']} {found['verb']} {name}?"
        if found := _DOES.match(field):
            return f"Who {found['verb']} {name}?"
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
        found = _EVERY.search(sentence)
        if found is not None and (fields := _fields(sentence, found)):
            return CoverageGoal(kind=lemma(found["kind"].lower()), fields=fields)
    return None


def _fields(sentence: str, found: re.Match[str]) -> list[str]:
    """`..., for every X ..., A and B.` (after the clause), or `List A and B of every X.` (before,
    led by a verb that asks for them)."""
    after = sentence[found.end() :]
    clause_end = after.find(",")
    if clause_end >= 0:
        text = after[clause_end + 1 :]
    else:
        before = sentence[: found.start()].strip()
        if not _LEAD.match(before):
            return []
        text = re.sub(r"\s+(?:of|for)\s*$", "", _LEAD.sub("", before))
    text = _LEAD.sub("", text.strip().rstrip(".;!?"))
    return [f.strip() for f in _SPLIT.split(text) if f.strip()]


__all__ = ["CoverageGoal", "coverage_goal"]
