"""How a proof is shown and checked: the `## Proof` section of a deliverable, a quoted line made from
a unit, and whether a quote is in what the task read (case, spacing, emphasis and table layout
aside), whoever found it. What proves a question is the verifier's decision (`cairn.tasks.verify`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cairn.core import PartCheck, QuotedLine
from cairn.tasks.grounding.answer_text import clauses, sentences
from cairn.tasks.grounding.formats import as_markdown
from cairn.tasks.grounding.reads import Read
from cairn.tasks.grounding.units import Unit

NOT_STATED = "The files read do not say"
_EMPHASIS_MARKS = re.compile(r"\*+|__|`+")
_SPACE_BEFORE = re.compile(r"\s+([:;,.!?])")


def proof_markdown(checks: Sequence[PartCheck]) -> str:
    """The `## Proof` section of a deliverable: each question, what Cairn says of it (its proven
    value with the verifier's score, an unverified value and why, or that the files do not say
    it), and the lines that state it (or the nearest one).

    >>> line = QuotedLine(source="source:d/t.md", line=3, text="Lead: Priya.", context="Team Falcon")
    >>> asked = "Who leads Team Falcon?"
    >>> check = PartCheck(part=asked, answered=True, value="Priya", quotes=[line], score=0.97)
    >>> print(proof_markdown([check]))
    ## Proof
    <BLANKLINE>
    **Who leads Team Falcon?** Priya (verified, 0.97)
    > source:d/t.md:3 Team Falcon › Lead: Priya.
    <BLANKLINE>
    """
    lines = ["## Proof", ""]
    for check in checks:
        lines.append(f"**{check.part}** {_said(check)}")
        lines += [f"> {q.shown()}" for q in check.quotes]
        lines.append("")
    return "\n".join(lines)


def _said(check: PartCheck) -> str:
    score = f", {check.score:.2f}" if check.score is not None else ""
    if check.status == "proven":
        return f"{check.value} (verified{score})" if check.value else check.why or "answered"
    if check.status == "unverified":
        return f"Unverified: {check.value} ({check.why})"
    return f"not proven: {check.why}" if check.status == "open" else check.why


def answer_clauses(body: str) -> list[str]:
    return [clause for sentence in sentences(body) for clause in clauses(sentence)]


def occurs(quote: QuotedLine, reads: Sequence[Read]) -> bool:
    """Whether a quote is in what the task read from its source, case, spacing, emphasis and table
    layout aside: the check a quote must pass, whoever found it.

    >>> row = QuotedLine(source="a.md", line=2, text="| billing |  180 |")
    >>> occurs(row, [Read("a.md", "# SLO\\n|billing|180|")]), occurs(row, [Read("b.md", "|billing|180|")])
    (True, False)
    """
    wanted = _plain(quote.text)
    return bool(wanted) and any(
        read.source == quote.source
        and (wanted in _plain(read.text) or wanted in _plain(as_markdown(read.source, read.text)))
        for read in reads
    )


def _plain(text: str) -> str:
    """Lower case, one space, no emphasis marks, table bars as spaces, no space before a stop."""
    flat = " ".join(_EMPHASIS_MARKS.sub("", text.lower()).replace("|", " ").split())
    return _SPACE_BEFORE.sub(r"\1", flat)


def quoted(unit: Unit) -> QuotedLine:
    return QuotedLine(source=unit.source, line=unit.line, text=unit.text, context=unit.context)


def _at(unit: Unit) -> str:
    return f"{unit.source}:{unit.line}"


__all__ = ["NOT_STATED", "answer_clauses", "occurs", "proof_markdown", "quoted"]
