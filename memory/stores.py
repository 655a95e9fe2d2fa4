"""Opening a `MemoryStore` by kind, and input checks every backend shares.

Backends are imported lazily, so the embedded store never imports weaviate-client.

>>> from memory.embeddings import HashingEmbedder
>>> store = open_store("sqlite", path=":memory:", embedder=HashingEmbedder(dim=32))
>>> store.count()
0
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
from pydantic import ValidationError

from memory.embeddings import Embedder
from memory.models import Memory
from memory.store import MAX_TEXT_CHARS, MemoryStore, SearchFilter, SearchQuery, StoreError

StoreKind = Literal["sqlite", "weaviate"]
M = TypeVar("M", SearchFilter, SearchQuery)


def open_store(
    kind: StoreKind, *, path: str | Path, embedder: Embedder, url: str | None = None
) -> MemoryStore:
    """The store of `kind`: `sqlite` at `path`, or `weaviate` at `url` (WEAVIATE_URL).

    >>> from memory.embeddings import HashingEmbedder
    >>> open_store("weaviate", path="", embedder=HashingEmbedder(dim=32))
    Traceback (most recent call last):
    memory.store.StoreError: the weaviate store needs a url (WEAVIATE_URL)
    """
    if kind == "sqlite":
        from memory.sqlite_store import SQLiteStore

        return SQLiteStore(path, embedder)
    if kind == "weaviate":
        if not url:
            raise StoreError("the weaviate store needs a url (WEAVIATE_URL)")
        from memory.weaviate_store import WeaviateStore  # type: ignore[import-not-found,unused-ignore]

        store: MemoryStore = WeaviateStore(url, embedder)
        return store
    raise StoreError(f"unknown store kind {kind!r}; expected 'sqlite' or 'weaviate'")


def as_filter(value: SearchFilter | Mapping[str, Any] | None) -> SearchFilter:
    """A `SearchFilter` from a filter or a plain mapping; bad fields raise a one-line StoreError."""
    if value is None:
        return SearchFilter()
    if isinstance(value, SearchFilter):
        return value
    return _validated(SearchFilter, value, "filter")


def as_query(value: SearchQuery | Mapping[str, Any]) -> SearchQuery:
    """A `SearchQuery` from a query or a plain mapping; bad fields raise a one-line StoreError."""
    if isinstance(value, SearchQuery):
        return value
    return _validated(SearchQuery, value, "query")


def _validated(model: type[M], value: Mapping[str, Any], what: str) -> M:
    try:
        return model.model_validate(dict(value))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or what
        raise StoreError(f"bad {what} field {where!r}: {first['msg']}") from None


def check_memories(memories: Sequence[Memory]) -> None:
    """Refuse records a store must not keep: empty or oversized text, no tenant or key."""
    for memory in memories:
        if not memory.content.strip():
            raise StoreError(f"memory {memory.key!r} has empty content")
        if len(memory.content) > MAX_TEXT_CHARS:
            raise StoreError(f"memory {memory.key!r} has {len(memory.content)} chars; max {MAX_TEXT_CHARS}")
        if memory.context and len(memory.context) > MAX_TEXT_CHARS:
            raise StoreError(
                f"memory {memory.key!r} has {len(memory.context)} chars of context; max {MAX_TEXT_CHARS}"
            )
        if not memory.tenant or not memory.key:
            raise StoreError("a memory needs a non-empty tenant and key")


def check_vectors(
    vectors: Sequence[Sequence[float]] | np.ndarray[Any, Any], dim: int, count: int
) -> np.ndarray[Any, Any]:
    """Validate and unit-normalise vectors as a (count, dim) float32 array."""
    if len(vectors) != count:
        raise StoreError(f"got {len(vectors)} vectors for {count} memories")
    try:
        array = np.asarray(vectors, dtype=np.float64).reshape(count, -1) if count else np.zeros((0, dim))
    except ValueError:
        raise StoreError(f"vectors must all have dimension {dim}") from None
    if array.shape[1] != dim:
        raise StoreError(f"vector dimension {array.shape[1]} does not match the embedder's {dim}")
    if not np.isfinite(array).all():
        raise StoreError("vectors contain NaN or infinite values")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    unit: np.ndarray[Any, Any] = (array / norms).astype(np.float32)
    return unit


def check_query_vector(vector: Sequence[float], dim: int) -> np.ndarray[Any, Any]:
    """One query vector, validated and unit-normalised."""
    if len(vector) != dim or not all(math.isfinite(float(x)) for x in vector):
        raise StoreError(f"query vector must have {dim} finite values")
    row: np.ndarray[Any, Any] = check_vectors([vector], dim, 1)[0]
    return row
