"""Indexing `--source` directories: once, lazily, shared by every task that reads the same folder.

A source is read-only material, so its index does not belong to one task: its records live in the
tenant `source:{folder}:{hash of its absolute path}` (`source_tenant`), which every task naming
that directory searches. Each file's records carry `source="sha256:{checksum}"`; indexing again
compares checksums and re-chunks only files that changed (and drops files that are gone), so a
second task, or a second search in the same task, costs a directory walk and no embedding.
Within one process `ensure_sources` remembers what it already checked.

>>> source_tenant("/data/corpus")[:14]
'source:corpus:'
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path

from cairn.core import Memory, SourceSkip, content_hash, displayable, now
from cairn.memory.index.file_index import file_records
from cairn.memory.index.transcript import transcript_records
from cairn.memory.store.protocol import MemoryStore, SearchFilter
from cairn.redact import redact

MAX_FILES = 2000
MAX_FILE_BYTES = (
    1_000_000  # a larger file is searched and read, not indexed (its chunks would swamp the index)
)
MAX_TEXT_BYTES = 16_000_000  # a larger file is not read at all: too large (a data dump, a model)
HEAD_BYTES = 8192  # what tells a binary file from a text one
_SKIP_DIRS = {".git", "__pycache__", ".venv", "node_modules", ".pytest_cache"}
_checked: set[tuple[int, str]] = set()  # (id(store), tenant) checked by this process


def source_tenant(path: str | Path) -> str:
    """The tenant holding a source directory's records."""
    resolved = Path(path).expanduser().resolve()
    return f"source:{resolved.name or 'root'}:{content_hash(str(resolved), 8)}"


def source_tenants(sources: Mapping[str, str]) -> list[str]:
    """The tenants of a task's sources (name -> directory), in the task's order."""
    return [source_tenant(path) for path in sources.values()]


def ensure_sources(store: MemoryStore, sources: Mapping[str, str]) -> list[str]:
    """Index the task's sources unless this process already did; returns their tenants."""
    tenants = []
    for path in sources.values():
        tenant = source_tenant(path)
        if (id(store), tenant) not in _checked:
            index_source(store, Path(path))
            _checked.add((id(store), tenant))
        tenants.append(tenant)
    return tenants


def index_source(store: MemoryStore, root: Path) -> int:
    """Bring a source's records up to date with its files; returns how many files were (re)indexed."""
    tenant = source_tenant(root)
    known = {
        m.file_path: m.source
        for m in store.list(
            SearchFilter(tenants=[tenant], kinds=["document_chunk"], subtypes=["file"]), 100_000
        )
        if m.file_path
    }
    label = f"source:{root.resolve().name}"
    seen: set[str] = set()
    changed = 0
    for rel, text in _text_files(root):
        path = displayable(f"{label}/{rel}")  # as the index holds it (a name that is not UTF-8: \xNN)
        seen.add(path)
        checksum = f"sha256:{content_hash(text, 64)}"
        if known.get(path) == checksum:
            continue
        _replace_file(store, tenant, path, source_records(path, redact(text), _base(tenant), checksum))
        changed += 1
    for gone in set(known) - seen:
        _replace_file(store, tenant, gone, [])
    return changed


def source_records(path: str, text: str, base: dict[str, object], checksum: str) -> list[Memory]:
    """A source file's records: its registry entry, then a record per turn when it is a
    conversation transcript (`cairn.memory.index.transcript`), else its chunks."""
    records = file_records(path, text, base, checksum)
    turns = transcript_records(text, base, path)
    if turns is None:
        return records
    return [*(r for r in records if r.subtype == "file"), *turns]


def _base(tenant: str) -> dict[str, object]:
    at = now()
    return {"tenant": tenant, "created_at": at, "updated_at": at, "level": "semantic"}


def _replace_file(store: MemoryStore, tenant: str, path: str, records: list[Memory]) -> None:
    keep = {r.key for r in records}
    old = store.list(SearchFilter(tenants=[tenant], file_path=path), 100_000)
    stale = [m.key for m in old if m.key not in keep]
    if stale:
        store.delete(stale, tenant)
    if records:
        store.upsert(records)


def _text_files(root: Path) -> list[tuple[str, str]]:
    """(relative path, text) of the readable text files under root, hidden and binary ones skipped."""
    found: list[tuple[str, str]] = []
    for rel, full in text_files(root):
        if full.stat().st_size > MAX_FILE_BYTES or len(found) >= MAX_FILES:
            continue
        text = decoded(full.read_bytes())
        if text is not None and text.strip():
            found.append((rel, text))
    return found


def visible_files(root: Path) -> Iterator[tuple[str, Path]]:
    """(relative path, path) of the files under `root` a person would look at, folder by folder in
    name order: hidden files and folders, tool folders and links are skipped."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            full = Path(dirpath) / name
            if not name.startswith(".") and not full.is_symlink() and full.is_file():
                yield full.relative_to(root).as_posix(), full


def text_files(root: Path) -> Iterator[tuple[str, Path]]:
    """The visible files under `root` that Cairn reads: those `skipped` gives no reason for."""
    return ((rel, full) for rel, full in visible_files(root) if skipped(full) is None)


def skipped_files(root: Path) -> dict[str, SourceSkip]:
    """The visible files under `root` that Cairn does not read, each with why (the first MAX_FILES)."""
    found: dict[str, SourceSkip] = {}
    for rel, full in visible_files(root) if root.is_dir() else ():
        if (why := skipped(full)) is not None and len(found) < MAX_FILES:
            found[rel] = why
    return found


def skipped_sources(sources: Mapping[str, str]) -> dict[str, SourceSkip]:
    """The files of a task's sources (name -> folder) that Cairn does not read, as the tools name
    them (`source:NAME/path`), each with why: what the task records (`TaskCreated.skipped_sources`)."""
    return {
        f"source:{name}/{rel}": why
        for name, folder in sorted(sources.items())
        for rel, why in skipped_files(Path(folder)).items()
    }


def skipped(file: Path) -> SourceSkip | None:
    """Why a file is not read as text: `binary` (see `is_binary`), `too large` (over
    MAX_TEXT_BYTES); None for a text file. Looks at its first 8 KiB only."""
    try:
        stat = file.stat()
    except OSError:
        return "binary"  # gone or unreadable: no words to read either
    return _skipped(str(file), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=8192)
def _skipped(file: str, size: int, mtime_ns: int) -> SourceSkip | None:
    if size > MAX_TEXT_BYTES:
        return "too large"
    try:
        with open(file, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return "binary"
    return "binary" if is_binary(head) else None


def is_binary(head: bytes) -> bool:
    """Whether a file's first bytes are no text: a NUL byte (an image, an archive, a video), or
    bytes that are not UTF-8 (a PDF's marker line); a character cut at the end is no failure.

    >>> is_binary(b"%PDF-1.4\\n%\\xe2\\xe3\\xcf\\xd3\\n"), is_binary(b"\\x89PNG\\r\\n\\x1a\\n\\x00")
    (True, True)
    >>> is_binary("Café notes".encode()), is_binary("é".encode()[:1])
    (False, False)
    """
    head = head[:HEAD_BYTES]
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.reason != "unexpected end of data"
    return False


def decoded(data: bytes) -> str | None:
    """A file's bytes as text, or None for a binary file (`is_binary` of its first 8 KiB), whose
    bytes are no words."""
    return None if is_binary(data[:HEAD_BYTES]) else data.decode("utf-8", errors="replace")
