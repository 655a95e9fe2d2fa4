"""`find_lines`: every line of a source that holds all of some words, as `grep` would find them,
with the headings it stands under and its line number.

A source too large to read whole is searched this way for each question's words, so "the files
do not say" can be said of it: a line holding every word the question asks would have been found.
Words are compared as lemmas (`leads` finds `led`). In a Markdown file a paragraph wrapped over
several lines is searched sentence by sentence, a line stands under the headings above it and a
table row under its header: their words count as the line's (`led Kestrel` finds `It is led by
Tomasz.` under `## Team Kestrel`), and a row is shown spelled with its header (`team: Kestrel;
lead: Tomasz`).

It is a plain search, linear in a file's size: each distinct word of a file is lemmatised once (a
file lacking every form of one wanted word is done with), and a line is looked at only when it
holds a form of each wanted word (one regular expression per word). A line longer than
MAX_SHOWN_CHARS (minified code, JSON on one line) is shown around its first match. Binary files
and files too large to read (`cairn.memory.index.sources.skipped`) are skipped, and the output
says which, before its tail.

>>> ctx = ToolContext(task_id="t", artifacts=Path("/tmp/a"), sources={"d": "/tmp/d"})  # doctest: +SKIP
>>> print(find_lines(ctx, "source:d", "led Kestrel").text)  # doctest: +SKIP
[lines source:d/teams.md:7 | Teams › Team Kestrel] It is led by Tomasz.
(1 of 1 matching lines)
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from pathlib import Path

from cairn.memory.index.sources import MAX_FILES, skipped, visible_files
from cairn.tasks.grounding.lemmas import POSSESSIVE, WORD, content_terms, forms, lemma
from cairn.tasks.grounding.reads import found_line
from cairn.tasks.grounding.units import BULLET, EMPHASIS, SENTENCE_END, TABLE_DIVIDER
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.file_tools import readable, skipped_line

MAX_LINES = 60
MAX_SHOWN_CHARS = 400
_MARKDOWN = (".md", ".markdown", ".mdx")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)[\s#]*$")
_SHORT = 6  # a word this short is lemmatised whatever its first letter (`went`, `was`, `sat`)


def find_lines(ctx: ToolContext, path: str, words: str) -> ToolOutput:
    """The lines of a source file, or of every file under a source folder, holding all `words`."""
    wanted = content_terms(words)
    if not wanted:
        return failure(f"no words to find in {words!r}: give the content words a line must hold")
    target = readable(ctx, path)
    if isinstance(target, ToolOutput):
        return target
    if not target.exists():
        return failure(f"no such file or folder: {path}")
    found: list[tuple[str, str]] = []
    passed: list[str] = []
    for file, name in _files(target, path):
        if skipped(file) is not None:
            passed.append(name)
            continue
        text = file.read_bytes().decode("utf-8", errors="replace")
        found += [(name, line) for line in _matches(name, text, wanted)]
    shown = found[:MAX_LINES]
    tail = [skipped_line(passed)] if passed else []
    tail.append(f"({len(shown)} of {len(found)} matching lines)")
    paths = sorted({name for name, _ in shown})
    return ToolOutput(text="\n".join([*(text for _, text in shown), *tail]), paths=paths)


def _files(target: Path, path: str) -> Iterator[tuple[Path, str]]:
    if target.is_file():
        yield target, path
        return
    for count, (rel, file) in enumerate(visible_files(target)):
        if count >= MAX_FILES:
            return
        yield file, f"{path.rstrip('/')}/{rel}"


def _matches(name: str, text: str, wanted: set[str]) -> Iterator[str]:
    """`find_lines`' output lines for the lines of one file's text holding every wanted term."""
    patterns = _patterns(text, wanted)
    if patterns is None:
        return
    given: dict[str, set[str]] = {}  # the wanted terms the words a line stands under hold
    for number, line, context, header in _located(text, name.lower().endswith(_MARKDOWN)):
        about = f"{context} {' '.join(header)}"
        held = given.get(about)
        if held is None:
            held = given[about] = forms(about) & wanted
        if all(term in held or pattern.search(line) for term, pattern in patterns.items()):
            yield found_line(name, number, context, _shown(line, header, patterns))


def _located(text: str, markdown: bool) -> Iterator[tuple[int, str, str, list[str]]]:
    """Each line to search: its number, the line, the headings above it (outermost first) and, for
    a Markdown table row, its header's cells. In Markdown a paragraph wrapped over several lines
    is searched as its sentences (each with the line it starts on); a header row and a divider
    are no lines to find."""
    if not markdown:
        yield from ((number, line, "", []) for number, line in enumerate(text.splitlines(), start=1))
        return
    headings: list[tuple[int, str]] = []
    header: list[str] = []
    paragraph: list[tuple[int, str]] = []
    for number, line in enumerate([*text.splitlines(), ""], start=1):
        stripped = line.strip()
        heading = _HEADING.match(stripped)
        if paragraph and (not stripped or heading or stripped.startswith("|") or BULLET.match(stripped)):
            context = " › ".join(h for _, h in headings)
            yield from ((at, sentence, context, []) for at, sentence in _sentences(paragraph))
            paragraph = []
        if heading:
            headings = [h for h in headings if h[0] < len(heading[1])]
            yield number, heading[2], " › ".join(h for _, h in headings), []
            headings.append((len(heading[1]), heading[2]))
        elif stripped.startswith("|") and not header:
            header = _cells(stripped)
        elif stripped.startswith("|") and not TABLE_DIVIDER.fullmatch(stripped):
            yield number, stripped, " › ".join(h for _, h in headings), header
        elif stripped:
            paragraph.append((number, EMPHASIS.sub(r"\2", BULLET.sub("", stripped))))
        if not stripped.startswith("|"):
            header = []


def _sentences(pieces: list[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """A paragraph's lines as its sentences, each with the line it starts on."""
    joined, starts, numbers = "", [], []
    for number, piece in pieces:
        starts.append(len(joined) + (1 if joined else 0))
        numbers.append(number)
        joined = f"{joined} {piece}" if joined else piece
    at = 0
    for end in [*SENTENCE_END.finditer(joined), None]:
        sentence = joined[at : end.start() if end else None] + (end.group().rstrip() if end else "")
        if sentence.strip():
            yield numbers[bisect_right(starts, at) - 1], sentence.strip()
        at = end.end() if end else len(joined)


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _patterns(text: str, wanted: set[str]) -> dict[str, re.Pattern[str]] | None:
    """For each wanted term, a pattern of the words of `text` that are a form of it (`led` for
    `lead`); None when the text lacks every form of one of them, so no line can hold them all."""
    initials = {term[0] for term in wanted}
    written: dict[str, set[str]] = {term: set() for term in wanted}
    for word in {POSSESSIVE.sub("", w).lower() for w in set(WORD.findall(text))}:
        for term in {word, _lemma(word, initials)} & wanted:
            written[term].add(word)
    if not all(written.values()):
        return None
    return {
        term: re.compile(
            rf"(?<![A-Za-z0-9])(?:{'|'.join(map(re.escape, sorted(found)))})(?![A-Za-z0-9])", re.I
        )
        for term, found in written.items()
    }


def _lemma(word: str, initials: set[str]) -> str:
    """The word's lemma when it may be a form of a wanted term: a number is its own, and a long
    word whose first letter opens no wanted term cannot be one (irregular forms are short)."""
    if word.isdigit() or (len(word) > _SHORT and word[0] not in initials):
        return word
    return lemma(word)


def _shown(line: str, header: list[str], patterns: dict[str, re.Pattern[str]]) -> str:
    """The line as the output shows it: a table row spelled with its header, a long line cut
    around its first match."""
    if header:
        return "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, _cells(line), strict=False))
    text = line.strip()
    if len(text) <= MAX_SHOWN_CHARS:
        return text
    first = min((m.start() for p in patterns.values() if (m := p.search(text))), default=0)
    start = max(0, first - MAX_SHOWN_CHARS // 4)
    return text[start : start + MAX_SHOWN_CHARS]


__all__ = ["MAX_LINES", "find_lines"]
