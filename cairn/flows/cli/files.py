"""`cairn files` and the filters of `cairn search`: the queryable context from the command line.

`cairn files TASK_ID` lists the task's file registry (type, language, size, checksum, the call that
created it) with each Python file's functions and classes; `cairn.memory.context.query` does the filtering.
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from rich.console import Console

from cairn.core import FileType, MemoryKind, RunConfig, UsageError
from cairn.flows.cli.arguments import one_of
from cairn.flows.console import emit, safe
from cairn.memory.context import query
from cairn.memory.index.sources import source_tenants
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import Workspace, WorkspaceError
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchHit, SearchQuery
from cairn.tasks.deps import deps_for

SHARED = "shared"
SOURCE_OVERFETCH = 10  # hits fetched per hit kept when filtering by source after the search


def files_command(
    config: RunConfig,
    task_id: str,
    file_type: str | None,
    language: str | None,
    name: str | None,
    content: str | None,
    as_json: bool,
) -> None:
    kind = _file_type(file_type)
    state = _state(config, task_id)
    store = deps_for(config).store if content else None
    try:
        found = query.files(state, type=kind, language=language, name=name, content=content, store=store)
    except ValueError as exc:  # a filter value query does not know
        raise UsageError(str(exc).splitlines()[0]) from None
    if as_json:
        emit({"task_id": task_id, "files": [_file_json(state, f.path) for f in found]})
        return
    console = Console(highlight=False)
    if not found:
        Console(stderr=True).print(f"no files match in [cyan]{task_id}[/]")
    for f in found:
        lang = f.metadata.language or "-"
        facts = f"{f.file_type} {lang} {f.size} B sha256:{f.checksum[:12]} by {f.created_by}"
        console.print(f"{safe(f.path)}  [dim]{facts}[/]")
        for item in query.code_items(state, f.path):
            doc = f" — {item.description.splitlines()[0]}" if item.description else ""
            lines = f"{item.line_start}-{item.line_end} c{item.complexity}"
            console.print(f"    {safe(item.signature)}  [dim]{lines}[/]{safe(doc)}")


def search_hits(
    config: RunConfig,
    text: str,
    task: str | None,
    mode: str,
    k: int,
    *,
    kind: str | None = None,
    subtype: str | None = None,
    min_confidence: float | None = None,
    source: str | None = None,
) -> list[SearchHit]:
    """`cairn search`: a task's own, related, source and shared memories (or every tenant), filtered.

    `source` (a call or validation id, or a prefix such as `call-3-`) is matched after the search:
    the store filters on indexed fields only, so more hits are fetched and the rest dropped.
    """
    if kind is not None and kind not in get_args(MemoryKind):
        raise UsageError(f"unknown kind {kind!r}; expected one of: {', '.join(get_args(MemoryKind))}")
    where = SearchFilter(
        tenants=search_tenants(config, task),
        kinds=[kind] if kind else [],  # type: ignore[list-item]
        subtypes=[subtype] if subtype else [],
        min_confidence=min_confidence,
    )
    wide = min(1000, k * SOURCE_OVERFETCH) if source else k
    store: MemoryStore = deps_for(config).store
    hits = store.search(SearchQuery(text=text, mode=mode, k=wide, filter=where))  # type: ignore[arg-type]
    if source:
        hits = [h for h in hits if h.memory.source and h.memory.source.startswith(source)]
    return hits[:k]


def search_tenants(config: RunConfig, task: str | None) -> list[str]:
    """Every tenant when no task is named; else the task, its related tasks, its sources and `shared`."""
    if not task:
        return []
    try:
        state = Workspace(Path(config.workspace)).task(task).state()
    except WorkspaceError:
        return [task, SHARED]
    return list(dict.fromkeys([task, *state.related, *source_tenants(state.sources), SHARED]))


def _file_type(value: str | None) -> FileType | None:
    kinds: tuple[FileType, ...] = get_args(FileType)
    return one_of(value, kinds, "--type", before_not=",")


def _state(config: RunConfig, task_id: str) -> TaskState:
    return Workspace(Path(config.workspace)).task(task_id).state()


def _file_json(state: TaskState, path: str) -> dict[str, object]:
    items = query.code_items(state, path)
    return {
        **state.files[path].model_dump(mode="json"),
        "functions": [i.model_dump() for i in items if i.kind != "class"],
        "classes": [i.model_dump() for i in items if i.kind == "class"],
    }
