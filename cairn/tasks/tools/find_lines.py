"""`find_lines`: every line of a source that holds all of some words, as `grep` would find them,
with the headings it stands under and its line number.

A source too large to read whole is searched this way for each question's words, so "the files
do not say" can be said of it: a line holding every word the question asks would have been found.
Words are compared as lemmas (`leads` finds `led`); a sentence that points back (`It is led by
...`) comes with the sentence it points to.

>>> ctx = ToolContext(task_id="t", artifacts=Path("/tmp/a"), sources={"d": "/tmp/d"})  # doctest: +SKIP
>>> print(find_lines(ctx, "source:d", "led Kestrel").text)  # doctest: +SKIP
[lines source:d/teams.md:7 | Teams › Team Kestrel] Team Kestrel owns the data platform. It is led by Tomasz.
(1 of 1 matching lines)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from cairn.tasks.grounding.lemmas import content_terms, forms
from cairn.tasks.grounding.reads import found_line
from cairn.tasks.grounding.units import Unit, units_of
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.file_tools import read_text, readable

MAX_LINES = 60
MAX_FILES = 2_000
_SKIP = {".git", "__pycache__", ".venv", "node_modules", ".pytest_cache"}


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
    found = [entry for file, name in _files(target, path) for entry in _matches(file, name, wanted)]
    shown = found[:MAX_LINES]
    tail = f"({len(shown)} of {len(found)} matching lines)"
    paths = sorted({name for name, _ in shown})
    return ToolOutput(text="\n".join([*(text for _, text in shown), tail]), paths=paths)


def _files(target: Path, path: str) -> Iterator[tuple[Path, str]]:
    if target.is_file():
        yield target, path
        return
    count = 0
    for file in sorted(target.rglob("*")):
        if any(part in _SKIP or part.startswith(".") for part in file.relative_to(target).parts):
            continue
        if file.is_file() and count < MAX_FILES:
            count += 1
            yield file, f"{path.rstrip('/')}/{file.relative_to(target).as_posix()}"


def _matches(file: Path, name: str, wanted: set[str]) -> Iterator[tuple[str, str]]:
    text = read_text(file)
    if text is None:
        return
    units = units_of(name, text)
    for n, unit in enumerate(units):
        if wanted <= unit.forms | forms(unit.context):
            group = _pointed_to(units, n)
            text = " ".join(u.said if u.said != u.text and "|" in u.text else u.text for u in group)
            yield name, found_line(name, group[0].line, unit.context, text)


def _pointed_to(units: list[Unit], n: int) -> list[Unit]:
    """The unit, after the sentences of its paragraph it points back to."""
    group = [units[n]]
    while group[0].refers_back and n > 0 and units[n - 1].paragraph == units[n].paragraph:
        n -= 1
        group.insert(0, units[n])
    return group


__all__ = ["MAX_LINES", "find_lines"]
