"""`cairn reindex` rebuilds a task's sources in the store too: a store the task never ran on (after
a move from SQLite to Weaviate) otherwise has none, and the task's searches reach them."""

from __future__ import annotations

from pathlib import Path

from cairn.flows.cli.commands import reindex_sources
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.index.sources import source_tenant
from cairn.memory.store.protocol import SearchFilter
from cairn.memory.store.sqlite_store import SQLiteStore
from tests.conftest import CORPUS


def test_present_sources_are_indexed_and_missing_ones_named(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=32))
    gone = tmp_path / "gone"
    found = reindex_sources(store, {"corpus": str(CORPUS), "gone": str(gone)})
    assert found == {"corpus": "indexed", "gone": "missing"}
    files = store.count(SearchFilter(tenants=[source_tenant(CORPUS)], subtypes=["file"]))
    assert files == len([p for p in CORPUS.iterdir() if p.is_file()])
    assert store.count(SearchFilter(tenants=[source_tenant(gone)])) == 0
    store.close()
