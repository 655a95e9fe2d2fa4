"""Cutting a file into searchable chunks by its structure (docs/design.md, "Memory intelligence").

- Python: one chunk per top-level function and class (decorators included), read with `ast`;
  the module's remaining lines (docstring, imports, constants) are chunked as paragraphs.
- Markdown: one chunk per section (a heading and its body; headings inside code fences ignored).
- Anything else, and Python that does not parse: paragraphs, small ones merged up to `CHUNK_CHARS`.

Every piece longer than `MAX_CHUNK_CHARS` is cut at whitespace, never dropped: a long function or a
one-line CSV is indexed whole.

>>> source = "import os\\n\\ndef f():\\n    return 1\\n\\nclass A:\\n    x = 1\\n"
>>> [c.name for c in chunk_text("m.py", source)]
[None, 'f', 'A']
>>> [c.subtype for c in chunk_text("n.md", "# Title\\nintro\\n\\n## Usage\\nrun it\\n")]
['section', 'section']
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath
from typing import Literal

from cairn.core import Frozen

ChunkType = Literal["function", "class", "section", "paragraph"]
CHUNK_CHARS = 1200  # small paragraphs are merged up to this size
MAX_CHUNK_CHARS = CHUNK_CHARS * 4  # longer pieces are cut at whitespace
MARKDOWN = frozenset({".md", ".markdown", ".mdx"})
_HEADING = re.compile(r"^#{1,6}\s+\S")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BLANK = re.compile(r"\n\s*\n")


class Chunk(Frozen):
    """One searchable piece of a file; `name` is the function, class or heading it holds."""

    text: str
    subtype: ChunkType
    name: str | None = None
    line_start: int = 1
    line_end: int = 1


def chunk_text(path: str, text: str) -> list[Chunk]:
    """The chunks of a file, chosen by its suffix (see the module docstring)."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix == ".py":
        chunks = python_chunks(text)
        if chunks is not None:
            return chunks
    if suffix in MARKDOWN:
        return markdown_chunks(text)
    return paragraph_chunks(text)


def python_chunks(text: str) -> list[Chunk] | None:
    """One chunk per top-level function or class, module lines between them as paragraphs;
    None when the source does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # CPython gives up on some input
        return None
    lines = text.splitlines()
    chunks: list[Chunk] = []
    cursor = 1  # first line not yet chunked
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        chunks += paragraph_chunks("\n".join(lines[cursor - 1 : start - 1]), first_line=cursor)
        subtype: ChunkType = "class" if isinstance(node, ast.ClassDef) else "function"
        body = "\n".join(lines[start - 1 : end])
        chunks += [
            Chunk(text=part, subtype=subtype, name=node.name, line_start=start, line_end=end)
            for part in _windows(body)
        ]
        cursor = end + 1
    return chunks + paragraph_chunks("\n".join(lines[cursor - 1 :]), first_line=cursor)


def markdown_chunks(text: str) -> list[Chunk]:
    """One chunk per section: a heading line and everything up to the next heading."""
    sections: list[tuple[int, list[str]]] = []
    in_fence = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
        if not sections or (not in_fence and _HEADING.match(line)):
            sections.append((number, []))
        sections[-1][1].append(line)
    chunks: list[Chunk] = []
    for start, body in sections:
        joined = "\n".join(body).strip()
        if not joined:
            continue
        heading = body[0].lstrip("#").strip() if _HEADING.match(body[0]) else None
        end = start + len(body) - 1
        chunks += [
            Chunk(text=part, subtype="section", name=heading, line_start=start, line_end=end)
            for part in _windows(joined)
        ]
    return chunks


def paragraph_chunks(text: str, first_line: int = 1) -> list[Chunk]:
    """Paragraphs (blank-line separated), small neighbours merged up to `CHUNK_CHARS`."""
    chunks: list[Chunk] = []
    for start, end, paragraph in _paragraphs(text, first_line):
        for piece in _windows(paragraph):
            last = chunks[-1] if chunks else None
            if last is not None and len(last.text) + len(piece) < CHUNK_CHARS:
                chunks[-1] = last.model_copy(update={"text": f"{last.text}\n\n{piece}", "line_end": end})
            else:
                chunks.append(Chunk(text=piece, subtype="paragraph", line_start=start, line_end=end))
    return chunks


def _paragraphs(text: str, first_line: int) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    position = 0
    for part in [*_BLANK.split(text)]:
        offset = text.find(part, position)
        position = offset + len(part)
        stripped = part.strip()
        if not stripped:
            continue
        start = first_line + text.count("\n", 0, offset + part.find(stripped))
        found.append((start, start + stripped.count("\n"), stripped))
    return found


def _windows(piece: str, limit: int = MAX_CHUNK_CHARS) -> list[str]:
    """A piece cut into parts of at most `limit` characters, at whitespace where there is some."""
    parts: list[str] = []
    while len(piece) > limit:
        cut = max(piece.rfind(" ", limit // 2, limit), piece.rfind("\n", limit // 2, limit))
        cut = cut if cut > 0 else limit
        parts.append(piece[:cut].rstrip())
        piece = piece[cut:].lstrip()
    return [*parts, piece] if piece.strip() else parts
