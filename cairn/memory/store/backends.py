"""Opening a `MemoryStore` by kind. Backends are imported lazily, so the embedded store never
imports weaviate-client.

>>> from cairn.memory.embed.embeddings import HashingEmbedder
>>> store = open_store("sqlite", path=":memory:", embedder=HashingEmbedder(dim=32))
>>> store.count()
0
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from cairn.memory.embed.embeddings import Embedder
from cairn.memory.store.protocol import MemoryStore, StoreError

StoreKind = Literal["sqlite", "weaviate"]


def open_store(
    kind: StoreKind,
    *,
    path: str | Path,
    embedder: Embedder,
    url: str | None = None,
    grpc_port: int | None = None,
) -> MemoryStore:
    """The store of `kind`: `sqlite` at `path`, or `weaviate` at `url` (WEAVIATE_URL) with gRPC on
    `grpc_port` (WEAVIATE_GRPC_PORT; None: 50051).

    >>> from cairn.memory.embed.embeddings import HashingEmbedder
    >>> open_store("weaviate", path="", embedder=HashingEmbedder(dim=32))
    Traceback (most recent call last):
    cairn.memory.store.protocol.StoreError: the weaviate store needs a url (WEAVIATE_URL)
    """
    if kind == "sqlite":
        from cairn.memory.store.sqlite_store import SQLiteStore

        return SQLiteStore(path, embedder)
    if kind == "weaviate":
        if not url:
            raise StoreError("the weaviate store needs a url (WEAVIATE_URL)")
        from cairn.memory.store.weaviate_store import WeaviateStore  # type: ignore[import-not-found,unused-ignore]

        store: MemoryStore = WeaviateStore(url, embedder, grpc_port=grpc_port)
        return store
    raise StoreError(f"unknown store kind {kind!r}; expected 'sqlite' or 'weaviate'")
