"""A backend written outside Cairn runs the contract suite with the lines `docs/stores.md` gives.

`WrappedStore` is such a backend: a class of its own (no Cairn base class) that keeps its records in
an in-memory SQLite database through `SQLiteStore`, so it passes because the store underneath keeps
the contract, not because anything here knows the answers; a variant that miscounts fails, with the
values compared in the message. The docs' example runs as a user would run it: from its own folder
outside this repository, with no conftest and no pytest settings of ours.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from cairn.core import Memory
from cairn.memory.embed.embeddings import Embedder, HashingEmbedder
from cairn.memory.store import contract
from cairn.memory.store.contract import StoreContract
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchHit, SearchQuery
from cairn.memory.store.sqlite_store import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
CONTRACT_TESTS = 51  # what the suite collects for one backend


class WrappedStore:
    """A third party's backend: every call forwarded to an in-memory `SQLiteStore`."""

    def __init__(self, embedder: Embedder) -> None:
        self._inner = SQLiteStore(":memory:", embedder)

    def upsert(self, memories: Sequence[Memory], vectors: Sequence[Sequence[float]] | None = None) -> None:
        self._inner.upsert(memories, vectors)

    def get(self, key: str, tenant: str) -> Memory | None:
        return self._inner.get(key, tenant)

    def delete(self, keys: Sequence[str], tenant: str) -> int:
        return self._inner.delete(keys, tenant)

    def delete_tenant(self, tenant: str) -> int:
        return self._inner.delete_tenant(tenant)

    def list(self, filter: SearchFilter, limit: int = 1000) -> list[Memory]:
        return self._inner.list(filter, limit)

    def search(self, query: SearchQuery, vector: Sequence[float] | None = None) -> list[SearchHit]:
        return self._inner.search(query, vector)

    def record_access(self, keys: Sequence[str], tenant: str) -> None:
        self._inner.record_access(keys, tenant)

    def purge_expired(self) -> int:
        return self._inner.purge_expired()

    def count(self, filter: SearchFilter | None = None) -> int:
        return self._inner.count(filter)

    def close(self) -> None:
        self._inner.close()


class TestWrappedStore(StoreContract):
    def make_store(self, tmp_path: Path, embedder: Embedder) -> MemoryStore:
        return WrappedStore(embedder)


class MiscountingStore(WrappedStore):
    """A broken backend: one record too many in every count."""

    def count(self, filter: SearchFilter | None = None) -> int:
        return super().count(filter) + 1


def test_a_broken_backend_fails_with_the_values_compared() -> None:
    """The suite catches the fault, and pytest rewrote its asserts: the message has both counts."""
    store = MiscountingStore(HashingEmbedder(dim=64))
    try:
        with pytest.raises(AssertionError, match=r"assert 3 == 2"):
            TestWrappedStore().test_same_key_in_two_tenants_is_two_records(store)
    finally:
        store.close()


def _docs_example() -> str:
    text = (ROOT / "docs" / "stores.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "StoreContract" in b]
    assert len(blocks) == 1, "docs/stores.md shows one example that subclasses StoreContract"
    return blocks[0]


def test_the_module_docstring_shows_the_docs_example() -> None:
    assert textwrap.indent(_docs_example(), "    ").strip() in (contract.__doc__ or "")


def test_the_docs_example_passes_every_contract_test_from_outside_the_repository(tmp_path: Path) -> None:
    """`MyStore` stands for `SQLiteStore` here; the test file is the docs' lines as they are."""
    (tmp_path / "my_store.py").write_text(
        "from cairn.memory.store.sqlite_store import SQLiteStore as MyStore\n", encoding="utf-8"
    )
    (tmp_path / "test_my_store.py").write_text(_docs_example(), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_store.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert re.search(rf"\b{CONTRACT_TESTS} passed\b", proc.stdout), proc.stdout[-1000:]
