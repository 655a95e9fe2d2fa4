"""Weaviate backends of the contract suite: the wire-level double, and a live server.

A store's collections are named after its test's `tmp_path` (plus a per-session salt), so opening
a backend twice on one `tmp_path` reaches the same data, as reopening an SQLite file does, and no
two tests share collections. Connecting a client costs about half a second, so every double-backed
store shares one double and one client for the session; a finalizer registry (`atexit`) stops the
double and, on a live server, deletes the collections the session created.

>>> store = make_weaviate_double_store(tmp_path, HashingEmbedder(dim=32))  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import hashlib
import os
import uuid
import weakref
from pathlib import Path
from typing import Any

import pytest

from cairn.memory.embeddings import Embedder
from cairn.memory.weaviate_store import WeaviateStore, connect_client
from tests.contract.weaviate_double import WeaviateDouble

_SALT = uuid.uuid4().hex  # pytest reuses tmp path names across sessions; live collections outlive them
_shared: dict[str, Any] = {}  # "double", "client": created on first use, closed at exit
_live_prefixes: set[str] = set()


def collection_prefix(tmp_path: Path) -> str:
    """A collection prefix unique to one test (and stable for that test's `tmp_path`)."""
    return "CairnT" + hashlib.sha256(f"{_SALT}:{tmp_path}".encode()).hexdigest()[:12]


class DoubleWeaviateStore(WeaviateStore):
    """A `WeaviateStore` on a double of its own (`.double`, for request-log assertions)."""

    def __init__(self, embedder: Embedder, *, collection_prefix: str = "Cairn") -> None:
        self.double = WeaviateDouble()
        weakref.finalize(self, self.double.close)
        try:
            super().__init__(
                self.double.url,
                embedder,
                collection_prefix=collection_prefix,
                grpc_port=self.double.grpc_port,
            )
        except BaseException:
            self.double.close()
            raise

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.double.close()


def shared_double() -> tuple[WeaviateDouble, Any]:
    """The session's double and a client connected to it."""
    if not _shared:
        double = WeaviateDouble()
        _shared.update(double=double, client=connect_client(double.url, double.grpc_port))
        atexit.register(_close_shared)
    return _shared["double"], _shared["client"]


def _close_shared() -> None:
    client, double = _shared.pop("client", None), _shared.pop("double", None)
    if client is not None:
        client.close()
    if double is not None:
        double.close()


def make_weaviate_double_store(tmp_path: Path, embedder: Embedder) -> WeaviateStore:
    """A store on the session's double, in collections of this test's own."""
    _, client = shared_double()
    return WeaviateStore.from_client(client, embedder, collection_prefix=collection_prefix(tmp_path))


def make_weaviate_live_store(tmp_path: Path, embedder: Embedder) -> WeaviateStore:
    """A store on `WEAVIATE_URL` (gRPC on `WEAVIATE_GRPC_PORT`, default 50051); skips when unset."""
    url = os.environ.get("WEAVIATE_URL")
    if not url:
        pytest.skip("WEAVIATE_URL is not set: no live Weaviate to test against")
    grpc_port = int(os.environ.get("WEAVIATE_GRPC_PORT", "50051"))
    prefix = collection_prefix(tmp_path)
    if not _live_prefixes:
        atexit.register(_drop_live_collections, url, grpc_port)
    _live_prefixes.add(prefix)
    return WeaviateStore(url, embedder, collection_prefix=prefix, grpc_port=grpc_port)


def _drop_live_collections(url: str, grpc_port: int) -> None:
    client = connect_client(url, grpc_port)
    try:
        client.collections.delete([f"{p}{group}" for p in _live_prefixes for group in ("Evidence", "Memory")])
    finally:
        client.close()
