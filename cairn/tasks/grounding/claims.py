"""The claims a deliverable makes, each checked against what the task read.

Every figure, date, proper name and quoted value of the answer is a claim, unless the goal (or a
person's feedback) already says it: repeating the question is not a claim. A claim is
`supported` when a text the task read states it (`cairn.tasks.grounding.reads`), `computed` when
it is the result of Cairn's own arithmetic over supported figures (a `worked` expression from the
deliver step, or one operation on two figures the answer itself states), else `unsupported`.

>>> reads = ReadIndex([Read("d/slo.md", "| billing | 180 | ms |"), Read("d/t.md", "Team Falcon")])
>>> [(c.text, c.status) for c in check_claims("Team Falcon owns it; its budget is 6.43 ms.", reads, "")]
[('Team Falcon', 'supported'), ('6.43 ms', 'unsupported')]
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cairn.core import Claim, ClaimKind
from cairn.tasks.grounding import arithmetic, figures
from cairn.tasks.grounding.answer_text import clauses, sentences
from cairn.tasks.grounding.names import names, quotes
from cairn.tasks.grounding.reads import Read, ReadIndex, Support, normal

__all__ = ["Given", "Read", "ReadIndex", "answer_clauses", "check_claims"]

_OPERATIONS: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}


@dataclass(frozen=True)
class Given:
    """What the goal and a person's messages already state: never a claim of the answer."""

    text: str

    def states_name(self, words: Sequence[str]) -> bool:
        lowered = normal(self.text)
        return all(f" {w} " in f" {lowered} " or w in lowered.split() for w in words)

    def states_figure(self, claim: figures.Figure) -> bool:
        return any(figures.same_value(f.value, claim.value) for f in figures.figures(self.text))

    def states_date(self, claim: figures.Date) -> bool:
        return any(claim.matches(d) for d in figures.dates(self.text))

    def states_quote(self, value: str) -> bool:
        return normal(value) in normal(self.text)


def answer_clauses(body: str) -> list[str]:
    """The answer's clauses, in order: the units claims are found in and parts are answered by."""
    return [clause for sentence in sentences(body) for clause in clauses(sentence)]


def check_claims(
    body: str, reads: ReadIndex, given: str, worked: Sequence[str] = (), clause_list: list[str] | None = None
) -> list[Claim]:
    """Every claim of an answer's body (see `cairn.tasks.grounding.answer_text.answer_body`), checked.
    `worked`: expressions Cairn evaluated for this task (`"1260000 / 8400 = 150"`)."""
    said = Given(given)
    found: list[Claim] = []
    for clause in clause_list if clause_list is not None else answer_clauses(body):
        found += _clause_claims(clause, reads, said)
    return _computed(found, body, reads, worked)


def _clause_claims(clause: str, reads: ReadIndex, said: Given) -> list[Claim]:
    spans = figures.dates(clause)
    out: list[Claim] = []
    for date in spans:
        if not said.states_date(date):
            out.append(_claim(date.text, "date", reads.date(date), clause))
    for figure in figures.figures(clause, skip=[(d.start, d.end) for d in spans]):
        if not said.states_figure(figure):
            out.append(_claim(figure.text, "figure", reads.figure(figure), clause))
    for name in names(clause):
        if not said.states_name(name.words):
            out.append(_claim(name.text, "name", reads.words(name.words), clause))
    for quote in quotes(clause):
        if not said.states_quote(quote.text):
            out.append(_claim(quote.text, "quote", reads.quote(quote.text), clause))
    return out


def _claim(text: str, kind: ClaimKind, support: Support | None, clause: str) -> Claim:
    if support is None:
        return Claim(text=text, kind=kind, status="unsupported", clause=clause)
    return Claim(
        text=text, kind=kind, status="supported", where=support.source, line=support.line, clause=clause
    )


def _computed(claims: list[Claim], body: str, reads: ReadIndex, worked: Sequence[str]) -> list[Claim]:
    """Unsupported figures that Cairn's arithmetic over supported figures gives, marked computed."""
    stated = [f for f in figures.figures(body) if reads.number(f.value)]
    results = _worked_results(worked, reads) + _pair_results(stated)
    out = []
    for claim in claims:
        how = _derivation(claim, results) if claim.kind == "figure" and not claim.supported else None
        out.append(claim.model_copy(update={"status": "computed", "where": how}) if how else claim)
    return out


def _worked_results(worked: Sequence[str], reads: ReadIndex) -> list[tuple[float, str]]:
    """The value of each worked expression whose every number a source states."""
    results = []
    for expression in worked:
        line = arithmetic.worked(expression)
        if line is None:
            continue
        left, _, right = line.rpartition(" = ")
        operands = figures.figures(left)
        if operands and all(reads.number(f.value) for f in operands):
            results.append((float(figures.figures(right)[0].value), line))
    return results


def _pair_results(stated: list[figures.Figure]) -> list[tuple[float, str]]:
    """One operation on two figures the answer states and a source states too."""
    results = []
    for a, b in itertools.permutations(stated, 2):
        for symbol, op in _OPERATIONS.items():
            if symbol == "/" and b.value == 0:
                continue
            value = op(a.value, b.value)
            results.append((value, f"{a.text} {symbol} {b.text} = {_shown(value)}"))
    return results


def _derivation(claim: Claim, results: list[tuple[float, str]]) -> str | None:
    stated = figures.figures(claim.text)
    if len(stated) != 1:
        return None
    return next((how for value, how in results if figures.rounds_to(value, stated[0])), None)


def _shown(value: float) -> str:
    return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
