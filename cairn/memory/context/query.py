"""Queryable context: a task's files, code and evidence by their
properties, as typed Python calls over its `TaskState` (and its store for content search).

Names match as a glob when they hold `*`, `?` or `[` (`"test_*"`), else as a case-insensitive
substring (`"parse"` finds `parse_line` and `Parser`).

>>> state = TaskState(files={})
>>> files(state, type="code"), functions(state, name="parse"), evidence(state, min_confidence=0.9)
([], [], [])
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Literal

from cairn.core import CodeReference, Evidence, EvidenceType, FileReference, FileType, Frozen, FunctionDoc
from cairn.memory.index.file_index import signature
from cairn.memory.log.state import TaskState
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchQuery

CodeKind = Literal["function", "method", "class"]
CONTENT_HITS = 200


class CodeItem(Frozen):
    """One function, method or class of a file the task wrote."""

    path: str
    name: str  # qualified: `Class.method` for methods
    kind: CodeKind
    signature: str
    description: str = ""
    line_start: int = 0
    line_end: int = 0
    complexity: int = 1


def files(
    state: TaskState,
    *,
    type: FileType | None = None,
    language: str | None = None,
    name: str | None = None,
    content: str | None = None,
    store: MemoryStore | None = None,
) -> list[FileReference]:
    """The task's registered files matching every given criterion, by path.

    `content` needs the `store`: a keyword search over the file's indexed text.
    """
    found = [
        f
        for f in state.files.values()
        if (type is None or f.file_type == type)
        and (language is None or (f.metadata.language or "").lower() == language.lower())
        and (name is None or matches(name, f.path) or matches(name, f.path.rsplit("/", 1)[-1]))
    ]
    if content is not None:
        if store is None:
            raise ValueError("searching files by content needs the memory store")
        holding = _paths_containing(store, state.task_id, content)
        found = [f for f in found if f.path in holding]
    return sorted(found, key=lambda f: f.path)


def functions(
    state: TaskState, *, name: str | None = None, doc_contains: str | None = None, path: str | None = None
) -> list[CodeItem]:
    """Functions and methods of the task's Python files, by name and docstring."""
    return [i for i in code_items(state, path) if i.kind != "class" and _wanted(i, name, doc_contains)]


def classes(
    state: TaskState, *, name: str | None = None, doc_contains: str | None = None, path: str | None = None
) -> list[CodeItem]:
    """Classes of the task's Python files, by name and docstring."""
    return [i for i in code_items(state, path) if i.kind == "class" and _wanted(i, name, doc_contains)]


def evidence(
    state: TaskState,
    *,
    type: EvidenceType | None = None,
    min_confidence: float | None = None,
    source: str | None = None,
) -> list[Evidence]:
    """The task's evidence by type, minimum confidence and source (a call or validation id, or its
    prefix: `call-3-` is everything iteration 3's calls produced)."""
    return [
        e
        for e in state.evidence
        if (type is None or e.type == type)
        and (min_confidence is None or e.confidence >= min_confidence)
        and (source is None or e.source == source or e.source.startswith(source))
    ]


def code_items(state: TaskState, path: str | None = None) -> list[CodeItem]:
    """Every documented function, method and class, file by file in path order."""
    return [
        item for p in sorted(state.code) if path is None or p == path for item in _items(p, state.code[p])
    ]


def matches(pattern: str, value: str) -> bool:
    """Glob when the pattern has wildcards, else case-insensitive substring."""
    if any(ch in pattern for ch in "*?["):
        return fnmatchcase(value.lower(), pattern.lower())
    return pattern.lower() in value.lower()


def _items(path: str, code: CodeReference) -> list[CodeItem]:
    out = [_item(path, f, "function") for f in code.functions]
    for cls in code.classes:
        bases = f"({', '.join(cls.bases)})" if cls.bases else ""
        out.append(
            CodeItem(
                path=path,
                name=cls.name,
                kind="class",
                signature=f"class {cls.name}{bases}",
                description=cls.description,
                line_start=cls.line_start,
                line_end=cls.line_end,
            )
        )
        out += [_item(path, m, "method", cls.name) for m in cls.methods]
    return out


def _item(path: str, f: FunctionDoc, kind: CodeKind, owner: str | None = None) -> CodeItem:
    return CodeItem(
        path=path,
        name=f"{owner}.{f.name}" if owner else f.name,
        kind=kind,
        signature=signature(f, owner),
        description=f.description,
        line_start=f.line_start,
        line_end=f.line_end,
        complexity=f.complexity,
    )


def _wanted(item: CodeItem, name: str | None, doc_contains: str | None) -> bool:
    # A dotted pattern names `Class.method`; a plain one the function, method or class itself.
    by_name = name is None or matches(name, item.name if "." in name else item.name.rsplit(".", 1)[-1])
    return by_name and (doc_contains is None or doc_contains.lower() in item.description.lower())


def _paths_containing(store: MemoryStore, task_id: str, text: str) -> set[str]:
    where = SearchFilter(tenants=[task_id], kinds=["document_chunk"])
    hits = store.search(SearchQuery(text=text, mode="keyword", k=CONTENT_HITS, filter=where))
    return {h.memory.file_path for h in hits if h.memory.file_path}
