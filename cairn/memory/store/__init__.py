"""The memory index: the `MemoryStore` protocol and its backends (embedded SQLite, Weaviate), hybrid
fusion and reranking, opened by kind with `open_store`. `cairn.memory.store.contract`, the contract
suite any backend can run, imports pytest and is not imported here (docs/stores.md).
"""

from __future__ import annotations

from cairn.memory.store.backends import open_store
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchHit, SearchQuery, StoreError
from cairn.memory.store.sqlite_store import SQLiteStore
from cairn.memory.store.weaviate_store import WeaviateStore

__all__ = [
    "MemoryStore",
    "SQLiteStore",
    "SearchFilter",
    "SearchHit",
    "SearchQuery",
    "StoreError",
    "WeaviateStore",
    "open_store",
]
