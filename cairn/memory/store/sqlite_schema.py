"""The SQLite file behind `SQLiteStore`: tables, pragmas, schema version, and write transactions.

- `memories` holds one row per tenant and key, its vector a float32 BLOB.
- `memories_fts` (FTS5, porter + unicode61) indexes each record's text in `content`, its tenant
  as one token in `tenant_tag` (so a tenant-filtered keyword query intersects posting lists and
  ranks only the tenant's matches, see `cairn.memory.store.sqlite_search`) and its `context`, weighted lower.
- `settings` records the vector dimension and `schema_version`. A file written by a newer schema
  is refused with a clear error instead of being misread; files from before versioning have the
  version-1 layout and are stamped as such. Version 1 (no `context`) is migrated in place to 2.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

from cairn.memory.store.protocol import StoreError
from cairn.memory.store.sqlite_rows import INSERT_FTS, tenant_tag

SCHEMA_VERSION = 2
_FTS = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(content, tenant_tag, context, "
    "tokenize = 'porter unicode61 remove_diacritics 2')"
)
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS memories (
        id INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, content TEXT NOT NULL,
        tenant TEXT NOT NULL, domain TEXT NOT NULL, task_type TEXT NOT NULL, subtype TEXT,
        level TEXT NOT NULL, active INTEGER NOT NULL, confidence REAL NOT NULL, source TEXT,
        file_path TEXT, thread_id TEXT, agents TEXT NOT NULL, access_count INTEGER NOT NULL,
        created_at REAL NOT NULL, updated_at REAL NOT NULL, expires_at REAL, vector BLOB NOT NULL,
        context TEXT, UNIQUE (tenant, key))""",
    "CREATE INDEX IF NOT EXISTS memories_created ON memories (tenant, created_at)",
    "CREATE INDEX IF NOT EXISTS memories_expires ON memories (expires_at) WHERE expires_at IS NOT NULL",
    _FTS,
    "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
# What the WAL may hold before a commit checkpoints it into the main file (SQLite's default is
# 1000 pages). A bulk upsert of 1000 records writes about 4 MB, so the default syncs the file on
# nearly every batch; 16 MB keeps one sync per few batches. Durability is unchanged: a commit is
# acknowledged once it is in the WAL, whatever the checkpoint interval.
_WAL_BYTES = 16 * 1024 * 1024
# A record's row is about 2 KB (a 384-dim float32 vector is 1.5 KB of it), so 4 KiB pages hold one
# or two rows and a bulk upsert splits pages constantly; 16 KiB pages made 100k inserts 25-30%
# faster (`bench/store.py`). A file keeps the page size it was created with.
_PAGE_BYTES = 16384
_WAL_KEEP_BYTES = 64 * 1024 * 1024  # truncate the WAL back to this after a checkpoint
T = TypeVar("T")


def open_database(conn: sqlite3.Connection, dim: int, retries: int) -> None:
    """Set the connection up (WAL, caches) and create or check the schema."""
    # WAL + synchronous=NORMAL: COMMIT returns once the transaction's frames are in the WAL file,
    # i.e. in the OS page cache, so a killed process (SIGKILL) loses nothing acknowledged; only an
    # OS crash or power cut could lose the last commits before a checkpoint syncs them.
    conn.execute(f"PRAGMA page_size = {_PAGE_BYTES}")  # takes effect only while the file is empty
    retrying(retries, lambda: conn.execute("PRAGMA journal_mode = WAL"))
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: index pages stay hot during bulk upserts
    page_bytes = int(conn.execute("PRAGMA page_size").fetchone()[0])  # an older file's may differ
    conn.execute(f"PRAGMA wal_autocheckpoint = {_WAL_BYTES // page_bytes}")
    conn.execute(f"PRAGMA journal_size_limit = {_WAL_KEEP_BYTES}")
    write(conn, retries, lambda c: _create_schema(c, dim))


def _create_schema(conn: sqlite3.Connection, dim: int) -> None:
    fresh = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'memories'").fetchone()[0] == 0
    if not fresh:
        conn.execute("CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        # A file from before versioning has the version-1 layout: stamping it 1 is accurate.
        conn.execute("INSERT OR IGNORE INTO settings VALUES ('schema_version', '1')")
        if _setting(conn, "schema_version") == 1:
            _migrate_1_to_2(conn)
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.execute("INSERT OR IGNORE INTO settings VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    _check_setting(conn, "schema_version", SCHEMA_VERSION, "was written by a newer Cairn (schema")
    conn.execute("INSERT OR IGNORE INTO settings VALUES ('dim', ?)", (str(dim),))
    _check_setting(conn, "dim", dim, "holds vectors of another dimension (")


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    """Add `context`: a column of `memories`, and a third FTS5 column (FTS5 cannot add one, so the
    index is rebuilt from `memories`; version-1 records have no context to index)."""
    conn.execute("ALTER TABLE memories ADD COLUMN context TEXT")
    conn.execute("DROP TABLE memories_fts")
    conn.execute(_FTS)
    rows = conn.execute("SELECT id, content, tenant FROM memories ORDER BY id")
    conn.executemany(
        INSERT_FTS, ((i, content, tenant_tag(tenant), None) for i, content, tenant in rows.fetchall())
    )
    conn.execute("UPDATE settings SET value = '2' WHERE name = 'schema_version'")


def _setting(conn: sqlite3.Connection, name: str) -> int:
    return int(conn.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()[0])


def _check_setting(conn: sqlite3.Connection, name: str, expected: int, problem: str) -> None:
    stored = _setting(conn, name)
    if stored != expected:
        raise StoreError(
            f"this memory store {problem}{stored}; expected {expected}): open it with a "
            "matching Cairn and embedder, or re-index into a new file"
        )


def retrying(retries: int, action: Callable[[], T]) -> T:
    """Run `action`, retrying with backoff while another process holds the lock."""
    for attempt in range(retries):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            time.sleep(0.02 * 2**attempt)
    return action()


def write(conn: sqlite3.Connection, retries: int, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run `body` in one IMMEDIATE transaction, committed before returning; any error rolls back."""
    retrying(retries, lambda: conn.execute("BEGIN IMMEDIATE"))
    try:
        result = body(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result
