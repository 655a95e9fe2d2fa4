"""Several writers, one memory store: nothing acknowledged is lost, shared memories stay one record.

- SQLite: 4 processes x 2,000 acknowledged upserts into one file (WAL, busy timeout, retries), plus
  shared records every writer stores and counts accesses to; every acknowledged write is present,
  each shared record lists all four agents, and its access count equals the acknowledged accesses.
- Both backends (SQLite, the Weaviate double): three tasks stating the same rule through the live
  indexer make one shared record whose agents are the three tasks and whose access count is 3,
  and a task restating it (or a reindex) does not count again.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.core import ConstraintExtracted, Envelope, TaskCreated, memory_key
from cairn.memory.embed.embeddings import Embedder, HashingEmbedder
from cairn.memory.index.indexer import SHARED, index
from cairn.memory.log.state import replay
from cairn.memory.store.protocol import MemoryStore, SearchFilter
from cairn.memory.store.sqlite_store import SQLiteStore
from tests.contract.weaviate_backend import make_weaviate_double_store
from tests.unit.memory.stress_writer import DIM, TENANT

ROOT = Path(__file__).resolve().parents[3]
WRITERS, WRITES, SHARED_KEYS = 4, 2_000, 20


@pytest.mark.stress
def test_four_processes_lose_no_acknowledged_write(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    SQLiteStore(db, HashingEmbedder(dim=DIM)).close()  # create the schema before the race
    started = time.monotonic()
    child = [sys.executable, "-m", "tests.unit.memory.stress_writer", str(db)]
    children = [
        subprocess.Popen(
            [*child, f"w{n}", str(WRITES), str(SHARED_KEYS)],
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(WRITERS)
    ]
    outputs = [child.communicate(timeout=600) for child in children]
    elapsed = time.monotonic() - started
    assert [child.returncode for child in children] == [0] * WRITERS, [err[-2000:] for _, err in outputs]
    lines = [line.split() for out, _ in outputs for line in out.splitlines()]
    own = [key for kind, key in lines if kind == "own"]
    accesses = Counter(key for kind, key in lines if kind == "access")
    assert len(own) == WRITERS * WRITES  # every writer ran to the end
    with SQLiteStore(db, HashingEmbedder(dim=DIM)) as store:
        stored = {m.key: m for m in store.list(SearchFilter(tenants=[TENANT]), limit=100_000)}
        assert [key for key in own if key not in stored] == []
        assert len(stored) == WRITERS * WRITES + SHARED_KEYS
        for key, count in accesses.items():
            assert stored[key].access_count == count, key  # no increment lost, none doubled
            assert sorted(stored[key].agents) == [f"w{n}" for n in range(WRITERS)]
    print(f"\n{WRITERS} x {WRITES} writes (+ {sum(accesses.values())} shared) in {elapsed:.1f}s")


def _sqlite(tmp: Path, embedder: Embedder) -> MemoryStore:
    return SQLiteStore(tmp / "memory.db", embedder)


BACKENDS = {"sqlite": _sqlite, "weaviate-double": make_weaviate_double_store}


@pytest.mark.parametrize("make_store", list(BACKENDS.values()), ids=list(BACKENDS))
def test_a_rule_stated_by_three_tasks_is_one_record_counted_three_times(
    tmp_path: Path, make_store: Callable[[Path, Embedder], MemoryStore]
) -> None:
    store = make_store(tmp_path, HashingEmbedder(dim=32))
    rule = "Always cite the source file of every figure."
    key = memory_key(rule, "rules", "general")
    for task_id in ("task-a", "task-b", "task-c", "task-a"):  # task-a states it twice
        _state_rule(store, task_id, rule, key)
    stored = store.get(key, SHARED)
    assert stored is not None and stored.access_count == 3
    assert stored.agents == ["task-a", "task-b", "task-c"]
    assert store.count(SearchFilter(tenants=[SHARED], kinds=["constraint"])) == 1
    store.close()


def _state_rule(store: MemoryStore, task_id: str, rule: str, key: str) -> None:
    state = replay([TaskCreated(task_id=task_id, goal="g", task_type="research_task")])
    event = ConstraintExtracted(message=f"Please. {rule}", rule=rule, key=key)
    index(store, state, Envelope(seq=2, ts=1.0, prev="", hash="", event=event), Path("."))
