"""Sources as lines, for the near-miss generator (`bench/near_misses.py`).

A *line* is what can state one fact: a transcript turn (`Speaker: words`), a sentence of a
paragraph, a table row read with its header, a list item, or a heading; each is read under the
Markdown heading it stands under, so "It is led by Tomasz" under "## Team Kestrel" mentions
Kestrel. A line's *terms* are the lowercase lemmas (simplemma) of its content words.

    >>> [line.own for line in lines("## Team Kestrel\\n\\nIt owns exports. It is led by Tom.\\n")]
    ['Team Kestrel', 'It owns exports.', 'It is led by Tom.']
    >>> sorted(lines("## Team Kestrel\\n\\nIt is led by Tom.\\n")[1].terms)
    ['kestrel', 'lead', 'team', 'tom']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

# English function words and wh-words: never a content term (a small closed class, not a topic list).
_FUNCTION_TEXT = """a about above after again against all also am an and any are as at be been before being
    below between both but by can could did do does doing done down during each either else ever
    every few for from had has have having he her here hers herself him himself his how i if in
    into is it its itself just may me might more most much must my myself neither no nor not
    now of off on once only or other others our ours ourselves out over per same shall she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up upon us very was we were what whatever when where whether which
    while who whom whose why will with within without would yet you your yours yourself s t ll re ve
    d m"""
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_TURN = re.compile(r"^[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,3}: \S")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[A-Z0-9])")


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """A word's lowercase lemma; a possessive or contraction is read by its base.

    >>> lemma("Leads"), lemma("Caroline's"), lemma("went")
    ('lead', 'caroline', 'go')
    """
    import simplemma

    base = re.split(r"['’]", word, maxsplit=1)[0].lower()
    return str(simplemma.lemmatize(base, lang="en")).lower()


def is_content(word: str) -> bool:
    """Not a function word (nor a contraction of one: "don't" is "don" + "t")."""
    base, _, suffix = re.sub("’", "'", word.lower()).partition("'")
    return base not in FUNCTION_WORDS and suffix != "t" and not (base.isdigit() and len(base) == 1)


def terms(text: str) -> frozenset[str]:
    """The content terms of a text: lemmas of its non-function words.

    >>> sorted(terms("Which office does Team Kestrel sit in?"))
    ['kestrel', 'office', 'sit', 'team']
    """
    return frozenset(lemma(w) for w in WORD.findall(text) if is_content(w))


@dataclass(frozen=True)
class Line:
    """One line of the sources: its own text, the heading it stands under, and its terms."""

    own: str
    heading: str = ""
    header: str = ""  # a table row's header row

    @property
    def terms(self) -> frozenset[str]:
        return terms(" ".join((self.heading, self.header, self.own)))


@dataclass(frozen=True)
class _Block:
    """A run of raw lines that render together: a heading, a table, a paragraph, a turn, an item."""

    kind: str
    raw: tuple[str, ...]


def lines(text: str) -> list[Line]:
    """The lines of one Markdown (or plain-text) file, in order (see the module docstring)."""
    found: list[Line] = []
    heading = ""
    for block in _blocks(text):
        if block.kind == "heading":
            heading = _HEADING.sub(r"\2", block.raw[0])
        found += [
            Line(own=own, heading=heading if block.kind != "heading" else "", header=header)
            for own, header in _units(block)
        ]
    return found


def drop(text: str, holds: Callable[[str], bool]) -> tuple[str, list[str]]:
    """The text without the lines whose own words `holds` accepts, and those lines.

    A paragraph that loses a sentence is written again as its remaining sentences on one line;
    everything else keeps its raw lines.

    >>> drop("# T\\n\\nAda leads. Bo sits.\\n", lambda line: "Ada" in line)
    ('# T\\n\\nBo sits.\\n', ['Ada leads.'])

    A dropped heading takes its section with it:

    >>> drop("## Ada\\nLeads ops.\\n## Bo\\nSits.\\n", lambda line: "Ada" in line)[0]
    '## Bo\\nSits.\\n'
    """
    kept: list[str] = []
    dropped: list[str] = []
    under: int | None = None  # the level of a dropped heading whose section goes with it
    for block in _blocks(text):
        level = _level(block)
        if under is not None and (level is None or level > under):
            dropped += [own for own, _ in _units(block) if own]
            continue
        under = None
        units = _units(block)
        gone = [own for own, _ in units if own and holds(own)]
        dropped += gone
        kept += list(block.raw) if not gone else _without(block, set(gone))
        if gone and level is not None:
            # Its lines would stand under the heading before it and say their facts of another
            # subject ("Owns the recommendations service." under "## Team Falcon").
            under = level
    return "\n".join(kept) + ("\n" if text.endswith("\n") else ""), dropped


def _level(block: _Block) -> int | None:
    """A heading block's level (`##` is 2); None for any other block."""
    if block.kind != "heading":
        return None
    return len(block.raw[0]) - len(block.raw[0].lstrip("#"))


def _without(block: _Block, gone: set[str]) -> list[str]:
    if block.kind == "paragraph":
        rest = [s for s in _sentences(block) if s not in gone]
        return [" ".join(rest)] if rest else []
    if block.kind == "table":
        header, rule, *rows = block.raw
        return [header, rule, *(row for row in rows if _cells(row) not in gone)]
    return []  # a heading, a turn or an item: the block is the line


def _units(block: _Block) -> list[tuple[str, str]]:
    """(own text, table header) of each line a block holds."""
    if block.kind == "heading":
        return [(_HEADING.sub(r"\2", block.raw[0]), "")]
    if block.kind == "table":
        header = _cells(block.raw[0])
        return [(_cells(row), header) for row in block.raw[2:]]
    if block.kind == "paragraph":
        return [(s, "") for s in _sentences(block)]
    if block.kind == "item":
        return [(_ITEM.sub("", block.raw[0]).strip(), "")]
    return [(block.raw[0].strip(), "")] if block.kind == "turn" else []


def _sentences(block: _Block) -> list[str]:
    joined = " ".join(line.strip() for line in block.raw)
    return [s.strip() for s in _SENTENCE_END.split(joined) if s.strip()]


def _cells(row: str) -> str:
    return " | ".join(cell.strip() for cell in row.strip().strip("|").split("|"))


def _blocks(text: str) -> Iterator[_Block]:
    raw = text.splitlines()
    n = 0
    while n < len(raw):
        kind = _kind(raw, n)
        end = n + 1
        if kind == "table":  # the header, its rule, then every row up to the first other line
            end = n + 2
            while end < len(raw) and raw[end].lstrip().startswith("|"):
                end += 1
        elif kind == "paragraph":
            while end < len(raw) and _kind(raw, end) == "paragraph":
                end += 1
        yield _Block(kind, tuple(raw[n:end]))
        n = end


def _kind(raw: list[str], n: int) -> str:
    line = raw[n]
    if not line.strip():
        return "blank"
    if _HEADING.match(line):
        return "heading"
    if n + 1 < len(raw) and line.lstrip().startswith("|") and _TABLE_RULE.match(raw[n + 1]):
        return "table"
    if _ITEM.match(line):
        return "item"
    return "turn" if _TURN.match(line) else "paragraph"
