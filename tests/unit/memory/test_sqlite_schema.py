"""The SQLite file's schema version: older files are migrated in place, newer ones refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cairn.core import Memory
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.protocol import SearchFilter, SearchMode, SearchQuery, StoreError
from cairn.memory.store.sqlite_rows import tenant_tag
from cairn.memory.store.sqlite_store import SQLiteStore

DIM = 16
# The layout Cairn wrote before records had a `context` (schema version 1), as it wrote it.
V1_LAYOUT = (
    """CREATE TABLE memories (
        id INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, content TEXT NOT NULL,
        tenant TEXT NOT NULL, domain TEXT NOT NULL, task_type TEXT NOT NULL, subtype TEXT,
        level TEXT NOT NULL, active INTEGER NOT NULL, confidence REAL NOT NULL, source TEXT,
        file_path TEXT, thread_id TEXT, agents TEXT NOT NULL, access_count INTEGER NOT NULL,
        created_at REAL NOT NULL, updated_at REAL NOT NULL, expires_at REAL, vector BLOB NOT NULL,
        UNIQUE (tenant, key))""",
    "CREATE VIRTUAL TABLE memories_fts USING fts5(content, tenant_tag, "
    "tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


def _v1_file(path: Path, *, versioned: bool = True) -> None:
    vector = HashingEmbedder(dim=DIM).embed(["the old deploy checklist"])[0].tobytes()
    with sqlite3.connect(path) as conn:
        for statement in V1_LAYOUT:
            conn.execute(statement)
        conn.execute(
            "INSERT INTO memories VALUES (1, 'k-old', 'fact', 'the old deploy checklist', 't1', 'general', "
            "'general', NULL, 'episodic', 1, 1.0, NULL, NULL, NULL, '[]', 0, 1.0, 1.0, NULL, ?)",
            (vector,),
        )
        conn.execute("INSERT INTO memories_fts VALUES ('the old deploy checklist', ?)", (tenant_tag("t1"),))
        conn.execute("INSERT INTO settings VALUES ('dim', ?)", (str(DIM),))
        if versioned:
            conn.execute("INSERT INTO settings VALUES ('schema_version', '1')")


def _search(store: SQLiteStore, text: str, mode: SearchMode = "keyword") -> list[str]:
    query = SearchQuery(text=text, mode=mode, filter=SearchFilter(tenants=["t1"]))
    return [hit.memory.key for hit in store.search(query)]


@pytest.mark.parametrize("versioned", [True, False], ids=["version-1", "before-versioning"])
def test_a_version_1_file_is_migrated_and_keeps_its_records(tmp_path: Path, versioned: bool) -> None:
    path = tmp_path / "old.db"
    _v1_file(path, versioned=versioned)
    with SQLiteStore(path, HashingEmbedder(dim=DIM)) as store:
        assert _search(store, "deploy") == ["k-old"] and _search(store, "deploy", "hybrid")[0] == "k-old"
        old = store.get("k-old", "t1")
        assert old is not None and old.context is None
        store.upsert(
            [Memory(key="k-new", kind="fact", content="yes!", context="the pottery class", tenant="t1")]
        )
        assert _search(store, "pottery") == ["k-new"]
    with sqlite3.connect(path) as conn:
        version = conn.execute("SELECT value FROM settings WHERE name = 'schema_version'").fetchone()
        assert version == ("2",)
    with SQLiteStore(path, HashingEmbedder(dim=DIM)) as store:  # reopening migrates nothing twice
        assert set(_search(store, "checklist pottery")) == {"k-new", "k-old"} and store.count() == 2


def test_a_file_from_a_newer_cairn_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SQLiteStore(path, HashingEmbedder(dim=DIM)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE settings SET value = '99' WHERE name = 'schema_version'")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer Cairn") as error:
        SQLiteStore(path, HashingEmbedder(dim=DIM))
    assert "\n" not in str(error.value) and path.read_bytes() == before


def _pragma(path: Path, name: str) -> int:
    with SQLiteStore(path, HashingEmbedder(dim=DIM)) as store:
        return int(store._conn.execute(f"PRAGMA {name}").fetchone()[0])


def test_a_new_file_has_16_kib_pages_and_an_older_file_keeps_its_own(tmp_path: Path) -> None:
    assert _pragma(tmp_path / "new.db", "page_size") == 16384
    old = tmp_path / "old.db"
    _v1_file(old)  # SQLite's default page size, as files from before this choice have
    assert _pragma(old, "page_size") == 4096
    # The WAL is checkpointed at the same size in bytes whatever the file's page size.
    wal_pages = _pragma(old, "wal_autocheckpoint"), _pragma(tmp_path / "new.db", "wal_autocheckpoint")
    assert wal_pages[0] * 4096 == wal_pages[1] * 16384
    with SQLiteStore(old, HashingEmbedder(dim=DIM)) as store:
        assert _search(store, "deploy") == ["k-old"]
