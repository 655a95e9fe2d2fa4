"""Is the deliverable grounded? Its claims checked against what the task read, each question of
the goal proven by the lines read that state its answer, a coding task's named functions checked
against its test runs.

>>> reads = ReadIndex([Read("d/slo.md", "| service | budget (ms) |\\n|---|---|\\n| billing | 180 |"),
...                    Read("d/team.md", "Team Falcon owns billing.")])
>>> parts = ["Which team owns billing?", "What is its budget?"]
>>> found = check_answer("Team Falcon owns it, and its budget is 6.43 ms.", parts, reads, "")
>>> [c.reason() for c in found.claims if not c.supported], [p.answered for p in found.parts]
(['6.43 ms is in no file read'], [True, False])
>>> found.parts[1].why
'the lines read give 180 ms (d/slo.md:3); the answer does not say it'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.core import Claim, PartCheck
from cairn.tasks.grounding.answer_text import UNVERIFIED, answer_body
from cairn.tasks.grounding.claims import answer_clauses, check_claims
from cairn.tasks.grounding.parts import check_instructions, is_question, split_goal
from cairn.tasks.grounding.proof import occurs, prove
from cairn.tasks.grounding.reads import Read, ReadIndex

__all__ = ["UNVERIFIED", "Grounding", "Read", "ReadIndex", "answer_body", "check_answer", "split_goal"]


@dataclass(frozen=True)
class Grounding:
    claims: list[Claim]
    parts: list[PartCheck]


def check_answer(
    markdown: str,
    parts: Sequence[str],
    reads: ReadIndex,
    given: str,
    worked: Sequence[str] = (),
    *,
    exhausted: bool = False,
) -> Grounding:
    """The claims of a deliverable and the goal's parts, each checked (see the submodules).
    `exhausted`: every source was read whole, or searched for the parts' words."""
    body = answer_body(markdown)
    clauses = answer_clauses(body)
    claims = check_claims(body, reads, given, worked, clauses)
    questions = [p for p in parts if is_question(p)]
    computed = [c for c in claims if c.status == "computed"]
    proven = iter(prove(questions, body, reads.units, exhausted=exhausted, computed=computed))
    done, phrases = check_instructions(
        [p for p in parts if not is_question(p)], clauses, claims, reads, given
    )
    told = iter(done)
    checked = [_quoted(next(proven), reads) if is_question(p) else next(told) for p in parts]
    return Grounding(claims=claims + phrases, parts=checked)


def _quoted(check: PartCheck, reads: ReadIndex) -> PartCheck:
    """An answered part whose quotes are not all in what was read is not proven."""
    missing = [q for q in check.quotes if not occurs(q, reads.reads)]
    if not check.answered or not missing:
        return check
    why = f"{missing[0].source}:{missing[0].line} is quoted but not in what was read"
    return check.model_copy(update={"answered": False, "why": why})
