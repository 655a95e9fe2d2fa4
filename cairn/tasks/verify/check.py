"""Is the deliverable grounded? Its claims checked against what the task read, each question of
the goal judged by the verifier (proven, unverified, or not stated by the files), each instruction
answered by a supported claim.

>>> from cairn.tasks.grounding import Read, ReadIndex
>>> reads = ReadIndex([Read("d/slo.md", "| service | budget (ms) |\\n|---|---|\\n| billing | 180 |"),
...                    Read("d/team.md", "Team Falcon owns billing.")])
>>> parts = ["Which team owns billing?", "What is its budget?"]
>>> found = check_answer("Team Falcon owns it, and its budget is 6.43 ms.", parts, reads, "")
>>> [c.reason() for c in found.claims if not c.supported], [p.status for p in found.parts]
(['6.43 ms is in no file read'], ['unverified', 'unverified'])
>>> [p.value for p in found.parts]  # the answer's own: a value of the files, and words no line gives
['Team Falcon', 'its budget is 6.43 ms']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.core import Claim, ModelJudgement, PartCheck
from cairn.tasks.grounding.answer_text import UNPROVEN, answer_body
from cairn.tasks.grounding.claims import answer_clauses, check_claims
from cairn.tasks.grounding.parts import check_instructions, is_question
from cairn.tasks.grounding.proof import occurs
from cairn.tasks.grounding.reads import ReadIndex
from cairn.tasks.verify.corpus import Corpus
from cairn.tasks.verify.model import ModelKind, Verifier
from cairn.tasks.verify.questions import prove


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
    verifier: Verifier | None = None,
    kind: ModelKind = "offline",
    judged: Sequence[ModelJudgement] = (),
) -> Grounding:
    """The claims of a deliverable and the goal's parts, each checked. `exhausted`: every source
    was read whole, or searched for the parts' words; `kind`, `judged`: the model kind the verifier
    decides for, and a served model's yes/no on candidates."""
    body = answer_body(markdown).replace(UNPROVEN, "")  # Cairn's own mark, no claim of the answer
    clauses = answer_clauses(body)
    claims = check_claims(body, reads, given, worked, clauses)
    questions = [p for p in parts if is_question(p)]
    computed = [c for c in claims if c.status == "computed"]
    read = Corpus(reads.units)
    found = prove(
        questions,
        body,
        read,
        exhausted=exhausted,
        computed=computed,
        verifier=verifier,
        kind=kind,
        judged=judged,
    )
    proven = iter(found)
    done, phrases = check_instructions(
        [p for p in parts if not is_question(p)], clauses, claims, reads, given
    )
    told = iter(done)
    checked = [_quoted(next(proven), reads) if is_question(p) else next(told) for p in parts]
    return Grounding(claims=claims + phrases, parts=checked)


def _quoted(check: PartCheck, reads: ReadIndex) -> PartCheck:
    """A proven part whose quotes are not all in what was read is not proven."""
    missing = [q for q in check.quotes if not occurs(q, reads.reads)]
    if not check.answered or not missing:
        return check
    why = f"{missing[0].source}:{missing[0].line} is quoted but not in what was read"
    return check.model_copy(update={"answered": False, "why": why})


__all__ = ["Grounding", "check_answer"]
