"""The parts of a goal (each question it asks, each thing it asks for), and which the answer answers.

A goal is split once, when the task starts: at sentence ends, and where a question joins a second
one (`..., and what is its budget?`). A sentence that neither asks nor instructs (`The notes are in
docs.`) is context, not a part; a goal with no part is one part.

A question is answered by a clause of the answer that shares words with it (the clauses sharing
most, when the question leaves the kind of answer open; any clause, when none shares a word and
the goal asks one thing or the answer is short) and holds a
supported claim of the kind the question asks for: a name for `who` (a person or a team, not an
acronym), a date or figure for `when`, a figure for `how many`. A clause with no figure, date,
name or quote answers through its own words (`adoption agencies`), when a line of what the task
read holds them all. An instruction (`Summarise the notes`) is answered by any supported claim.

>>> split_goal("Which team owns the billing service, and what is its p95 latency budget?")
['Which team owns the billing service', 'what is its p95 latency budget?']
>>> split_goal("The notes are in docs. Summarise them, citing each note.")
['Summarise them, citing each note.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cairn.memory.embed.words import FUNCTION_WORDS
from cairn.memory.models import Claim, ClaimKind, PartCheck
from cairn.tasks.grounding.answer_text import sentences, terms
from cairn.tasks.grounding.claims import Given
from cairn.tasks.grounding.figures import UNITS, figures
from cairn.tasks.grounding.reads import ReadIndex

_AUX = "is are was were does do did can could will would should has have had shall may might must"
_WH = "who whom whose what which when where why how"
_ASKS = frozenset(f"{_AUX} {_WH}".split())
_INSTRUCT_TEXT = (
    "list name give find summarise summarize write explain describe compare compute calculate "
    "count tell state report identify show create make build implement add fix answer provide "
    "determine estimate check say outline extract collect gather draft prepare rank sort translate "
    "convert produce generate update refactor test document review analyse analyze evaluate "
    "assess recommend suggest propose plan design define"
)
_INSTRUCTS = frozenset(_INSTRUCT_TEXT.split())  # a sentence opening with one of these asks for it
_JOIN = re.compile(rf",?\s+(?:and|but|also|then)\s+(?=(?:{'|'.join(_ASKS)})\b)", re.I)
_FRAME = frozenset(f"{_AUX} {_WH} please tell me us".split())
_LABELS = frozenset(("question", "goal", "task", "answer"))  # `Question: ...` restates; it answers nothing
_FRAME_TERMS = frozenset(t for w in _FRAME | FUNCTION_WORDS for t in terms(w))
_UNIT_ASKED = re.compile(r"\bhow (long|many|much)\b(?:\s+(\w+))?", re.I)
_TIME_UNITS = frozenset({"ms", "s", "min", "h", "day", "week", "month", "year"})
ABOUT = 0.5  # share of a part's words a line must hold to be speaking of what the part asks
_LABEL_TERMS = frozenset(t for w in _LABELS for t in terms(w))
# What kind of claim a part's opening words ask for (None: any).
_WANTS: list[tuple[re.Pattern[str], tuple[ClaimKind, ...]]] = [
    (re.compile(r"^(?:who|whom|whose)\b|\bwhich (?:person|team|people|company)\b", re.I), ("name",)),
    (re.compile(r"^when\b|\bwhat (?:date|day|month|year|time)\b", re.I), ("date", "figure")),
    (
        re.compile(
            r"^how (?:many|much|long|far|old|big|large|often|fast)\b|\bwhat (?:percentage|number)\b", re.I
        ),
        ("figure", "date"),
    ),
]


def split_goal(goal: str) -> list[str]:
    """The parts a goal asks, in order (at least one)."""
    parts = [piece for sentence in sentences(goal) for piece in _JOIN.split(sentence)]
    asked = [p.strip() for p in parts if _asks(p)]
    return asked or [" ".join(goal.split())]


def _asks(piece: str) -> bool:
    first = (re.findall(r"[A-Za-z']+", piece)[:1] or [""])[0].lower()
    return piece.rstrip().endswith("?") or first in _ASKS or first in _INSTRUCTS


def wants(part: str) -> tuple[ClaimKind, ...] | None:
    """The claim kinds that can answer this part (None: any kind)."""
    return next((kinds for pattern, kinds in _WANTS if pattern.search(part.strip())), None)


def wanted_unit(part: str) -> str | None:
    """The unit a `how many days`, `how long` or `how many litres` question asks its figure in.

    >>> wanted_unit("How many days of water does it hold?"), wanted_unit("How long does it take?")
    ('day', 'time')
    """
    match = _UNIT_ASKED.search(part)
    if match is None:
        return None
    if match.group(1).lower() == "long":
        return "time"
    return UNITS.get(match.group(2).lower()) if match.group(2) else None


def check_parts(
    parts: Sequence[str], clauses: Sequence[str], claims: Sequence[Claim], reads: ReadIndex, given: str
) -> tuple[list[PartCheck], list[Claim]]:
    """Each part answered or not, and the phrase claims made on the way (short answers with no
    figure, date, name or quote, checked by their words)."""
    checks: list[PartCheck] = []
    phrases: list[Claim] = []
    said = set().union(*(terms(clause) for clause in clauses)) if clauses else set()
    for part in parts:
        focus = terms(part) - _FRAME_TERMS
        check, phrase = _check(part, focus, len(parts), clauses, claims, reads, given, said)
        checks.append(check)
        phrases += [phrase] if phrase and phrase not in phrases else []
    return checks, phrases


def _check(
    part: str,
    focus: set[str],
    n_parts: int,
    clauses: Sequence[str],
    claims: Sequence[Claim],
    reads: ReadIndex,
    given: str,
    said: set[str],
) -> tuple[PartCheck, Claim | None]:
    kinds, unit = wants(part), wanted_unit(part)
    candidates = _candidates(part, n_parts, clauses, strict=kinds is None)
    if not candidates:
        return PartCheck(part=part, answered=False, why="no sentence of the answer is about it"), None
    off_topic: list[Claim] = []
    asks = _is_question(part)  # an instruction (`Summarise the notes`) takes any supported claim
    for clause in candidates:
        fitting = [c for c in claims if c.clause == clause and c.supported and _fits(c, kinds, unit)]
        of_it = [c for c in fitting if not asks or _said_of(c, focus, reads, said if kinds else set())]
        off = [c for c in fitting if c not in of_it]
        if of_it and not any(c.kind == "date" for c in off):
            return PartCheck(part=part, answered=True, clause=clause), None
        if of_it:  # "on 19 January and 20 January": one of them is said of something else
            return PartCheck(part=part, answered=False, clause=clause, why=_two_dates(off)), None
        off_topic += off
    phrase = _phrase(candidates, claims, reads, given) if kinds is None else None
    if phrase is not None and phrase.supported and (not asks or _said_of(phrase, focus, reads, set())):
        return PartCheck(part=part, answered=True, clause=phrase.clause), phrase
    why = _why(kinds, phrase, off_topic, unit)
    return PartCheck(part=part, answered=False, clause=candidates[0], why=why), phrase


def _two_dates(off: list[Claim]) -> str:
    dates = next(c.text for c in off if c.kind == "date")
    return f"{dates} is also given, and the files do not say it of what it asks"


def _said_of(claim: Claim, focus: set[str], reads: ReadIndex, bridges: set[str]) -> bool:
    """Whether the files state the claim where they speak of what the part asks about: the
    clause of a line that states it holds at least half of the part's words. 30 minutes is in
    the SLO file, but as how long a breach may last, not as a budget. A name may take one hop
    through a rare word the answer names (`bridges`): the incident names the recommendations
    service, the team page says who owns it. A figure or a date gets no hop: it must be stated
    beside what it measures (a transcript dates every line of a day alike). Arithmetic is
    stated nowhere: its operands were checked when it was worked out."""
    if claim.status == "computed":
        return True
    hop = bridges - focus if claim.kind == "name" else set()  # a dateline hops to any line of its day
    return reads.covering(reads.locate(claim), focus, ABOUT, bridges=hop) is not None


def _fits(claim: Claim, kinds: tuple[ClaimKind, ...] | None, unit: str | None = None) -> bool:
    if kinds is None:
        return True
    if kinds == ("name",) and claim.kind == "name" and claim.text.isupper() and len(claim.text) <= 5:
        return False  # `API`, `SLO`: a term, not who
    if unit and claim.kind == "figure":
        stated = figures(claim.text)
        said = stated[0].unit if stated else None
        return said is None or said == unit or (unit == "time" and said in _TIME_UNITS)
    return claim.kind in kinds


def _candidates(part: str, n_parts: int, clauses: Sequence[str], *, strict: bool) -> list[str]:
    """The clauses that may answer a part: for a question, those sharing its words; `strict`
    (a question whose kind of answer is open: `what is its budget?`), only those sharing most."""
    if not _is_question(part):
        return list(clauses)
    focus = terms(part) - _FRAME_TERMS
    shared = [(len(focus & terms(clause)), clause) for clause in clauses if not _restates(clause, part)]
    best = max((n for n, _ in shared), default=0)
    if best:
        return [clause for n, clause in shared if n == best or (n and not strict)]
    return list(clauses) if n_parts == 1 or len(clauses) <= 2 else []


def _restates(clause: str, part: str) -> bool:
    """A clause that says nothing but the part's words (and labels such as `Question:`)."""
    return terms(clause) <= terms(part) | _FRAME_TERMS | _LABEL_TERMS


def _is_question(part: str) -> bool:
    first = (re.findall(r"[A-Za-z']+", part)[:1] or [""])[0].lower()
    return part.rstrip().endswith("?") or first in _ASKS


def _phrase(candidates: list[str], claims: Sequence[Claim], reads: ReadIndex, given: str) -> Claim | None:
    """The first claim-free candidate's own words (those the goal does not say), checked."""
    with_claims = {c.clause for c in claims}
    asked = terms(given)
    for clause in candidates:
        if clause in with_claims:
            continue
        own = terms(clause) - asked - _LABEL_TERMS
        if own:
            support = reads.phrase(own)
            text = clause.rstrip(".!? ")
            if support is None:
                return Claim(text=text, kind="phrase", status="unsupported", clause=clause)
            return Claim(
                text=text,
                kind="phrase",
                status="supported",
                where=support.source,
                line=support.line,
                clause=clause,
            )
    return None


def _why(
    kinds: tuple[ClaimKind, ...] | None, phrase: Claim | None, off_topic: list[Claim], unit: str | None
) -> str:
    if off_topic:
        said = ", ".join(c.text for c in off_topic[:3])
        return f"{said}: in the files, but not where they speak of what it asks"
    if kinds:
        what = f"figure in {unit}s" if unit and unit != "time" else " or ".join(kinds)
        return f"the sentence about it states no supported {what}"
    if phrase is not None and not phrase.supported:
        return f"{phrase.text} is in no file read"
    return "the sentence about it states nothing the files read support"


__all__ = ["Given", "check_parts", "split_goal", "wants"]
