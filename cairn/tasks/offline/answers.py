"""The offline model's answer to a question: the value the fitted reader rates best among what
the files read give, or that the files read do not say it.

For each question of the goal: the reader's best candidate when its scores pass the fitted
threshold (`cairn.tasks.verify`: it picks the answer, it proves nothing); else the one value the
structure of the lines read states (a table's cell under its column, a `Label: value` line, a
heading that is the value, a name beside the part's word under a heading that names the subject:
`cairn.tasks.verifier.structural`), as a reader of tables and labels would; else a figure of the
asked unit worked out from a stock and a daily rate (`report.derived`), when there is one; else
"The files read do not say" where a heading names the subject and no section holds the
question's words (`structural.unstated`), or when no line shares them; else the best candidate
all the same (Cairn marks it unverified). A goal that only instructs (`Summarise the notes`) gets
no answer here: the offline planner writes its cited report itself.

>>> text = "## Team Falcon\\nTeam Falcon owns billing. The team is led by Priya Nandakumar."
>>> inp = DeliverInput(goal="Who leads Team Falcon?", task_type="simple_question", deliverable="answer.md",
...     notes=[], excerpts=[Excerpt(source="source:d/t.md", text=text)])
>>> deliver(inp).answer
'Priya Nandakumar.'
"""

from __future__ import annotations

from cairn.tasks.grounding.parts import is_question, split_goal
from cairn.tasks.grounding.proof import NOT_STATED
from cairn.tasks.grounding.reads import Read, ReadIndex, passages
from cairn.tasks.messages.schemas import DeliverInput, DeliverOutput, Excerpt
from cairn.tasks.offline import text
from cairn.tasks.offline.report import derived
from cairn.tasks.verifier.structural import stated, unstated
from cairn.tasks.verify import Corpus, load_verifier, read_question
from cairn.tasks.verify.decision import scored, shown_value

__all__ = ["deliver"]


def deliver(inp: DeliverInput) -> DeliverOutput:
    """One line per question: its value, or that the files do not say it."""
    questions = [part for part in split_goal(inp.goal) if is_question(part)]
    if not questions:
        return DeliverOutput()
    reads = ReadIndex(read for excerpt in inp.excerpts for read in _reads(excerpt))
    read = Corpus(reads.units)
    said = [_said(question, read, reads.reads, inp) for question in questions]
    if len(said) == 1:
        return DeliverOutput(answer=said[0])
    return DeliverOutput(
        answer="\n".join(f"- {part} {line}" for part, line in zip(questions, said, strict=True))
    )


def _reads(excerpt: Excerpt) -> list[Read]:
    """An excerpt as reads: a file's words, or the passages a search or `find_lines` returned."""
    found = passages(excerpt.text)
    return found or [Read(excerpt.source, excerpt.text)]


def _said(question: str, read: Corpus, lines: list[Read], inp: DeliverInput) -> str:
    found, thresholds = scored(read_question(question), read, load_verifier())
    if found and found[0].probability >= thresholds.complete:
        return f"{shown_value(found[0].candidate, read)}."
    if (structured := stated(question, inp.goal, lines)) is not None:
        return f"{structured[0]}."
    if worked := derived(inp.goal, _sentences(inp)):
        return worked[0].removeprefix("- ")
    if found and not unstated(question, lines):
        return f"{shown_value(found[0].candidate, read)}."
    return f"{NOT_STATED}: {question.rstrip('?')}?"


def _sentences(inp: DeliverInput) -> list[tuple[float, str, str]]:
    return [(0.0, sentence, e.source) for e in inp.excerpts for sentence in text.sentences(e.text)]
