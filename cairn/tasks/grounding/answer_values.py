"""The answer a line gives to a part, and whether an answer states it.

A value is taken from the line that states the part's attribute, of the kind the part asks: a
name for `who` (nearest the asked word: `led by Priya Nandakumar`), the name beside the asked
noun for `which office` (`the Lisbon office`), a date for `when`, a figure for `how many`, and for
`what` the value of a `column: value` pair whose column holds the asked words, else a figure,
date or name in the same clause, else the words after the asked word up to the clause's end. A
value is never one of the part's own words.

>>> from cairn.tasks.grounding.asked import parse
>>> from cairn.tasks.grounding.units import units_of
>>> line = units_of("t.md", "The team is led by Priya Nandakumar and sits in the Lisbon office.")[0]
>>> value_in(line, parse("Who leads the team?")).text, value_in(line, parse("Which office is it?")).text
('Priya Nandakumar', 'Lisbon')
>>> states("Priya Nandakumar leads it.", value_in(line, parse("Who leads the team?")))
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from cairn.tasks.grounding import figures
from cairn.tasks.grounding.asked import Asked
from cairn.tasks.grounding.lemmas import Token, content_terms, forms, tokens
from cairn.tasks.grounding.lexicon import FRAME, PHRASE_LEADS, PHRASE_STOPS
from cairn.tasks.grounding.names import names
from cairn.tasks.grounding.units import Unit

ValueKind = Literal["name", "figure", "date", "phrase"]
PHRASE_WORDS = 5  # the longest phrase taken as an answer
_CLAUSE_END = re.compile(r"[.;!?—–()\[\]]|,\s|:\s|\s-\s")
_SEGMENT = re.compile(r";\s*")
_COLUMN_UNIT = re.compile(r"(?:\(([^()\d]{1,12})\)|\s([a-z%]{1,5}))\s*$")  # `budget (ms)`, `budget ms`
_RESOLVED = re.compile(r"(?<=\w) \(((?:the \w+ before )?[^()]*\d{4})\)")  # Cairn's dating of a relative day
_AT_PLACE = re.compile(r"\b(?:in|at|to|from|near|on|into|around|visited|visiting|visit)\s+(?:the\s+)?$", re.I)
_LABEL = re.compile(r"^[A-Z][\w'.-]*(?: [\w'.-]+){0,2}:\s+")


@dataclass(frozen=True)
class Value:
    """What a line answers: as written, its kind, and what two values compare by."""

    text: str
    kind: ValueKind
    key: tuple[object, ...]
    at: int = 0  # where in the line (for nearness)
    number: float = 0.0  # a figure's value
    unit: str | None = None  # a figure's unit
    words: frozenset[str] = frozenset()  # a name's or a phrase's own words
    relative: bool = False  # a date said as `the week before ...`: no one day


def value_in(unit: Unit, asked: Asked, known: frozenset[str] = frozenset()) -> Value | None:
    """The value `unit` gives to `asked`, or None (a yes/no part has none). `known`: the words
    the texts read write capitalised inside a sentence, so names; a sentence's first word is a
    name only when it is one of them (`Pets bring joy` names nothing)."""
    if asked.kind in ("yesno", "reason") or unit.text.rstrip("\"')] ").endswith("?"):
        return None  # a yes/no or a why has no value to quote; a line that asks states nothing
    said = unit.said
    near = _positions(said, asked) or [0]
    if asked.kind == "what" and (pair := _pair_value(said, asked)) is not None:
        return pair
    candidates = _candidates(unit, asked, known)
    if not candidates and asked.kind == "what":
        return _phrase(said, asked)
    return min(candidates, key=lambda v: min(abs(v.at - p) for p in near), default=None)


def _positions(text: str, asked: Asked) -> list[int]:
    wanted = asked.attribute - asked.names
    return [t.start for t in tokens(text) if t.lower in wanted or t.lemma in wanted]


def _candidates(unit: Unit, asked: Asked, known: frozenset[str]) -> list[Value]:
    said = unit.said
    if asked.kind == "date":
        return _dates(said, asked)
    if asked.kind == "figure":
        return _figures(said, asked)
    if asked.kind == "which":
        return _beside_head(unit, asked, known)  # `which office`: only the name beside `office` answers
    if asked.kind == "place":
        return [v for v in _names(said, asked, known) if _AT_PLACE.search(said[: v.at])]
    if asked.kind in ("name", "which"):
        return _names(said, asked, known)
    if asked.copula:  # `what is the usable storage ...`: a figure, a date or a name
        return _dates(said, asked) + _figures(said, asked) + _names(said, asked, known)
    return []  # `what did Caroline research`: the words after `research` (`_phrase`)


def _dates(text: str, asked: Asked) -> list[Value]:
    """The dates a line states, a relative day as Cairn dated it (`last week (the week before 22
    August 2022)`: the whole of what it means, not the date it counts from)."""
    own = figures.dates(asked.part)
    found: list[Value] = []
    taken: list[tuple[int, int]] = []
    for group in _RESOLVED.finditer(text):
        meant = figures.dates(group.group(1))
        if meant and not any(m.matches(o) or o.matches(m) for m in meant for o in own):
            found.append(_dated(group.group(1), meant, group.start()))
            taken.append(group.span())
    for d in figures.dates(text):
        inside = any(start <= d.start < end for start, end in taken)
        if not inside and not any(d.matches(o) or o.matches(d) for o in own):
            found.append(_dated(d.text, [d], d.start))
    return found


def _figures(text: str, asked: Asked) -> list[Value]:
    own = figures.figures(asked.part)
    found = []
    for f in figures.figures(text):
        if any(figures.same_value(f.value, o.value) for o in own):
            continue
        if asked.unit and f.unit and not _unit_fits(f.unit, asked.unit):
            continue
        key = ("figure", round(f.value, 6), f.unit)
        found.append(Value(f.text, "figure", key, f.start, number=f.value, unit=f.unit))
    return found


def _unit_fits(unit: str, wanted: str) -> bool:
    return unit == wanted or (
        wanted == "time" and unit in ("ms", "s", "min", "h", "day", "week", "month", "year")
    )


def _names(text: str, asked: Asked, known: frozenset[str] = frozenset()) -> list[Value]:
    found = []
    openers = _openers(text)
    for name in names(text):
        words = [w.strip("'’\"") for w in name.words]
        if name.start in openers and words[0] not in known:
            words = words[1:]  # `Pets bring joy`: capitalised for coming first
        if any(w in asked.terms for w in words) or any(w.startswith("i'") for w in words):
            continue  # `Embracing Identity`: the question's own word in a title is no answer to it
        own = [w for w in words if w not in FRAME]
        if own:
            found.append(_worded(name.text, "name", frozenset(own), name.start))
    return found


def _openers(text: str) -> set[int]:
    """Where the words capitalised for coming first start: the sentence's first word, and the
    first past a `Label:` (`Owning team: Team Stint`, `Correction: the budget ...`)."""
    found = tokens(text)
    starts = {found[0].start} if found else set()
    label = _LABEL.match(text)
    if label is None:
        return starts
    after = tokens(text[label.end() :])
    return starts | ({label.end() + after[0].start} if after else set())


def _beside_head(unit: Unit, asked: Asked, known: frozenset[str]) -> list[Value]:
    """`which office`: the name just before or after `office` (`the Lisbon office`, `Team Falcon`),
    in the line or the heading it stands under."""
    found: list[Value] = []
    for text, offset in ((unit.said, 0), (unit.context, -1)):
        words = tokens(text)
        openers = _openers(text)
        for n, t in enumerate(words):
            if t.lemma != asked.head and t.lower != asked.head:
                continue
            for other in (words[n - 1] if n else None, words[n + 1] if n + 1 < len(words) else None):
                if other is None or not other.capitalised or other.lower in asked.terms | FRAME:
                    continue
                if other.start in openers and other.lower not in known and text is unit.said:
                    continue  # `Plus pets are awesome`: capitalised for coming first
                if text[min(t.end, other.end) : max(t.start, other.start)].strip():
                    continue  # punctuation between: not one phrase
                whole = t.capitalised and other.start > t.start  # `Team Falcon`, not `Falcon`
                shown = text[t.start : other.end] if whole else other.text
                found.append(_worded(shown, "name", frozenset([other.lower]), offset))
    return found


def _pair_value(text: str, asked: Asked) -> Value | None:
    """In `column: value; column: value` (a table row, a `Lead: Tomas Berg` line), the value of
    the column holding most of the asked words (the asked word itself among equals: `Message`, not
    `Commit`, for `the commit message`)."""
    best: tuple[tuple[int, bool], Value] | None = None
    wanted = asked.attribute - asked.names
    offset = 0
    for segment in _SEGMENT.split(text):
        at = text.find(segment, offset)
        offset = at + len(segment)
        label, colon, rest = segment.partition(": ")
        if not colon or not rest.strip():
            continue
        said = forms(label)
        held = (len(wanted & said), asked.head in said)
        if not held[0] or (best and best[0] >= held):
            continue
        inner = _typed(rest, asked, at + len(label) + 2)
        if inner is not None and inner.kind == "figure" and inner.unit is None:
            inner = _with_unit(inner, label)
        value = inner or _phrase_value(rest.strip().rstrip("."), asked, at + len(label) + 2)
        if value is not None:
            best = (held, value)
    return best[1] if best else None


def _with_unit(value: Value, label: str) -> Value:
    """A table cell's figure with the unit its column names: `p95 latency budget (ms): 400` is 400 ms."""
    named = _COLUMN_UNIT.search(label)
    written = (named.group(1) or named.group(2) or "") if named else ""
    unit = figures.UNITS.get(written.lower())
    if unit is None:
        return value
    key = ("figure", value.key[1], unit)
    return replace(value, text=f"{value.text} {written}", unit=unit, key=key)


def _typed(text: str, asked: Asked, offset: int) -> Value | None:
    found = _dates(text, asked) + _figures(text, asked) + _names(text, asked)
    first = min(found, key=lambda v: v.at, default=None)
    return replace(first, at=first.at + offset) if first else None


def _phrase(text: str, asked: Asked) -> Value | None:
    """What the asked word does its work on: the words right after it, up to a preposition, a
    clause's end or a time (`researching adoption agencies`; `took my turtles to the beach`)."""
    head = asked.head
    words = tokens(text)
    at = next((n for n, t in enumerate(words) if head and (t.lemma == head or t.lower == head)), None)
    if at is None:
        return None
    taken: list[Token] = []
    for t in words[at + 1 :]:
        between = text[(taken[-1].end if taken else words[at].end) : t.start]
        if _CLAUSE_END.search(between) or t.lower in PHRASE_STOPS or len(taken) == PHRASE_WORDS:
            break
        if not taken and t.lower in PHRASE_LEADS:
            continue
        taken.append(t)
    while taken and taken[-1].lower in FRAME:
        taken = taken[:-1]
    if not taken or taken[0].lemma in asked.terms or taken[0].lower in FRAME:
        return None  # `made for a local church`: the question's own words again, no answer
    own = content_terms(" ".join(t.text for t in taken)) - asked.terms
    if not own:
        return None
    return _worded(text[taken[0].start : taken[-1].end], "phrase", frozenset(own), taken[0].start)


def _phrase_value(text: str, asked: Asked, at: int) -> Value | None:
    """A `column: value` pair's value, as written (a table cell, `Lead: Tomas Berg`)."""
    words = tokens(text)[:PHRASE_WORDS]
    own = content_terms(" ".join(t.text for t in words)) - asked.terms
    if not words or not own:
        return None
    shown = text[words[0].start : words[-1].end]
    return _worded(shown, "phrase", frozenset(own), at + words[0].start)


def _worded(text: str, kind: ValueKind, words: frozenset[str], at: int) -> Value:
    return Value(text, kind, (kind, words), at, words=words)


def _dated(text: str, meant: list[figures.Date], at: int) -> Value:
    """A day it names (`21 January 2022`), or what it says of the day it counts from (`the week
    before 22 August 2022`: no one day)."""
    if text.startswith("the ") and len(meant) == 1:
        key: tuple[object, ...] = ("date", "before", text.split()[1].lower(), *meant[0].key)
        return Value(text, "date", key, at, relative=True)
    return Value(text, "date", ("date", *meant[-1].key), at)


def _states_date(answer: str, value: Value) -> bool:
    meant = figures.dates(value.text)
    said = figures.dates(answer)
    if not meant:
        return False
    if not value.relative:
        return any(d.matches(meant[-1]) for d in said)  # a day the answer names must be stated
    words = content_terms(re.sub(r"\d+", " ", value.text))  # `week`, and the month it names
    return words <= forms(answer) and any(meant[0].matches(d) for d in said)


def states(answer: str, value: Value, asked: Asked | None = None) -> bool:
    """Whether an answer's text states `value` (a name's own words, the same figure or date, a
    phrase's content words)."""
    if value.kind == "figure":
        unit = value.unit
        return any(
            figures.same_value(f.value, value.number) and (unit is None or f.unit is None or f.unit == unit)
            for f in figures.figures(answer)
        )
    if value.kind == "date":
        return _states_date(answer, value)
    return bool(value.words) and value.words <= forms(answer)


__all__ = ["Value", "states", "value_in"]
