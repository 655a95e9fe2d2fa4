"""What Cairn checks exactly of an answer: which lines of what the task read hold a value.

A line holds a value when, both normalised alike, the value occurs in it as whole words: Unicode
compatibility forms folded (NFKC) and case folded, emphasis marks and table bars dropped, white
space made one, and thousands separators taken out of numbers (`1,260,000` is `1260000`). A
figure with a unit (`180 ms`) is also held by a line that gives the figure where the line or the
headings it stands under name the unit (a table's `budget (ms)` column), or that gives it in
another spelling of its unit (`180 milliseconds`). Nothing here decides what
a line means: that is the judge's (`cairn.tasks.verifier`).

>>> reads = [Read("source:d/w.md", "The centre is Śródmieście.\\nIt holds 1,260,000 m³.", about="Warsaw")]
>>> [q.line for q in lines_holding("ŚRÓDMIEŚCIE", reads)], [q.line for q in lines_holding("1260000", reads)]
([1], [2])
>>> lines_holding("ródmieście", reads)  # a part of a word is not the word
[]
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence

from cairn.core import QuotedLine
from cairn.tasks.grounding.figures import dates, figures
from cairn.tasks.grounding.reads import Read
from cairn.tasks.grounding.relative_dates import dated_text

MAX_QUOTES = 3  # lines quoted for one value: the proof, not a concordance
HEADER = " ‖ "  # between a quote's heading and, for a table row, its table's header
PATH = " › "  # between the headings a line stands under, the nearest last
_MARKS = re.compile(r"\*+|__|`+|\|")
_SEPARATOR = re.compile(r"(?<=\d)[,\u202f\u2009\u00a0'](?=\d{3}(?!\d))")
_ENDS = re.compile(r"[.!?:;]\s*$")
_STARTS = re.compile(r"[-*+>|]\s|\d+[.)]\s|[^\s:|]{1,40}(?: [^\s:|]+){0,3}: ")
_FIGURE_UNIT = re.compile(r"^(?P<figure>[-+]?\d+(?:\.\d+)?)\s*(?P<unit>[^\W\d][\w%/³²]*|%)$")


def normalised(text: str) -> str:
    """`text` as lines and values are compared: NFKC, case folded, one space, no marks or separators.

    >>> normalised("  **Team  FALCON** | 1,260,000 ")
    'team falcon 1260000'
    >>> normalised("1:56 pm on 8 May, 2023") == normalised("1:56 pm on May 8, 2023")
    True
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_SEPARATOR.sub("", _MARKS.sub(" ", _iso_dates(folded))).split())


def _iso_dates(text: str) -> str:
    """Each date written as ISO 8601 (`8 may, 2023`, `may 8, 2023`: `2023-05-08`; without a year,
    `--05-08`), so one date in two formats compares equal."""
    if not any(c.isdigit() for c in text):
        return text
    found = dates(text)
    for d in reversed(found):
        year = f"{d.year:04d}" if d.year else "-"
        iso = f"{year}-{d.month:02d}" + (f"-{d.day:02d}" if d.day else "")
        text = text[: d.start] + iso + text[d.end :]
    return text


def holds(line: str, value: str, context: str = "") -> bool:
    """Whether `line` holds `value` as whole words (see the module docstring); `context`: the
    headings or column names the line stands under.

    >>> holds("| billing | 180 | 99.95% |", "180 ms", context="p95 latency budget (ms)")
    True
    >>> holds("| billing | 180 | 99.95% |", "18 ms", context="p95 latency budget (ms)")
    False
    >>> holds("It has to stay under 760 milliseconds.", "760 ms")
    True
    """
    wanted = normalised(value)
    if not wanted:
        return False
    text = normalised(line)
    if _occurs(wanted, text):
        return True
    figure = _FIGURE_UNIT.match(wanted)
    if not figure or not _occurs(figure["figure"], text):
        return False
    if _occurs(figure["unit"], f"{text} {normalised(context)}"):
        return True
    asked = figures(value)  # its unit written another way (`760 ms`, `760 milliseconds`)
    return (
        len(asked) == 1
        and asked[0].unit is not None
        and any((f.value, f.unit) == (asked[0].value, asked[0].unit) for f in figures(line))
    )


def quoted_in(quote: QuotedLine, value: str) -> bool:
    """Whether the quote holds `value`: on its line, or as the heading it stands under."""
    heading = quote.context.partition(HEADER)[0].rsplit(PATH, 1)[-1]
    return holds(quote.text, value, quote.context) or normalised(heading) == normalised(value) != ""


def lines_holding(value: str, reads: Sequence[Read]) -> list[QuotedLine]:
    """The lines of what was read that hold `value`, or stand under a heading that is `value`,
    as quotes (at most `MAX_QUOTES`, in reading order, each once)."""
    return holding(value, every_line(reads))


def holding(value: str, lines: Iterable[QuotedLine]) -> list[QuotedLine]:
    """`lines_holding` over lines already read out (`every_line`)."""
    found: dict[tuple[str, int], QuotedLine] = {}
    for quote in lines:
        if len(found) >= MAX_QUOTES:
            break
        if (quote.source, quote.line) not in found and quoted_in(quote, value):
            found[(quote.source, quote.line)] = quote
    return list(found.values())


def every_line(reads: Sequence[Read]) -> Iterator[QuotedLine]:
    """Every line read, with the Markdown heading (or what the read answers) above it and, for a
    table row, the table's header. A sentence wrapped over several lines is one line, numbered by
    its first (`...sits in the` + `Porto office.`)."""
    for read in reads:
        yield from _joined(_physical(read))


def _physical(read: Read) -> Iterator[QuotedLine]:
    headings: list[tuple[int, str]] = [(0, read.about)] if read.about else []
    heading, header = read.about, ""
    # A relative day comes with the day it means (`yesterday (7 May 2023)`): Cairn's arithmetic.
    for n, line in enumerate(dated_text(read.text).splitlines()):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            if stripped:  # the path of headings above (`Alder Creek Reservoir › Storage`)
                level = len(stripped) - len(stripped.lstrip("#"))
                headings = [h for h in headings if h[0] < level] + [(level, stripped.lstrip("#").strip())]
                heading = PATH.join(title for _, title in headings)
            header = ""
            yield QuotedLine(source=read.source, line=read.line + n, text="")  # a break between lines
            continue
        if not stripped.startswith("|"):
            header = ""
        elif set(stripped) <= set("|-: "):
            continue  # the row under a header
        elif not header:
            header = stripped
            yield QuotedLine(source=read.source, line=read.line + n, text=stripped, context=heading)
            continue
        context = f"{heading}{HEADER}{header}" if header else heading
        yield QuotedLine(source=read.source, line=read.line + n, text=stripped, context=context)


def _joined(lines: Iterator[QuotedLine]) -> Iterator[QuotedLine]:
    """Lines with a wrapped sentence's continuation joined to it: a line follows the one before
    it when that one ends mid-sentence and it starts no unit of its own (a list item, a table
    row, a `Label:`)."""
    held: QuotedLine | None = None
    for line in lines:
        if held is not None and line.text and _continues(held.text, line.text):
            held = held.model_copy(update={"text": f"{held.text} {line.text}"})
            continue
        if held is not None:
            yield held
        held = line if line.text else None
    if held is not None:
        yield held


def _continues(before: str, text: str) -> bool:
    return not before.startswith("|") and not _ENDS.search(before) and not _STARTS.match(text)


def _occurs(wanted: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", text) is not None


__all__ = [
    "HEADER",
    "MAX_QUOTES",
    "PATH",
    "every_line",
    "holding",
    "holds",
    "lines_holding",
    "normalised",
    "quoted_in",
]
