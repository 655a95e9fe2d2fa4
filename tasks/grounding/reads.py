"""What a task read, indexed for the question "does any of it state this?".

A `Read` is one text the task took in from outside itself: a source file it read, the source
passages a memory search returned, another tool's output. Text the task wrote, or a model's
notes about what it read, is never a `Read`: a claim cannot support itself.

>>> index = ReadIndex([Read("source:docs/slo.md", "| billing | 180 | 99.9 |\\n| search | 250 | 99.5 |")])
>>> index.lines_about({"bill"}, 1)
['source:docs/slo.md: | billing | 180 | 99.9 |']
>>> ReadIndex([Read("a.md", "| service | ms |\\n|---|---|\\n| billing | 180 |")]).lines_about({"bill"}, 1)
['a.md: service: billing | ms: 180']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from cairn.tasks.grounding import figures as fig
from cairn.tasks.grounding.text import terms

_WORDS = re.compile(r"[a-z0-9]+")
_SPACE = re.compile(r"\s+")
_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?")
_SEPARATOR = re.compile(r"(?<=\d)[,\u202f\u2009](?=\d{3}\b)")


@dataclass(frozen=True)
class Read:
    source: str  # the file path as the tools name it, or the call that returned it
    text: str


def normal(text: str) -> str:
    """Lowercase, one space between words, no thousands separators: how quotes are compared."""
    return _SPACE.sub(" ", _SEPARATOR.sub("", text.lower())).strip()


def context_lines(text: str) -> list[str]:
    """The text's lines, each with what gives it meaning on its own: a Markdown line under a
    heading is prefixed with the heading, a table row is written as `column: value` pairs.

    >>> context_lines("## Team Falcon\\nOwns billing.\\n\\n| service | budget |\\n|---|---|\\n| billing | 180 |")
    ['## Team Falcon', 'Team Falcon — Owns billing.', '| service | budget |', 'service: billing | budget: 180']
    """
    out: list[str] = []
    heading = ""
    header: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or _RULE.fullmatch(stripped):
            continue
        if stripped.startswith("#"):
            heading, header = stripped.lstrip("#").strip(), []
            out.append(stripped)
        elif stripped.startswith("|"):
            cells = [cell.strip() for cell in stripped.strip("|").split("|")]
            if not header:
                header = cells
                out.append(stripped)
            else:
                out.append(" | ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False)))
        else:
            header = []
            out.append(f"{heading} — {stripped}" if heading else stripped)
    return out


@dataclass(frozen=True)
class Support:
    """Where a claim is stated: the source and the line (with its context) that states it."""

    source: str
    line: str


class _Line:
    """One line of a read text with what look-ups compare: words, figures, dates, stems."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.words = set(_WORDS.findall(text.lower()))
        self.dates = fig.dates(text)
        self.figures = fig.figures(text, skip=[(d.start, d.end) for d in self.dates])
        self.normal = normal(text)

    @cached_property
    def stems(self) -> set[str]:
        return terms(self.text)


class ReadIndex:
    """Look-ups over everything a task read: each answers with the `Support` (source and line)
    that states the thing, or None."""

    def __init__(self, reads: Iterable[Read]) -> None:
        self._lines = [
            (read.source, _Line(line)) for read in reads if read.text.strip() for line in context_lines(read.text)
        ]

    def __bool__(self) -> bool:
        return bool(self._lines)

    def _first(self, test: Callable[[_Line], bool]) -> Support | None:
        return next((Support(source, line.text) for source, line in self._lines if test(line)), None)

    def figure(self, claim: fig.Figure) -> Support | None:
        """A line stating the same number, in the same unit where both give one."""

        def states(line: _Line) -> bool:
            return any(
                (claim.unit is None or found.unit is None or claim.unit == found.unit)
                and fig.same_value(found.value, claim.value)
                for found in line.figures
            )

        return self._first(states)

    def number(self, value: float) -> bool:
        """Whether any source states this number, whatever its unit (for arithmetic operands)."""
        return self._first(lambda line: any(fig.same_value(f.value, value) for f in line.figures)) is not None

    def date(self, claim: fig.Date) -> Support | None:
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

    def lines_about(self, wanted: set[str], k: int = 6) -> list[str]:
        """The `k` lines holding most of the stemmed words `wanted` (a goal's, a part's), shorter
        first among equals, each as `source: line`: what the next attempt should answer from."""
        scored = [(len(wanted & line.stems), len(line.text), source, line.text) for source, line in self._lines]
        best = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        return [f"{source}: {text[:300]}" for _, _, source, text in best[:k]]
