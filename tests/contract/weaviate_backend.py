"""Weaviate backends of the contract suite: the wire-level double, and a live server.

Both factories return a `WeaviateStore` whose `close()` also releases what the factory set up
(the double's two servers; the live test's collections), and a finalizer does the same should a
test never close its store.

>>> store = make_weaviate_double_store(tmp_path, HashingEmbedder(dim=32))  # doctest: +SKIP
>>> store.double.requests("BatchObjects")  # doctest: +SKIP
[]
"""

from __future__ import annotations

import os
import uuid
import weakref
from pathlib import Path

import pytest

from memory.embeddings import Embedder
from memory.weaviate_store import WeaviateStore
from tests.contract.weaviate_double import WeaviateDouble


class DoubleWeaviateStore(WeaviateStore):
    """A `WeaviateStore` talking to its own `WeaviateDouble` (kept as `.double` for assertions)."""

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


class LiveWeaviateStore(WeaviateStore):
    """A `WeaviateStore` on a real server, under a prefix of its own; `close()` drops its collections."""

    def close(self) -> None:
        try:
            for name in self._names.values():
                self._client.collections.delete(name)
        finally:
            super().close()


def make_weaviate_double_store(tmp_path: Path, embedder: Embedder) -> DoubleWeaviateStore:
    """A store on a fresh double (free loopback ports); `tmp_path` is unused: the state is in memory."""
    return DoubleWeaviateStore(embedder)


def make_weaviate_live_store(tmp_path: Path, embedder: Embedder) -> LiveWeaviateStore:
    """A store on `WEAVIATE_URL` (gRPC on `WEAVIATE_GRPC_PORT`, default 50051); skips when unset."""
    url = os.environ.get("WEAVIATE_URL")
    if not url:
        pytest.skip("WEAVIATE_URL is not set: no live Weaviate to test against")
    grpc_port = int(os.environ.get("WEAVIATE_GRPC_PORT", "50051"))
    prefix = f"CairnTest{uuid.uuid4().hex[:12]}"  # one test's collections never meet another's
    return LiveWeaviateStore(url, embedder, collection_prefix=prefix, grpc_port=grpc_port)
