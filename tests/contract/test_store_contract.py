"""Cairn's own backends run the importable contract suite (`cairn.memory.store.contract`).

One class per backend: `sqlite`, the wire-level Weaviate double, and a real Weaviate server. The
live class carries the `weaviate_live` marker, so `pytest -m 'not weaviate_live'` (`make
test-fast`) leaves it out; it is never skipped for want of a server (`tests/weaviate_server.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.memory.embed.embeddings import Embedder
from cairn.memory.store._contract_cases import FILTER_CASES
from cairn.memory.store.contract import StoreContract
from cairn.memory.store.protocol import MemoryStore, SearchFilter
from cairn.memory.store.sqlite_store import SQLiteStore
from tests.contract.weaviate_backend import (
    drop_collections,
    make_weaviate_double_store,
    make_weaviate_live_store,
)
from tests.weaviate_server import MARKER, LiveWeaviate


class TestSQLite(StoreContract):
    def make_store(self, tmp_path: Path, embedder: Embedder) -> MemoryStore:
        return SQLiteStore(tmp_path / "memory.db", embedder)


class TestWeaviateDouble(StoreContract):
    def make_store(self, tmp_path: Path, embedder: Embedder) -> MemoryStore:
        return make_weaviate_double_store(tmp_path, embedder)


@getattr(pytest.mark, MARKER)
class TestWeaviateLive(StoreContract):
    """On the session's server; each test's collections are deleted after the store closes."""

    @pytest.fixture
    def store(
        self, tmp_path: Path, embedder: Embedder, weaviate_server: LiveWeaviate
    ) -> Iterator[MemoryStore]:
        live = make_weaviate_live_store(tmp_path, embedder, weaviate_server)
        yield live
        live.close()
        drop_collections(weaviate_server, tmp_path)


def test_filter_cases_cover_every_filter_field() -> None:
    """The suite's own completeness: every `SearchFilter` field has a case (confidence: two)."""
    assert set(FILTER_CASES) | {"min_confidence", "max_confidence"} == set(SearchFilter.model_fields)
