"""The offline model's answer to a question: the value a quote chain of the files gives, or that
the files read do not say it.

It answers by the rule the check applies (`cairn.tasks.grounding.proof`): for each question of
the goal, the one value the chains of the words read give; a figure of the asked unit worked out
from a stock and a daily rate (`report.derived`); else "The files read do not say ...". A goal
that only instructs (`Summarise the notes`) gets no answer here: the offline planner writes its
cited report itself.

>>> inp = DeliverInput(goal="Who leads Team Falcon?", task_type="simple_question", deliverable="answer.md",
...     notes=[], excerpts=[Excerpt(source="source:d/t.md", text="## Team Falcon\\nLead: Priya Nandakumar.")])
>>> deliver(inp).answer
'Priya Nandakumar.'
"""

from __future__ import annotations

from cairn.core import PartCheck
from cairn.tasks.grounding.parts import is_question, split_goal
from cairn.tasks.grounding.proof import NOT_STATED, prove
from cairn.tasks.grounding.reads import Read, ReadIndex, passages
from cairn.tasks.messages.schemas import DeliverInput, DeliverOutput, Excerpt
from cairn.tasks.offline import text
from cairn.tasks.offline.report import derived

__all__ = ["deliver"]


def deliver(inp: DeliverInput) -> DeliverOutput:
    """One line per question: its value, or that the files do not say it."""
    questions = [part for part in split_goal(inp.goal) if is_question(part)]
    if not questions:
        return DeliverOutput()
    reads = ReadIndex(read for excerpt in inp.excerpts for read in _reads(excerpt))
    proofs = prove(questions, "", reads.units)
    said = [_said(check, inp) for check in proofs]
    if len(said) == 1:
        return DeliverOutput(answer=said[0])
    return DeliverOutput(
        answer="\n".join(f"- {part} {line}" for part, line in zip(questions, said, strict=True))
    )


def _reads(excerpt: Excerpt) -> list[Read]:
    """An excerpt as reads: a file's words, or the passages a search or `find_lines` returned."""
    found = passages(excerpt.text)
    return found or [Read(excerpt.source, excerpt.text)]


def _said(check: PartCheck, inp: DeliverInput) -> str:
    if check.value and not check.why.startswith("the lines read give several"):
        return f"{check.value}."
    if check.why.startswith("the lines read give several"):
        return f"{check.why[0].upper()}{check.why[1:]}."
    if worked := derived(inp.goal, _sentences(inp)):
        return worked[0].removeprefix("- ")
    return f"{NOT_STATED}: {check.part.rstrip('?')}?"


def _sentences(inp: DeliverInput) -> list[tuple[float, str, str]]:
    return [(0.0, sentence, e.source) for e in inp.excerpts for sentence in text.sentences(e.text)]
