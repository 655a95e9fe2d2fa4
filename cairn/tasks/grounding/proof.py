"""Each question of a goal proven by quotes: the value the answer gives and the lines read that
state it, or what no line states.

A question part is answered when the lines read hold a quote chain for it (`chains`) and every
chain found gives one value, which the answer states. Several values (`Caroline researched
adoption agencies` and, elsewhere, `transgender rights`) prove nothing: the answer cannot be
checked against one of them. A figure Cairn worked out (`1260000 / 8400 = 150`) is proven by the
lines stating its operands, when together they state what the part asks (its unit aside).

When no chain exists, the verdict names the words no line states, with the nearest line:
"no line read states p99 (of notification service); nearest: source:slo.md:7 ...". After every
source was read (or searched for the part's words), that is "the files read do not say", and the
task stops there, incomplete: lemmas cannot tell a fact the files leave out from one they state in
other words, nor a question's misspelt name ("Jean" for "Gina", in a LoCoMo question) from a name
no file has, so "the files do not say" is never a complete answer.

>>> from cairn.tasks.grounding.units import units_of
>>> text = "## Team Falcon\\nTeam Falcon owns billing. It is led by Priya Nandakumar."
>>> index = UnitIndex(units_of("source:t.md", text))
>>> [(p.answered, p.value) for p in prove(["Who leads Team Falcon?"], "Priya Nandakumar leads it.", index)]
[(True, 'Priya Nandakumar')]
>>> print(prove(["Which office does Team Falcon sit in?"], "Lisbon.", index)[0].why)
no line read states office sit of team falcon; nearest, without office, sit: source:t.md:2 Team Falcon › ...

"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cairn.core import Claim, PartCheck, QuotedLine
from cairn.tasks.grounding import figures
from cairn.tasks.grounding.answer_text import clauses, sentences
from cairn.tasks.grounding.answer_values import Value, states
from cairn.tasks.grounding.asked import Asked, parse
from cairn.tasks.grounding.chains import Chain, UnitIndex
from cairn.tasks.grounding.formats import as_markdown
from cairn.tasks.grounding.lemmas import content_terms, term, tokens
from cairn.tasks.grounding.lexicon import FRAME
from cairn.tasks.grounding.reads import Read
from cairn.tasks.grounding.units import Unit

NOT_STATED = "The files read do not say"
_EMPHASIS_MARKS = re.compile(r"\*+|__|`+")
_SPACE_BEFORE = re.compile(r"\s+([:;,.!?])")


def prove(
    parts: Sequence[str],
    answer: str,
    index: UnitIndex,
    *,
    exhausted: bool = False,
    computed: Sequence[Claim] = (),
) -> list[PartCheck]:
    """A proof (or its absence) for each question part. `exhausted`: every source was read or
    searched for every part's words. `computed`: the answer's figures Cairn worked out."""
    checks: list[PartCheck] = []
    earlier: list[tuple[Asked, PartCheck]] = []
    for part in parts:
        asked = parse(part)
        check = _prove(asked, earlier, answer, index, exhausted, computed)
        checks.append(check)
        earlier.append((asked, check))
    return checks


def _prove(
    asked: Asked,
    earlier: list[tuple[Asked, PartCheck]],
    answer: str,
    index: UnitIndex,
    exhausted: bool,
    computed: Sequence[Claim],
) -> PartCheck:
    if asked.kind in ("yesno", "reason"):
        return PartCheck(part=asked.part, answered=False, why=_unprovable(asked))
    for bound in _bindings(asked, earlier):
        found = index.chains(bound)
        if found:
            return _judged(bound, found, answer)
    if (worked := _worked(asked, computed, index, answer)) is not None:
        return worked
    return _unstated(asked, index, exhausted)


def _bindings(asked: Asked, earlier: list[tuple[Asked, PartCheck]]) -> list[Asked]:
    """The part as asked, or, when a pronoun stands for something an earlier part named, with it
    bound to that part's object (`the billing service`), then to that part's answer."""
    if not asked.pointer or not earlier:
        return [asked]
    before, check = earlier[-1]
    options = []
    if words := _object(before):
        options.append(asked.bind(words, " ".join(sorted(words))))
    if check.value:  # what the lines read give it, whether or not the answer said it
        options.append(asked.bind(frozenset(content_terms(check.value)), check.value))
    return options or [asked]


def _object(asked: Asked) -> frozenset[str]:
    """What a question asks about past its verb: `which team owns the billing service` -> billing,
    service."""
    words = [t for t in _ordered_terms(asked.part) if t != asked.head]
    return frozenset(words[1:]) if len(words) > 1 else frozenset()


def _ordered_terms(text: str) -> list[str]:
    """A question's terms in order, past its first (the wh-noun of `which team ...`)."""
    return _in_order(text)[1:]


def _in_order(text: str) -> list[str]:
    found = tokens(text)
    return [term(t, n == 0) for n, t in enumerate(found) if t.lower not in FRAME and t.lemma not in FRAME]


def _judged(asked: Asked, found: list[Chain], answer: str) -> PartCheck:
    distinct: dict[object, Chain] = {}
    for chain in sorted(found, key=lambda c: (len(c.units), c.units[0].source, c.units[0].line)):
        distinct.setdefault(chain.value.key, chain)
    if len(distinct) > 1:
        given = "; ".join(f"{c.value.text} ({_at(c.units[0])})" for c in list(distinct.values())[:3])
        return PartCheck(part=asked.part, answered=False, why=f"the lines read give several answers: {given}")
    chain = next(iter(distinct.values()))
    quotes = [quoted(u) for u in chain.units]
    if states(answer, chain.value, asked):
        if other := _another_day(answer, chain.value, asked):
            why = f"it also gives {other}, which no line read says of it"
            return PartCheck(part=asked.part, answered=False, value=chain.value.text, quotes=quotes, why=why)
        return PartCheck(part=asked.part, answered=True, value=chain.value.text, quotes=quotes)
    why = f"the lines read give {chain.value.text} ({_at(chain.units[0])}); the answer does not say it"
    return PartCheck(part=asked.part, answered=False, value=chain.value.text, quotes=quotes, why=why)


def _another_day(answer: str, value: Value, asked: Asked) -> str | None:
    """A second day beside the proven one in the same clause (`on 19 January and 20 January`):
    one event has one day, so one of them is said of something else."""
    if value.kind != "date":
        return None
    own = figures.dates(asked.part)
    for clause in answer_clauses(answer):
        if not states(clause, value, asked):
            continue
        for day in figures.dates(clause):
            if not states(day.text, value, asked) and not any(day.matches(o) for o in own):
                return day.text
    return None


def _worked(asked: Asked, computed: Sequence[Claim], index: UnitIndex, answer: str) -> PartCheck | None:
    """A figure of the asked unit that Cairn computed, proven by the lines of its operands."""
    if asked.kind != "figure" or not asked.unit:
        return None
    for claim in computed:
        stated = figures.figures(claim.text)
        if not stated or stated[0].unit not in (asked.unit, None):
            continue
        operands = figures.figures(claim.where.rpartition(" = ")[0])
        lines = [u for f in operands if (u := _stating(index, f)) is not None]
        held = frozenset().union(*(u.forms for u in lines)) if lines else frozenset()
        wanted = asked.terms - content_terms(asked.unit) - {asked.head or ""}
        if len(lines) == len(operands) and wanted <= held:
            # Both operands may stand on one line: each line is quoted once.
            quotes = [quoted(u) for u in dict.fromkeys(lines)]
            return PartCheck(
                part=asked.part, answered=True, value=f"{claim.text} ({claim.where})", quotes=quotes
            )
    return None


def _stating(index: UnitIndex, figure: figures.Figure) -> Unit | None:
    for unit in index.units:
        if any(figures.same_value(f.value, figure.value) for f in figures.figures(unit.said)):
            return unit
    return None


def _unstated(asked: Asked, index: UnitIndex, exhausted: bool) -> PartCheck:
    """No chain: the words no line states beside the rest, with the nearest line."""
    own = asked.attribute - asked.names
    nearest = max(
        index.holding(asked.attribute),
        key=lambda u: (len(own & u.forms), len(asked.terms & u.forms), not u.heading, -len(u.text)),
        default=None,
    )
    order = _in_order(asked.part)
    asks = [t for t in order if t in asked.attribute - asked.names]
    about = [t for t in order if t in asked.subject]
    lacks = [t for t in order if t in asked.terms - (nearest.forms if nearest else frozenset())]
    of = f" of {' '.join(about)}" if about else ""
    near = f"; nearest, without {', '.join(lacks)}: {_at(nearest)} {nearest.shown[-160:]}" if nearest else ""
    why = f"no line read states {' '.join(asks) or 'it'}{of}{near}"
    if exhausted:
        why = f"{NOT_STATED}: {why}"
    quotes = [quoted(nearest)] if nearest else []
    # Never answered: lemmas cannot tell a fact the files leave out from one they say otherwise,
    # nor a question's misspelt name ("Jean" for "Gina") from a name no file has.
    return PartCheck(
        part=asked.part,
        answered=False,
        not_stated=exhausted,
        why=why,
        quotes=quotes,
    )


def _unprovable(asked: Asked) -> str:
    if asked.kind == "yesno":
        return "a yes or no is not a value any line states: the answer cannot be checked by quotes"
    return "it asks for a reason or a list, which no single quoted value gives: the answer cannot be checked"


def proof_markdown(checks: Sequence[PartCheck]) -> str:
    """The `## Proof` section of a deliverable: each question, its answer, the lines that state it
    (or why none does).

    >>> line = QuotedLine(source="source:d/t.md", line=3, text="Lead: Priya.", context="Team Falcon")
    >>> check = PartCheck(part="Who leads Team Falcon?", answered=True, value="Priya", quotes=[line])
    >>> print(proof_markdown([check]))
    ## Proof
    <BLANKLINE>
    **Who leads Team Falcon?** Priya
    > source:d/t.md:3 Team Falcon › Lead: Priya.
    <BLANKLINE>
    """
    lines = ["## Proof", ""]
    for check in checks:
        said = check.value if check.answered and check.value else f"not proven: {check.why}"
        if check.answered and not check.value:
            said = check.why or "answered"
        lines.append(f"**{check.part}** {said}")
        shown = check.quotes if check.answered or check.value else check.quotes[:1]
        lines += [f"> {q.shown()}" for q in shown]
        lines.append("")
    return "\n".join(lines)


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


__all__ = ["NOT_STATED", "Value", "occurs", "proof_markdown", "prove", "quoted"]
