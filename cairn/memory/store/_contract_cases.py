"""The records, vectors and queries of the store contract suite (`cairn.memory.store.contract`).

Kept apart from the tests so the suite reads as a list of promises. Vectors are unit vectors along
the axes of a `DIM`-dimension space, so expected cosine scores are exact (0, 1, sqrt(0.5)) whatever
the backend's index does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cairn.core import Memory
from cairn.memory.store.protocol import MAX_TEXT_CHARS, MemoryStore, SearchFilter, SearchMode, SearchQuery

DIM = 64  # the suite's embedder dimension: small vectors keep the suite fast
MODES: tuple[SearchMode, ...] = ("keyword", "vector", "hybrid")


def mem(key: str, content: str, tenant: str = "t1", **fields: Any) -> Memory:
    return Memory(key=key, kind=fields.pop("kind", "fact"), content=content, tenant=tenant, **fields)


def basis(i: int, j: int | None = None) -> list[float]:
    """A unit vector along axis i (or halfway between axes i and j)."""
    v = np.zeros(DIM)
    v[i] = 1.0
    if j is not None:
        v[j] = 1.0
    unit: list[float] = (v / np.linalg.norm(v)).tolist()
    return unit


def search(store: MemoryStore, text: str, mode: SearchMode, tenants: list[str], **kw: Any) -> list[Any]:
    vector = kw.pop("vector", None)
    query = SearchQuery(text=text, mode=mode, filter=SearchFilter(tenants=tenants, **kw.pop("f", {})), **kw)
    return store.search(query, vector)


def keys(hits: list[Any]) -> list[str]:
    return [hit.memory.key for hit in hits]


# -- filters: each case's filter fields, and the records of tenant t1 it keeps ----------------------

FILTER_CASES: dict[str, tuple[dict[str, Any], set[str]]] = {
    "kinds": ({"kinds": ["fact", "insight"]}, {"r1", "r2"}),
    "subtypes": ({"subtypes": ["execution"]}, {"r3"}),
    "min_confidence": ({"min_confidence": 0.5}, {"r1", "r2"}),
    "max_confidence": ({"max_confidence": 0.5}, {"r2", "r3"}),
    "since": ({"since": 2000.0}, {"r2", "r3"}),
    "until": ({"until": 2000.0}, {"r1", "r2"}),
    "file_path": ({"file_path": "a.py"}, {"r1"}),
    "active": ({"active": False}, {"r2"}),
    "thread_id": ({"thread_id": "th2"}, {"r2"}),
    "domain": ({"domain": "python"}, {"r1", "r3"}),
    "task_type": ({"task_type": "research_task"}, {"r2", "r3"}),
    "tenants": ({}, {"r1", "r2", "r3"}),
}


def filter_records() -> list[Memory]:
    text = "release checklist for the parser module"
    r1: dict[str, Any] = dict(
        kind="fact", confidence=0.9, created_at=1000.0, file_path="a.py", thread_id="th1"
    )
    r2: dict[str, Any] = dict(
        kind="insight", subtype="synthesis", confidence=0.5, created_at=2000.0, file_path="b.py"
    )
    r3: dict[str, Any] = dict(kind="evidence", subtype="execution", confidence=0.2, created_at=3000.0)
    return [
        mem("r1", text, domain="python", task_type="coding_task", **r1),
        mem("r2", text, domain="web", task_type="research_task", active=False, thread_id="th2", **r2),
        mem("r3", text, domain="python", task_type="research_task", **r3),
        mem("r4", text, tenant="t2", domain="python", task_type="research_task", **r1),
    ]


# -- search: eight records, record i on axis i ------------------------------------------------------

CORPUS = {
    "c-cat": "the cat sat on the warm mat near the window",
    "c-dog": "a dog chased the cat across the garden",
    "c-build": "the build uses uv and pyproject for packaging",
    "c-test": "pytest runs the unit tests of the build",
    "c-deploy": "deploy the service with docker compose and weaviate",
    "c-garden": "tomatoes grow in the garden behind the house",
    "c-mat": "a yoga mat and a water bottle for the gym",
    "c-bird": "a bird sang in the garden at dawn",
}


def upsert_corpus(store: MemoryStore) -> None:
    store.upsert([mem(key, text) for key, text in CORPUS.items()], [basis(i) for i in range(len(CORPUS))])


# -- bad input: each batch holds one good record, which must not be stored either -------------------

GOOD = mem("good", "a perfectly fine record")
BAD_UPSERTS: dict[str, tuple[list[Memory], list[list[float]] | None]] = {
    "wrong dimension": ([GOOD, mem("b", "fine text")], [basis(0), [0.1] * (DIM + 1)]),
    "nan": ([GOOD, mem("b", "fine text")], [basis(0), [math.nan] * DIM]),
    "infinite": ([GOOD, mem("b", "fine text")], [basis(0), [math.inf] + [0.0] * (DIM - 1)]),
    "vector count": ([GOOD, mem("b", "fine text")], [basis(0)]),
    "empty text": ([GOOD, mem("b", "")], None),
    "blank text": ([GOOD, mem("b", "  \n ")], None),
    "oversized text": ([GOOD, mem("b", "x" * (MAX_TEXT_CHARS + 1))], None),
}
BAD_QUERY_VECTORS = [[0.1] * (DIM - 1), [math.nan] * DIM]
