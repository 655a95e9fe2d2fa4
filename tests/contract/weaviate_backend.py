"""Weaviate backends of the contract suite: the wire-level double, and a live server.

A store's collections are named after its test's `tmp_path` (plus a per-session salt), so opening
a backend twice on one `tmp_path` reaches the same data, as reopening an SQLite file does, and no
two tests share collections. Connecting a client costs about half a second, so every double-backed
store shares one double and one client for the session (stopped at exit); on a live server each
test's collections are deleted when it ends (`drop_collections`), so a server the session was
given is left as it was found.

>>> store = make_weaviate_double_store(tmp_path, HashingEmbedder(dim=32))  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import hashlib
import uuid
import weakref
from pathlib import Path
from typing import Any

from cairn.memory.embed.embeddings import Embedder
from cairn.memory.store.weaviate_store import WeaviateStore, connect_client
from tests.contract.weaviate_double import WeaviateDouble
from tests.weaviate_server import LiveWeaviate

_SALT = uuid.uuid4().hex  # pytest reuses tmp path names across sessions; live collections outlive them
_shared: dict[str, Any] = {}  # "double", "client": created on first use, closed at exit
GROUPS = ("Evidence", "Memory")


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


def make_weaviate_live_store(tmp_path: Path, embedder: Embedder, server: LiveWeaviate) -> WeaviateStore:
    """A store on the session's real server, in collections of this test's own."""
    return WeaviateStore(
        server.url, embedder, collection_prefix=collection_prefix(tmp_path), grpc_port=server.grpc_port
    )


def drop_collections(server: LiveWeaviate, tmp_path: Path) -> None:
    """Delete the collections a test's stores created on the live server."""
    client = connect_client(server.url, server.grpc_port)
    try:
        client.collections.delete([f"{collection_prefix(tmp_path)}{group}" for group in GROUPS])
    finally:
        client.close()
