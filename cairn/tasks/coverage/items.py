"""The items of a kind that a line names: the rows a coverage goal's ledger has.

A line names an item of kind `service`:
- by a pair whose label holds the kind: `service: billing` (a table row, a CSV row, a JSON
  object), `Service note: calqui.`;
- in prose, by the words before the kind word after a determiner or at a sentence's start: `The
  ledger sync service is owned by ...`;
- as the subject of one of the goal's fields, asked the other way round: `the p95 latency budget
  of quirin is ...`, `the latency budget for quirin at p95`, `calqui is owned by ...`, `Team Wren
  owns ledger sync; ...` (the field `its p95 latency budget` and `the team that owns it`).
A section that names no item but states every field under a short heading (`## Achtes mirror`,
`- Owning team: ...`) is about the item its heading names; that rule is the ledger's
(`cairn.tasks.coverage.ledger`), which sees whole sections.

Names are compared without case and with hyphens as spaces, so the same item read from a table
and from a memo is one row; `ledger sync` and `ledger sync v2` stay two.

>>> from cairn.tasks.coverage.goal import coverage_goal
>>> from cairn.tasks.grounding.units import units_of
>>> spec = coverage_goal("For every service, list the team that owns it and its p95 budget.")
>>> names = Subjects(spec)
>>> [names.named(u) for u in units_of("a.md", "The ledger sync service is owned by Team Wren.")]
[['ledger sync']]
>>> [names.named(u) for u in units_of("m.md", "Correction: the p95 budget of quirin is 1330 ms.")]
[['quirin']]
>>> [names.named(u) for u in units_of("a.csv", "service,owner\\nbilling,Team Finch\\n")]
[['billing']]
"""

from __future__ import annotations

import re

from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.grounding.lemmas import Token, lemma, tokens
from cairn.tasks.grounding.lexicon import FRAME, ITEM_DETERMINERS, QUANTIFIERS
from cairn.tasks.grounding.units import Unit

MAX_NAME_WORDS = 4
_STOP = FRAME | ITEM_DETERMINERS | QUANTIFIERS
_SEGMENT = re.compile(r";\s*")
_NAME = r"(?P<x>[A-Za-z0-9][\w-]*(?: [A-Za-z0-9][\w-]*){0,3}?)"
_WHO_FIELD = re.compile(r"^(?:the\s+)?\w+\s+(?:that|which|who)\s+(?P<verb>\w+)\s+(?:it|them)$", re.I)
_NOUN_FIELD = re.compile(r"^(?:its|their|the)?\s*(?:[\w-]+\s+)*?(?P<noun>\w+)$", re.I)


def key(name: str) -> str:
    """How two names of one item compare: `Ledger-Sync` is `ledger sync`."""
    return " ".join(re.sub(r"[-_]+", " ", name.lower()).split()).strip(" .,:;\"'`")


class Subjects:
    """Finds the items of a coverage goal's kind that a line names (see the module docstring)."""

    def __init__(self, spec: CoverageGoal) -> None:
        self.kind = spec.kind
        self._patterns = [p for field in spec.fields for p in _field_patterns(field)]

    def named(self, unit: Unit) -> list[str]:
        """The names of the items `unit` names, as written."""
        text = unit.said
        found = (
            _paired(text, self.kind)
            or _in_prose(text, self.kind)
            or self._as_subject(text)
            or _file_named(unit)
            or _first_value(text)
        )
        return list(dict.fromkeys(n for n in found if _usable(n)))

    def _as_subject(self, text: str) -> list[str]:
        return [m["x"] for pattern in self._patterns for m in pattern.finditer(text)]


def _field_patterns(field: str) -> list[re.Pattern[str]]:
    """How a line states a field of an item named X: `X is owned by`, `owns X;` for `the team that
    owns it`; `budget of X is`, `budget for X at` for `its p95 latency budget`."""
    if found := _WHO_FIELD.match(field.strip()):
        verb = lemma(found["verb"].lower())
        done, does = _past(verb), f"{verb}s"
        return [
            re.compile(rf"(?:^|[,;:]\s*|\b(?:the)\s+){_NAME} (?:is|was|are|were) {done}\b", re.I),
            re.compile(rf"\b{does} (?:the )?{_NAME}(?=\s*(?:[;,.]|$|\s(?:and|which|with|since)\b))", re.I),
        ]
    if found := _NOUN_FIELD.match(field.strip()):
        noun = found["noun"]
        return [
            re.compile(
                rf"\b{noun}s? (?:of|for) (?:the )?{_NAME}(?= (?:is|was|are|at|stays|remains)\b|:)", re.I
            )
        ]
    return []


def _past(verb: str) -> str:
    return f"{verb}d" if verb.endswith("e") else f"{verb}ed"


def _usable(name: str) -> bool:
    words = key(name).split()
    return bool(words) and not all(w in _STOP for w in words) and words[0] not in ("it", "they", "this")


def _paired(text: str, kind: str) -> list[str]:
    """`service: billing`, `Service note: calqui` (a label of at most three words holding the kind)."""
    names = []
    for segment in _SEGMENT.split(text):
        label, colon, value = segment.partition(": ")
        words = [t.lemma for t in tokens(label)]
        if colon and value.strip() and kind in words and len(words) <= 3:
            names.append(re.split(r"[.;]\s", value.strip(), maxsplit=1)[0].rstrip("."))
    return names


def _file_named(unit: Unit) -> list[str]:
    """A note whose file is named after what it says it is about: `iltor-gate.md` saying
    `Iltor gate is stewarded by ...` (the name as the text writes it)."""
    stem = unit.source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    wanted = key(stem)
    if not wanted or wanted.isdigit():
        return []
    found = re.search(r"\b" + r"[\s_-]+".join(re.escape(w) for w in wanted.split()) + r"\b", unit.said, re.I)
    return [found.group(0)] if found else []


def _first_value(text: str) -> list[str]:
    """A record (`key: value; key: value; ...`: a table row, a CSV row, a JSON object, a front
    matter) names its item by its first value, as a register lists one item per row."""
    segments = _SEGMENT.split(text.removeprefix("- "))
    pairs = [segment.partition(": ") for segment in segments]
    if len(pairs) < 2 or not all(colon and value.strip() for _, colon, value in pairs):
        return []
    first = pairs[0][2].strip().rstrip(".")
    return (
        [first] if 0 < len(first.split()) <= MAX_NAME_WORDS and not re.fullmatch(r"[\d.,\s%]+", first) else []
    )


def _in_prose(text: str, kind: str) -> list[str]:
    words = tokens(text)
    names = []
    for n, t in enumerate(words):
        if t.lemma != kind:
            continue
        j = n - 1
        while j >= 0 and n - j <= MAX_NAME_WORDS and _spaced(text, words, j) and words[j].lower not in _STOP:
            j -= 1
        opens = j < 0 or (words[j].lower in ITEM_DETERMINERS and _spaced(text, words, j))
        if j < n - 1 and opens:
            names.append(text[words[j + 1].start : words[n - 1].end])
    return names


def _spaced(text: str, words: list[Token], at: int) -> bool:
    """Nothing but a space (or a hyphen) between word `at` and the next: one phrase."""
    return text[words[at].end : words[at + 1].start].strip() in ("", "-", "_")


__all__ = ["Subjects", "key"]
