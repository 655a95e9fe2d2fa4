"""What a task read, indexed for the question "does any of it state this?".

A `Read` is one text the task took in from outside itself: a source file it read, the source
passages a memory search returned, another tool's output. Text the task wrote, or a model's
notes about what it read, is never a `Read`: a claim cannot support itself.

>>> index = ReadIndex([Read("source:docs/slo.md", "| billing | 180 | 99.9 |\\n| search | 250 | 99.5 |")])
>>> index.lines_about({"bill"}, 1)
['source:docs/slo.md: | billing | 180 | 99.9 |']
>>> ReadIndex([Read("a.md", "| service | ms |\\n|---|---|\\n| billing | 180 |")]).lines_about({"bill"}, 1)
['a.md: - service: billing; ms: 180']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from cairn.tasks.grounding import figures
from cairn.tasks.grounding.answer_text import terms
from cairn.tasks.grounding.relative_dates import anchor_spans, resolved
from cairn.tasks.grounding.units import TABLE_DIVIDER, Unit, units_of

_STARTS_UNIT = re.compile(r"[-*+>|]\s|\d+[.)]\s|[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}: ")
_WORDS = re.compile(r"[a-z0-9]+")
_SPACE = re.compile(r"\s+")
_SEPARATOR = re.compile(r"(?<=\d)[,\u202f\u2009](?=\d{3}\b)")


@dataclass(frozen=True)
class Read:
    source: str  # the file path as the tools name it, or the call that returned it
    text: str
    about: str = ""  # what the text answers (a tool call and its arguments): every line's heading
    line: int = 1  # the line of `source` the text starts on (a passage of a longer file)
    located: bool = True  # False for a search hit: a chunk whose line in its file is not known


FOUND_LINES = re.compile(r"^\[lines (?P<source>\S+?):(?P<line>\d+)(?: \| (?P<context>.*?))?\] (?P<text>.*)$")
_SEARCH_HIT = "[document_chunk source:"


def passages(output: str) -> list[Read]:
    """The source passages a tool's output quotes: the hits of a memory search (`[document_chunk
    source:d/a.md] ...`) and the lines `find_lines` found (`[lines source:d/a.md:7 | Heading] ...`),
    each as a read of its file.

    >>> [(r.source, r.line, r.about) for r in passages("[lines source:d/a.md:7 | Teams] Lead: Ana.")]
    [('source:d/a.md', 7, 'Teams')]
    """
    found = []
    for line in output.splitlines():
        if entry := FOUND_LINES.match(line):
            found.append(Read(entry["source"], entry["text"], entry["context"] or "", int(entry["line"])))
        elif line.startswith(_SEARCH_HIT):
            head, _, text = line.partition("] ")
            found.append(Read(head.removeprefix("[document_chunk ").strip(), text, located=False))
    return found


def found_line(source: str, line: int, context: str, text: str) -> str:
    """One line of `find_lines`' output (what `passages` reads back)."""
    where = f" | {context}" if context else ""
    return f"[lines {source}:{line}{where}] {text}"


def normal(text: str) -> str:
    """Lowercase, one space between words, no thousands separators: how quotes are compared."""
    return _SPACE.sub(" ", _SEPARATOR.sub("", text.lower())).strip()


def context_lines(text: str, about: str = "") -> list[str]:
    """The text as units that mean something alone: a paragraph wrapped over several lines is
    one unit, a list item, a table row (spelled out with its columns) or a `Name: words` line is
    its own, and a unit under a Markdown heading is prefixed with the heading (or with `about`,
    what the whole text answers, above its first heading).

    >>> context_lines("## Falcon\\nOwns billing\\nand web.\\n\\n| team | ms |\\n|---|---|\\n| F | 18 |")[1:]
    ['Falcon — Owns billing and web.', '| team | ms |', 'Falcon — - team: F; ms: 18']
    """
    units: list[str] = []
    heading = about
    joinable = False  # the last unit is prose that a wrapped line continues
    for line in spelled_tables(text).splitlines():
        stripped = line.strip()
        if not stripped:
            joinable = False
        elif stripped.startswith("#"):
            heading, joinable = stripped.lstrip("#").strip(), False
            units.append(stripped)
        elif joinable and not _STARTS_UNIT.match(stripped):
            units[-1] += " " + stripped
        else:
            units.append(f"{heading} — {stripped}" if heading and not stripped.startswith("|") else stripped)
            joinable = not stripped.startswith("|")
    return units


def spelled_tables(text: str) -> str:
    """The text with each Markdown table row below a header written as a list item of `column:
    value` pairs (a row read alone says which figure is which); separator rows dropped, all else
    as it was.

    >>> spelled_tables("| service | ms |\\n|---|---|\\n| billing | 180 |")
    '| service | ms |\\n- service: billing; ms: 180'
    """
    out: list[str] = []
    header: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("|"):
            header = []
            out.append(line)
        elif TABLE_DIVIDER.fullmatch(stripped):
            continue
        elif not header:
            header = [cell.strip() for cell in stripped.strip("|").split("|")]
            out.append(line)
        else:
            cells = [cell.strip() for cell in stripped.strip("|").split("|")]
            pairs = (f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False))
            out.append("- " + "; ".join(pairs))
    return "\n".join(out)


@dataclass(frozen=True)
class Support:
    """Where a claim is stated: the source and the line (with its context) that states it."""

    source: str
    line: str


class _Line:
    """One line of a read text with what look-ups compare: words, figures, dates, stems."""

    def __init__(self, raw: str) -> None:
        text = self.text = resolved(raw)  # "yesterday" with the day it means: Cairn's arithmetic
        self.words = set(_WORDS.findall(text.lower()))
        self.dates = figures.dates(text)
        anchors = anchor_spans(raw)  # before every insertion: the same spans in `text`
        self.event_dates = [d for d in self.dates if (d.start, d.end) not in anchors]
        self.figures = figures.figures(text, skip=[(d.start, d.end) for d in self.dates])
        self.normal = normal(text)

    @cached_property
    def stems(self) -> set[str]:
        return terms(self.text)


class ReadIndex:
    """Look-ups over everything a task read: each answers with the `Support` (source and line)
    that states the thing, or None."""

    def __init__(self, reads: Iterable[Read]) -> None:
        self.reads = [read for read in reads if read.text.strip()]
        self._lines = [
            (read.source, _Line(line)) for read in self.reads for line in context_lines(read.text, read.about)
        ]

    @cached_property
    def units(self) -> list[Unit]:
        """The same reads as quotable units (sentences, rows, turns), for the verifier."""
        found: list[Unit] = []
        located: set[tuple[str, str]] = set()
        for read in sorted(self.reads, key=lambda read: not read.located):
            units = units_of(read.source, read.text, read.about, len(found), read.line)
            if read.located:
                located |= {(unit.source, normal(unit.text)) for unit in units}
            else:  # a search hit's line is the chunk's: quote the same words where their line is known
                units = [unit for unit in units if (unit.source, normal(unit.text)) not in located]
            found += units
        return found

    def __bool__(self) -> bool:
        return bool(self._lines)

    def _first(self, test: Callable[[_Line], bool]) -> Support | None:
        return next((Support(source, line.text) for source, line in self._lines if test(line)), None)

    def figure(self, claim: figures.Figure) -> Support | None:
        """A line stating the same number, in the same unit where both give one."""
        return self._first(lambda line: _figure_span(line, claim) is not None)

    def number(self, value: float) -> bool:
        """Whether any source states this number, whatever its unit (for arithmetic operands)."""
        return (
            self._first(lambda line: any(figures.same_value(f.value, value) for f in line.figures))
            is not None
        )

    def date(self, claim: figures.Date) -> Support | None:
        return self._first(lambda line: any(claim.matches(d) for d in line.dates))

    def words(self, words: Sequence[str]) -> Support | None:
        """A line holding every word (a name: `Team Falcon`, `Falcon team`)."""
        wanted = {w for word in words for w in _WORDS.findall(word.lower())}
        return self._first(lambda line: wanted <= line.words)

    def quote(self, value: str) -> Support | None:
        wanted = normal(value)
        return self._first(lambda line: wanted in line.normal)

    def phrase(self, stems: set[str]) -> Support | None:
        """A line holding every stemmed word of a short answer."""
        return self._first(lambda line: stems <= line.stems)

    def best_line(self, wanted: set[str], share: float) -> Support | None:
        """The line holding the most of the stemmed words `wanted`, if it holds `share` of them:
        where a sentence of an answer comes from."""
        if not wanted:
            return None
        held, source, line = max(
            ((len(wanted & line.stems), source, line) for source, line in self._lines),
            key=lambda found: found[0],
            default=(0, "", None),
        )
        return Support(source, line.text) if line is not None and held >= share * len(wanted) else None

    def lines_about(self, wanted: set[str], k: int = 6) -> list[str]:
        """The `k` lines holding most of the stemmed words `wanted` (a goal's, a part's), shorter
        first among equals, each as `source: line`: what the next attempt should answer from."""
        scored = [
            (len(wanted & line.stems), len(line.text), source, line.text) for source, line in self._lines
        ]
        best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        return [f"{source}: {text[:300]}" for _, _, source, text in best[:k]]


def _figure_span(line: _Line, claim: figures.Figure) -> tuple[int, int] | None:
    for found in line.figures:
        units_agree = claim.unit == found.unit or (
            (claim.unit is None or found.unit is None) and "clock" not in (claim.unit, found.unit)
        )
        if units_agree and figures.same_value(found.value, claim.value):
            return (found.start, found.end)
    return None
