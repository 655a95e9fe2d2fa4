"""The memory index: the `MemoryStore` protocol and its backends (embedded SQLite, Weaviate), hybrid
fusion and reranking, opened by kind with `open_store`. `cairn.memory.store.contract`, the contract
suite any backend can run, imports pytest and is not imported here (docs/stores.md).
"""

from __future__ import annotations

from cairn.memory.store.backends import open_store
from cairn.memory.store.fusion import minmax, relative_score_fusion
from cairn.memory.store.protocol import (
    MAX_TEXT_CHARS,
    MemoryStore,
    SearchFilter,
    SearchHit,
    SearchMode,
    SearchQuery,
    StoreError,
    parse_filter,
    parse_query,
)
from cairn.memory.store.rerank import participant_scores, rerank_depth
from cairn.memory.store.sqlite_store import SQLiteStore
from cairn.memory.store.weaviate_store import WeaviateStore, connect_client

__all__ = [
    "MAX_TEXT_CHARS",
    "MemoryStore",
    "SQLiteStore",
    "SearchFilter",
    "SearchHit",
    "SearchMode",
    "SearchQuery",
    "StoreError",
    "WeaviateStore",
    "connect_client",
    "minmax",
    "open_store",
    "parse_filter",
    "parse_query",
    "participant_scores",
    "relative_score_fusion",
    "rerank_depth",
]
