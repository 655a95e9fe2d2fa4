"""Records as SQLite rows: the batched write paths of `SQLiteStore` and reading rows back.

Every function here runs inside a transaction the caller opened (`cairn.memory.store.sqlite_schema.write`),
so a batch is stored entirely or not at all.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from cairn.core import Memory
from cairn.memory.dialog import SUBTYPE, speaker_in

FIELDS = tuple(Memory.model_fields)
COLUMNS = ", ".join(f"m.{name}" for name in FIELDS)
_NAMES, _MARKS = ", ".join(FIELDS), ", ".join("?" * len(FIELDS))
_INSERT = f"INSERT INTO memories (id, {_NAMES}, vector) VALUES (?, {_MARKS}, ?)"
_UPDATE = f"UPDATE memories SET {', '.join(f'{name} = ?' for name in FIELDS)}, vector = ? WHERE id = ?"
INSERT_FTS = "INSERT INTO memories_fts (rowid, content, tenant_tag, context) VALUES (?, ?, ?, ?)"
_UPDATE_FTS = "UPDATE memories_fts SET content = ?, context = ? WHERE rowid = ?"
_AGENTS, _ACCESS = FIELDS.index("agents"), FIELDS.index("access_count")
_CONTENT, _TENANT, _CONTEXT = FIELDS.index("content"), FIELDS.index("tenant"), FIELDS.index("context")
_KEYS_PER_QUERY = 500  # stays under SQLite's bound-parameter limit
Known = tuple[int, list[str], int]  # a stored record's id, agents and access count


@functools.lru_cache(maxsize=4096)
def tenant_tag(tenant: str) -> str:
    """A tenant as one FTS token: a letter and digits, so no tokenizer or stemmer can alter it."""
    return "t" + str(int(hashlib.sha256(tenant.encode()).hexdigest()[:15], 16))


def marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


def _values(memory: Memory, agents: list[str], access_count: int, vector: bytes) -> list[Any]:
    values = [getattr(memory, name) for name in FIELDS]
    # Most records have no agents: skip the JSON encoder for the common empty list.
    values[_AGENTS], values[_ACCESS] = (json.dumps(agents) if agents else "[]"), access_count
    values.append(vector)
    return values


def upsert_rows(conn: sqlite3.Connection, batch: list[Memory], vectors: np.ndarray[Any, Any]) -> None:
    """Insert new records and merge existing ones, batched (`executemany`) for throughput."""
    known = _existing(conn, batch)
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM memories").fetchone()[0]) + 1
    blobs = np.ascontiguousarray(vectors, dtype=np.float32)
    inserts: list[list[Any]] = []
    updates: list[list[Any]] = []
    for memory, vector in zip(batch, blobs, strict=True):
        where = (memory.tenant, memory.key)
        if where not in known:  # ids are ours to assign: we hold the write lock
            known[where] = (next_id, memory.agents, memory.access_count)
            inserts.append([next_id, *_values(memory, memory.agents, memory.access_count, vector.tobytes())])
            next_id += 1
            continue
        row_id, agents, access = known[where]
        merged = list(dict.fromkeys([*agents, *memory.agents]))
        known[where] = (row_id, merged, max(access, memory.access_count))
        updates.append([*_values(memory, merged, known[where][2], vector.tobytes()), row_id])
    conn.executemany(_INSERT, inserts)
    conn.executemany(
        INSERT_FTS,
        [(row[0], row[1 + _CONTENT], tenant_tag(row[1 + _TENANT]), row[1 + _CONTEXT]) for row in inserts],
    )
    conn.executemany(_UPDATE, updates)
    conn.executemany(_UPDATE_FTS, [(row[_CONTENT], row[_CONTEXT], row[-1]) for row in updates])


def _existing(conn: sqlite3.Connection, batch: list[Memory]) -> dict[tuple[str, str], Known]:
    """Stored (id, agents, access_count) of the batch's records that already exist."""
    by_tenant: dict[str, list[str]] = {}
    for memory in batch:
        by_tenant.setdefault(memory.tenant, []).append(memory.key)
    known: dict[tuple[str, str], Known] = {}
    for tenant, keys in by_tenant.items():
        for start in range(0, len(keys), _KEYS_PER_QUERY):
            chunk = keys[start : start + _KEYS_PER_QUERY]
            query = (
                "SELECT tenant, key, id, agents, access_count FROM memories "
                f"WHERE tenant = ? AND key IN ({marks(chunk)})"
            )
            for row in conn.execute(query, [tenant, *chunk]):
                known[(row[0], row[1])] = (row[2], json.loads(row[3]), row[4])
    return known


def delete_rows(conn: sqlite3.Connection, where: str, params: list[Any]) -> int:
    ids = [(row[0],) for row in conn.execute(f"SELECT id FROM memories WHERE {where}", params)]
    conn.executemany("DELETE FROM memories_fts WHERE rowid = ?", ids)
    conn.executemany("DELETE FROM memories WHERE id = ?", ids)
    return len(ids)


def increment_access(conn: sqlite3.Connection, rows: list[tuple[str, str]]) -> None:
    update = "UPDATE memories SET access_count = access_count + 1 WHERE tenant = ? AND key = ?"
    conn.executemany(update, rows)


def to_memory(row: Sequence[Any]) -> Memory:
    data = dict(zip(FIELDS, row, strict=True))
    data.update(agents=json.loads(data["agents"]), active=bool(data["active"]))
    return Memory.model_validate(data)


def speakers_by_id(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str | None]:
    """The speaker of each dialog turn among `ids` (other records are left out)."""
    query = f"SELECT id, content FROM memories WHERE id IN ({marks(ids)}) AND subtype = ?"
    return {row_id: speaker_in(content) for row_id, content in conn.execute(query, [*ids, SUBTYPE])}


def memories_by_id(conn: sqlite3.Connection, ids: list[int]) -> dict[int, Memory]:
    query = f"SELECT m.id, {COLUMNS} FROM memories m WHERE m.id IN ({marks(ids)})"
    return {row[0]: to_memory(row[1:]) for row in conn.execute(query, ids)} if ids else {}
