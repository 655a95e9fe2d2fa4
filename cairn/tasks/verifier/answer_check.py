"""An answer checked against what the task read, before any judge: its claims (a figure, a date,
a name, a quote on a line read), the value it gives each question of the goal with the lines
holding it (`part_values`), and each instruction answered by a supported claim.

>>> from cairn.tasks.grounding import Read, ReadIndex
>>> reads = ReadIndex([Read("d/slo.md", "| service | budget (ms) |\\n|---|---|\\n| billing | 180 |"),
...                    Read("d/team.md", "Team Falcon owns billing.")])
>>> found = check_answer("Team Falcon. Its budget is 6.43 ms.", ["Which team owns billing?"], reads, "")
>>> [c.reason() for c in found.claims if not c.supported], [(p.value, p.answered) for p in found.parts]
(['6.43 ms is in no file read'], [('Team Falcon', False)])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.core import Claim, PartCheck
from cairn.tasks.grounding.answer_text import UNPROVEN, answer_body
from cairn.tasks.grounding.claims import answer_clauses, check_claims
from cairn.tasks.grounding.parts import check_instructions, is_question
from cairn.tasks.grounding.reads import ReadIndex
from cairn.tasks.verifier.part_values import part_values


@dataclass(frozen=True)
class Grounding:
    """An answer's checked claims and the goal's parts."""

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
    """The claims of a deliverable and the goal's parts, each checked exactly. `given`: what people
    said (the goal, feedback); `worked`: the expressions Cairn evaluated; `exhausted`: every
    source was read whole, or searched for the parts' words."""
    body = answer_body(markdown).replace(UNPROVEN, "")  # Cairn's own mark, no claim of the answer
    clauses = answer_clauses(body)
    claims = check_claims(body, reads, given, worked, clauses)
    questions = [p for p in parts if is_question(p)]
    computed = [c for c in claims if c.status == "computed"]
    valued = iter(part_values(questions, body, reads.reads, exhausted=exhausted, computed=computed))
    done, phrases = check_instructions(
        [p for p in parts if not is_question(p)], clauses, claims, reads, given
    )
    told = iter(done)
    checked = [next(valued) if is_question(p) else next(told) for p in parts]
    return Grounding(claims=claims + phrases, parts=checked)


__all__ = ["Grounding", "check_answer"]
