"""The memory index behind one narrow, typed interface.

Semantics every backend honours (the contract suite, `cairn.memory.store.contract`, checks them):

- `upsert` is idempotent by `Memory.key` within a tenant: upserting an existing key keeps one
  record, merges `agents`, keeps the larger `access_count` and refreshes content and metadata.
- A tenant is a task id or `shared`. A search sees only the tenants named in its filter.
- Expired records (`expires_at <= now`) are never returned; `purge_expired` deletes them.
- Scores are in [0, 1], higher is better, hits ordered by score then key. `vector` scores are
  `1 - cosine_distance` clipped to [0, 1]; `keyword` is BM25F over `content` and `context` (a
  context word weighing `fusion.CONTEXT_WEIGHT` of a content word), min-max normalised over the hits;
  `hybrid` is Weaviate's relative-score fusion: each leg min-max normalised over its own results,
  `alpha * vector + (1 - alpha) * keyword`, a record missing from a leg scoring 0 there, then
  (unless `rerank=False`) re-scored by `cairn.memory.store.rerank` over the fused head, still in [0, 1].
- Bad input (wrong vector dimension, NaN, empty or oversized text, unknown filter field) raises
  `StoreError` and stores nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cairn.core import CairnError, Memory, MemoryKind, displayable

SearchMode = Literal["vector", "keyword", "hybrid"]
MAX_TEXT_CHARS = 100_000


class StoreError(CairnError, ValueError):
    """Bad input to a store; nothing was written."""


class SearchFilter(BaseModel):
    """Metadata filters. Unknown fields are refused (`extra="forbid"`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenants: list[str] = Field(default_factory=list)  # empty: every tenant
    kinds: list[MemoryKind] = Field(default_factory=list)
    subtypes: list[str] = Field(default_factory=list)
    min_confidence: float | None = None
    max_confidence: float | None = None
    since: float | None = None  # created_at >= since
    until: float | None = None  # created_at <= until
    file_path: str | None = None
    active: bool | None = None
    thread_id: str | None = None
    domain: str | None = None
    task_type: str | None = None

    @field_validator("file_path")
    @classmethod
    def _valid_unicode(cls, value: str | None) -> str | None:
        return displayable(value) if value else value  # as `Memory.file_path` holds it


class SearchQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    mode: SearchMode = "hybrid"
    # 1 = pure vector, 0 = pure keyword. The default leans on keywords: BM25 is the stronger leg with
    # the offline embedder (and, per the field notes, even against MiniLM on dialog); the vector leg
    # rescues paraphrases and inflections. See docs/design.md, "Memory store".
    alpha: float = Field(default=0.3, ge=0.0, le=1.0)
    k: int = Field(default=10, ge=1, le=1000)
    min_score: float = Field(default=0.0, ge=0.0, le=1.0)
    filter: SearchFilter = SearchFilter()
    rerank: bool = True  # hybrid only: the rerank stage over the fused head (`cairn.memory.store.rerank`)

    @field_validator("text")
    @classmethod
    def _valid_unicode(cls, value: str) -> str:
        return displayable(value)  # a name that is not UTF-8, searched as the index holds it


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    memory: Memory
    score: float
    vector_score: float | None = None
    keyword_score: float | None = None


M = TypeVar("M", SearchFilter, SearchQuery)


def parse_filter(value: Mapping[str, Any]) -> SearchFilter:
    """A `SearchFilter` from plain data (JSON, a CLI); a bad field is a one-line `StoreError`.

    >>> parse_filter({"tenants": ["t1"], "bogus": 1})
    Traceback (most recent call last):
    cairn.memory.store.protocol.StoreError: bad filter field 'bogus': Extra inputs are not permitted
    """
    return _validated(SearchFilter, value, "filter")


def parse_query(value: Mapping[str, Any]) -> SearchQuery:
    """A `SearchQuery` from plain data; a bad field is a one-line `StoreError`."""
    return _validated(SearchQuery, value, "query")


def _validated(model: type[M], value: Mapping[str, Any], what: str) -> M:
    try:
        return model.model_validate(dict(value))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or what
        raise StoreError(f"bad {what} field {where!r}: {first['msg']}") from None


_Hits = list[SearchHit]  # an alias: inside the Protocol, the method `list` shadows the builtin


@runtime_checkable
class MemoryStore(Protocol):
    """A searchable store of `Memory` records (see the module docstring for the semantics)."""

    def upsert(self, memories: Sequence[Memory], vectors: Sequence[Sequence[float]] | None = None) -> None:
        """Insert or merge records; vectors are computed with the store's embedder when omitted."""
        ...

    def get(self, key: str, tenant: str) -> Memory | None: ...

    def delete(self, keys: Sequence[str], tenant: str) -> int:
        """Delete records by key; returns how many existed."""
        ...

    def delete_tenant(self, tenant: str) -> int: ...

    def list(self, filter: SearchFilter, limit: int = 1000) -> list[Memory]:
        """Records matching a filter, newest first, without a query."""
        ...

    def search(self, query: SearchQuery, vector: Sequence[float] | None = None) -> _Hits: ...

    def record_access(self, keys: Sequence[str], tenant: str) -> None:
        """Increment access counts (retrieval by an agent)."""
        ...

    def purge_expired(self) -> int: ...

    def count(self, filter: SearchFilter | None = None) -> int: ...

    def close(self) -> None: ...
