"""Each question of a goal judged by the verifier: the value the answer gives (or the best the
files give), proven, unverified, or absent; with the line that says it.

A question that points back (`..., and what is its budget?`) is asked with the rarest words of the
question before it (`billing`). A figure Cairn worked out (`1260000 / 8400 = 150`) is proven by
the lines stating its operands, when together they state what the question asks (`worked`).

>>> from cairn.tasks.grounding.units import units_of
>>> text = "## Team Falcon\\nTeam Falcon owns billing. Lead: Priya Nandakumar."
>>> read = Corpus(units_of("source:t.md", text))
>>> answer = "Priya Nandakumar leads it."
>>> [(p.status, p.value) for p in prove(["Who leads Team Falcon?"], answer, read)]
[('proven', 'Priya Nandakumar')]
>>> prove(["Who leads Team Falcon?"], "", read)[0].value  # no answer: the best the files give
'Priya Nandakumar'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from cairn.core import Claim, ModelJudgement, PartCheck
from cairn.tasks.grounding import figures
from cairn.tasks.grounding.lexicon import THIRD_PERSON_PRONOUNS
from cairn.tasks.grounding.proof import NOT_STATED, answer_clauses, quoted
from cairn.tasks.grounding.units import Unit
from cairn.tasks.verify.corpus import Corpus
from cairn.tasks.verify.decision import Judgement, ModelSays, judge, scored
from cairn.tasks.verify.model import ModelKind, Verifier
from cairn.tasks.verify.question import Question, read_question
from cairn.tasks.verify.stated import gives
from cairn.tasks.verify.tokens import forms_of, words

BOUND = 2  # the earlier question's rarest words a pointing question is asked with


def prove(
    parts: Sequence[str],
    answer: str,
    read: Corpus,
    *,
    exhausted: bool = False,
    computed: Sequence[Claim] = (),
    verifier: Verifier | None = None,
    kind: ModelKind = "offline",
    judged: Sequence[ModelJudgement] = (),
) -> list[PartCheck]:
    """A judgement for each question part (see the module docstring). `exhausted`: every source
    was read or searched for every part's words; `computed`: the figures Cairn worked out;
    `judged`: a served model's yes/no on candidates."""
    checks: list[PartCheck] = []
    earlier: Question | None = None
    for part in parts:
        asked = _bound(read_question(part), earlier, read)
        said = _said(answer, part, parts)
        model_says: ModelSays = {(j.value, j.source, j.line): j.p_yes for j in judged if j.part == part}
        found = judge(
            asked,
            read,
            verifier,
            said=partial(_gives, said, part),
            exhausted=exhausted,
            kind=kind,
            model_says=model_says,
        )
        check = _check(part, found, said)
        if not check.answered and (worked := _worked(asked, computed, read)) is not None:
            check = worked
        checks.append(check)
        earlier = asked
    return checks


def _gives(answer: str, part: str, value: str, line: str) -> bool:
    return gives(answer, value, line, part)


def _bound(asked: Question, earlier: Question | None, read: Corpus) -> Question:
    """A question with a pronoun and no name, asked with the rarest words of the one before."""
    points = any(w.lower in THIRD_PERSON_PRONOUNS for w in asked.words[1:])
    if earlier is None or not points or asked.names:
        return asked
    words = [t for t in earlier.terms if t != earlier.head and t not in asked.terms]
    rarest = sorted(words, key=lambda t: -read.rarity(t))[:BOUND]
    return replace(asked, terms=asked.terms + tuple(rarest))


def _said(answer: str, part: str, parts: Sequence[str]) -> str:
    """What the answer says of one part: its line that repeats the part; else, when the goal asks
    several, the clauses sharing most words with this part rather than another; else the whole
    answer; the parts' own words left out (a value the question names is not given by repeating it)."""
    asking = part.rstrip("?").strip().lower()
    lines = [line for line in answer.splitlines() if asking and asking in line.lower()]
    said = "\n".join(lines) if lines and len(parts) > 1 else answer
    if len(parts) > 1 and not lines:
        said = _clauses_of(answer, part, parts) or answer
    for asked in parts:  # as written, or as the deliverable writes it (`What is its budget?`)
        said = re.sub(re.escape(asked.strip().rstrip("?")) + r"\??", " ", said, flags=re.I)
    return re.sub(r"(?m)^[\s?*:-]+", "", said)


def _clauses_of(answer: str, part: str, parts: Sequence[str]) -> str:
    """The answer's clauses that share more of this part's words than of any other part's."""
    terms = {p: set(read_question(p).terms) for p in parts}
    mine = []
    for clause in answer_clauses(answer):
        said = forms_of(words(clause))
        shares = {p: len(t & said) for p, t in terms.items()}
        if shares[part] and shares[part] == max(shares.values()):
            mine.append(clause)
    return "; ".join(mine)


def _check(part: str, found: Judgement, said: str) -> PartCheck:
    """The judgement as the part's check. An unverified part shows the answer's own value: its
    candidate, or, when no line read gives what the answer says, the answer's own words (Cairn is
    never less right than its model), with the files' best line as the nearest."""
    quotes = [quoted(found.quote)] if found.quote is not None else []
    score = found.probability
    if found.status == "proven":
        return PartCheck(part=part, answered=True, value=found.value, quotes=quotes, score=score)
    if found.status == "absent":
        why = f"{NOT_STATED}: {found.why}"
        return PartCheck(part=part, answered=False, not_stated=True, why=why, quotes=quotes, score=score)
    own = _own_words(said)
    if not found.given and own and not said_absent(said):
        why = f"no line read gives what the answer says; the files' best: {found.value or 'none'}"
        return PartCheck(part=part, answered=False, value=own, quotes=quotes, why=why, score=None)
    return PartCheck(part=part, answered=False, value=found.value, quotes=quotes, why=found.why, score=score)


def _own_words(said: str) -> str:
    """The answer's words for a part, in one line (its first sentence, without a list mark)."""
    text = " ".join(said.split()).strip(" -*:")
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return first.rstrip(".").strip()


def said_absent(said: str) -> bool:
    """Whether the answer says the files do not give it (in Cairn's words)."""
    return NOT_STATED.lower() in said.lower()


def to_judge(
    parts: Sequence[str], answer: str, read: Corpus, verifier: Verifier | None = None, per_part: int = 2
) -> list[tuple[str, str, Unit]]:
    """What a served model is asked to judge, per question part: the value the answer gives and
    the files' best candidate (each with its line), at most `per_part`, distinct."""
    asked: list[tuple[str, str, Unit]] = []
    earlier: Question | None = None
    for part in parts:
        q = _bound(read_question(part), earlier, read)
        said = _said(answer, part, parts)
        found, _ = scored(q, read, verifier, said=partial(_gives, said, part))
        chosen = [s for s in found if s.given][:1] + found[:per_part]
        for s in list({s.candidate.key: s for s in chosen}.values())[:per_part]:
            asked.append((part, s.candidate.text, read.sentences[s.candidate.sentence].unit))
        earlier = q
    return asked


def _worked(asked: Question, computed: Sequence[Claim], read: Corpus) -> PartCheck | None:
    """A figure of the asked unit that Cairn computed, proven by the lines of its operands when
    together they state what the question asks (the unit's own word aside)."""
    if asked.unit is None or asked.wh not in ("howmany", "howadj"):
        return None
    for claim in computed:
        stated = figures.figures(claim.text)
        if not stated or stated[0].unit not in (asked.unit, None):
            continue
        operands = figures.figures(claim.where.rpartition(" = ")[0])
        lines = [u for f in operands if (u := _stating(read, f)) is not None]
        held = frozenset().union(*(s.forms | s.around for s in read.sentences if s.unit in lines))
        wanted = {t for t in asked.terms if t != asked.head and not re.fullmatch(r"\d+", t)}
        if len(lines) == len(operands) and wanted <= held | {asked.unit}:
            quotes = [quoted(u) for u in dict.fromkeys(lines)]
            value = f"{claim.text} ({claim.where})"
            return PartCheck(part=asked.text, answered=True, value=value, quotes=quotes)
    return None


def _stating(read: Corpus, figure: figures.Figure) -> Unit | None:
    for s in read.sentences:
        if any(figures.same_value(f.value, figure.value) for f in figures.figures(s.unit.said)):
            return s.unit
    return None


__all__ = ["prove", "said_absent", "to_judge"]
