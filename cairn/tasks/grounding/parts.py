"""The parts of a goal (each question it asks, each thing it asks for), and which the answer answers.

A goal is split once, when the task starts: at sentence ends, and where a question joins a second
one (`..., and what is its budget?`). A sentence that neither asks nor instructs (`The notes are in
docs.`) is context, not a part; a goal with no part is one part.

A question is proven by quotes (`cairn.tasks.grounding.proof`). An instruction (`Summarise the
notes`) is answered by any clause holding a supported claim, or, with no figure, date, name or
quote, by its own words when a line read holds them all.

>>> split_goal("Which team owns the billing service, and what is its p95 latency budget?")
['Which team owns the billing service', 'what is its p95 latency budget?']
>>> split_goal("The notes are in docs. Summarise them, citing each note.")
['Summarise them, citing each note.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cairn.core import Claim, PartCheck
from cairn.tasks.grounding.answer_text import sentences, terms
from cairn.tasks.grounding.lexicon import ASKING_WORDS, INSTRUCTION_VERBS, RESTATING_LABELS
from cairn.tasks.grounding.reads import ReadIndex

_JOIN = re.compile(rf",?\s+(?:and|but|also|then)\s+(?=(?:{'|'.join(sorted(ASKING_WORDS))})\b)", re.I)
_LABEL_TERMS = frozenset(t for w in RESTATING_LABELS for t in terms(w))  # `Question: ...` answers nothing


def split_goal(goal: str) -> list[str]:
    """The parts a goal asks, in order (at least one)."""
    parts = [piece for sentence in sentences(goal) for piece in _JOIN.split(sentence)]
    asked = [p.strip() for p in parts if _asks(p)]
    return asked or [" ".join(goal.split())]


def _asks(piece: str) -> bool:
    first = (re.findall(r"[A-Za-z']+", piece)[:1] or [""])[0].lower()
    return piece.rstrip().endswith("?") or first in ASKING_WORDS or first in INSTRUCTION_VERBS


def is_question(part: str) -> bool:
    """A question (proven by quotes), not an instruction (`Summarise the notes`).

    >>> is_question("Who leads it?"), is_question("Summarise the notes.")
    (True, False)
    """
    first = (re.findall(r"[A-Za-z']+", part)[:1] or [""])[0].lower()
    return part.rstrip().endswith("?") or first in ASKING_WORDS


def check_instructions(
    parts: Sequence[str], clauses: Sequence[str], claims: Sequence[Claim], reads: ReadIndex, given: str
) -> tuple[list[PartCheck], list[Claim]]:
    """Each instruction part answered or not, and the phrase claims made on the way (clauses with
    no figure, date, name or quote, checked by their own words)."""
    checks: list[PartCheck] = []
    phrases: list[Claim] = []
    for part in parts:
        supported = next((c for c in claims if c.supported), None)
        if supported is not None:
            checks.append(PartCheck(part=part, answered=True, clause=supported.clause))
            continue
        phrase = _phrase(list(clauses), claims, reads, given)
        if phrase is not None and phrase.supported:
            checks.append(PartCheck(part=part, answered=True, clause=phrase.clause))
        else:
            why = (
                f"{phrase.text} is in no file read"
                if phrase
                else "the answer states nothing the files read support"
            )
            checks.append(PartCheck(part=part, answered=False, why=why))
        phrases += [phrase] if phrase and phrase not in phrases else []
    return checks, phrases


def _phrase(candidates: list[str], claims: Sequence[Claim], reads: ReadIndex, given: str) -> Claim | None:
    """The first claim-free clause's own words (those the goal does not say), checked."""
    with_claims = {c.clause for c in claims}
    asked = terms(given)
    for clause in candidates:
        if clause in with_claims:
            continue
        own = terms(clause) - asked - _LABEL_TERMS
        if own:
            support = reads.phrase(own)
            text = clause.rstrip(".!? ")
            if support is None:
                return Claim(text=text, kind="phrase", status="unsupported", clause=clause)
            return Claim(
                text=text,
                kind="phrase",
                status="supported",
                where=support.source,
                line=support.line,
                clause=clause,
            )
    return None


__all__ = ["check_instructions", "is_question", "split_goal"]
