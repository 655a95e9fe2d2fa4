"""Is the deliverable grounded? Its claims checked against what the task read, the goal's parts
against its answer, a coding task's named functions against its test runs.

>>> reads = ReadIndex([Read("d/slo.md", "| billing | 180 | ms |"),
...                    Read("d/team.md", "Team Falcon owns billing.")])
>>> parts = ["Which team owns billing?", "What is its budget?"]
>>> found = check_answer("Team Falcon owns it, and its budget is 6.43 ms.", parts, reads, "")
>>> [c.reason() for c in found.claims if not c.supported], [p.answered for p in found.parts]
(['6.43 ms is in no file read'], [True, False])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.memory.models import Claim, PartCheck
from cairn.tasks.grounding.answer_text import UNVERIFIED, answer_body
from cairn.tasks.grounding.claims import answer_clauses, check_claims
from cairn.tasks.grounding.parts import check_parts, split_goal
from cairn.tasks.grounding.reads import Read, ReadIndex

__all__ = ["UNVERIFIED", "Grounding", "Read", "ReadIndex", "answer_body", "check_answer", "split_goal"]


@dataclass(frozen=True)
class Grounding:
    claims: list[Claim]
    parts: list[PartCheck]


def check_answer(
    markdown: str, parts: Sequence[str], reads: ReadIndex, given: str, worked: Sequence[str] = ()
) -> Grounding:
    """The claims of a deliverable and the goal's parts, each checked (see the submodules)."""
    body = answer_body(markdown)
    clauses = answer_clauses(body)
    claims = check_claims(body, reads, given, worked, clauses)
    checked, phrases = check_parts(parts, clauses, claims, reads, given)
    return Grounding(claims=claims + phrases, parts=checked)
