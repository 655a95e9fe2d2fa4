"""SQLiteStore durability: acknowledged writes survive SIGKILL; concurrent writers lose nothing."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.protocol import SearchFilter
from cairn.memory.store.sqlite_store import SQLiteStore
from tests.unit.memory.store_writer import DIM

ROOT = Path(__file__).resolve().parents[3]


def writer(db: Path, prefix: str, count: int, shared: int = 0) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "tests.unit.memory.store_writer", str(db), prefix, str(count), str(shared)]
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)


def assert_intact(db: Path) -> None:
    """SQLite's integrity check, FTS5's own, and one FTS row per record (nothing half-written)."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
        rows = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0] == rows
        assert (
            conn.execute("SELECT count(*) FROM memories WHERE length(vector) != ?", (DIM * 4,)).fetchone()[0]
            == 0
        )
    conn.close()


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    child = writer(db, "w", 100_000)
    assert child.stdout is not None
    acknowledged = [child.stdout.readline().strip() for _ in range(60)]
    child.send_signal(signal.SIGKILL)
    acknowledged += [line.strip() for line in child.stdout]  # keys printed before the kill landed
    child.wait()
    assert child.returncode == -signal.SIGKILL
    assert_intact(db)
    with SQLiteStore(db, HashingEmbedder(dim=DIM)) as store:
        missing = [key for key in acknowledged if store.get(key, "t") is None]
        assert missing == []
        assert store.count(SearchFilter(tenants=["t"])) >= len(acknowledged)


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    children = [writer(db, prefix, 100, shared=20) for prefix in ("a", "b")]
    outputs = [child.communicate(timeout=60)[0].split() for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert_intact(db)
    with SQLiteStore(db, HashingEmbedder(dim=DIM)) as store:
        assert store.count() == 2 * 100 - 20  # the shared keys are one record each
        assert all(store.get(key, "t") is not None for keys in outputs for key in keys)
        merged = [sorted(store.get(f"shared-{i}", "t").agents) for i in range(20)]  # type: ignore[union-attr]
        assert merged == [["a", "b"]] * 20  # read-merge-write of agents is serialised
