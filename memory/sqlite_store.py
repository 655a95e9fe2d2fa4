"""`SQLiteStore`: the embedded `MemoryStore` — one SQLite file, WAL, FTS5 BM25, exact numpy vectors.

- Records live in `memories` (one row per tenant and key, vector as a float32 BLOB); their text is
  indexed in the FTS5 table `memories_fts` (porter + unicode61) with a per-tenant tag column, so a
  tenant-filtered keyword query intersects posting lists instead of filtering afterwards.
- Vector search is exact: one float32 matrix per tenant set is cached in-process and scanned with
  one BLAS thread. The cache is dropped for tenants this process writes and entirely when
  `PRAGMA data_version` shows another process committed.
- Writes run in `BEGIN IMMEDIATE` transactions with a busy timeout and retries, so several processes
  can write one file; a failed write stores nothing.
- Keyword scores are FTS5's `bm25()`; see `memory.fusion` for how it compares with Weaviate's.

>>> from memory.embeddings import HashingEmbedder
>>> from memory.models import Memory
>>> store = SQLiteStore(":memory:", HashingEmbedder(dim=32))
>>> store.upsert([Memory(key="k1", kind="fact", content="the build uses uv", tenant="t1")])
>>> store.search(SearchQuery(text="build", filter=SearchFilter(tenants=["t1"])))[0].memory.key
'k1'
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import ThreadpoolController

from memory.embeddings import Embedder
from memory.fusion import HYBRID_LEG_LIMIT, minmax, relative_score_fusion
from memory.models import Memory, now
from memory.store import SearchFilter, SearchHit, SearchQuery, StoreError
from memory.stores import as_filter, as_query, check_memories, check_query_vector, check_vectors

_BLAS = ThreadpoolController()
_MAX_CACHED_SETS = 64
Scores = dict[int, float]  # row id -> raw leg score
_Hits = list[SearchHit]  # aliases: the method `list` shadows the builtin inside the class
_Memories = list[Memory]
_Scored = tuple[float, float | None, float | None]  # score, vector score, keyword score


class _VectorCache:
    """Row ids, expiry times and the unit-vector matrix of one tenant set."""

    def __init__(self, rows: list[tuple[int, float | None, bytes]], dim: int) -> None:
        self.ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        self.expires = np.fromiter((np.inf if r[1] is None else r[1] for r in rows), np.float64, len(rows))
        self.matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), dim)


class SQLiteStore:
    """The embedded default store (see the module docstring). Thread-safe; one connection."""

    def __init__(
        self, path: str | Path, embedder: Embedder, *, busy_timeout: float = 30.0, retries: int = 5
    ) -> None:
        self._embedder, self._dim, self._retries = embedder, embedder.dim, retries
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            str(path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        self._cache: dict[tuple[str, ...], _VectorCache] = {}
        self._data_version = -1
        _open_database(self._conn, self._dim, retries)

    # -- writes ---------------------------------------------------------------------------------

    def upsert(self, memories: Sequence[Memory], vectors: Sequence[Sequence[float]] | None = None) -> None:
        """Insert or merge records (idempotent by tenant and key); commits before returning."""
        batch = [*memories]
        check_memories(batch)
        given = vectors if vectors is not None else self._embed(batch)
        array = check_vectors(given, self._dim, len(batch))
        with self._lock:
            _write(self._conn, self._retries, lambda c: _upsert_rows(c, batch, array))
            self._invalidate({m.tenant for m in batch})

    def _embed(self, batch: Sequence[Memory]) -> np.ndarray[Any, Any]:
        return self._embedder.embed([m.content for m in batch]) if batch else np.zeros((0, self._dim))

    def delete(self, keys: Sequence[str], tenant: str) -> int:
        where = f"tenant = ? AND key IN ({_marks(keys)})"
        return self._delete(where, [tenant, *keys], {tenant}) if keys else 0

    def delete_tenant(self, tenant: str) -> int:
        return self._delete("tenant = ?", [tenant], {tenant})

    def purge_expired(self) -> int:
        return self._delete("expires_at IS NOT NULL AND expires_at <= ?", [now()], None)

    def record_access(self, keys: Sequence[str], tenant: str) -> None:
        rows = [(tenant, key) for key in keys]
        with self._lock:
            _write(self._conn, self._retries, lambda c: _increment_access(c, rows))

    def _delete(self, where: str, params: list[Any], tenants: set[str] | None) -> int:
        with self._lock:
            deleted = _write(self._conn, self._retries, lambda c: _delete_rows(c, where, params))
            self._invalidate(tenants)
            return deleted

    def _invalidate(self, tenants: set[str] | None) -> None:
        """Drop cached matrices that may include `tenants` (None: all of them)."""
        for names in list(self._cache):
            if tenants is None or not names or tenants.intersection(names):
                del self._cache[names]

    # -- reads ----------------------------------------------------------------------------------

    def get(self, key: str, tenant: str) -> Memory | None:
        found = self.list(SearchFilter(tenants=[tenant]), limit=1, key=key)
        return found[0] if found else None

    def list(
        self, filter: SearchFilter | Mapping[str, Any], limit: int = 1000, *, key: str | None = None
    ) -> _Memories:
        """Records matching a filter, newest first (then by key)."""
        where, params = _where(as_filter(filter), now())
        if key is not None:
            where, params = f"{where} AND m.key = ?", [*params, key]
        query = f"SELECT {_COLUMNS} FROM memories m WHERE {where} ORDER BY m.created_at DESC, m.key LIMIT ?"
        with self._lock:
            return [_to_memory(row) for row in self._conn.execute(query, [*params, limit])]

    def count(self, filter: SearchFilter | Mapping[str, Any] | None = None) -> int:
        where, params = _where(as_filter(filter), now())
        with self._lock:
            return int(
                self._conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()[0]
            )

    def search(self, query: SearchQuery | Mapping[str, Any], vector: Sequence[float] | None = None) -> _Hits:
        """Vector, keyword or hybrid search; scores in [0, 1], ordered by score then key."""
        q = as_query(query)
        qvec = self._query_vector(q, vector)
        with self._lock:
            if q.mode == "keyword":
                scores = minmax(self._keyword_leg(q, q.k))
                return self._hits(q, {i: (s, None, s) for i, s in scores.items()})
            if q.mode == "vector":
                raw = self._vector_leg(q, qvec, q.k)
                clipped = {i: min(1.0, max(0.0, s)) for i, s in raw.items()}
                return self._hits(q, {i: (s, s, None) for i, s in clipped.items()})
            limit = max(q.k, HYBRID_LEG_LIMIT)
            legs = self._vector_leg(q, qvec, limit), self._keyword_leg(q, limit)
            fused = relative_score_fusion(*legs, alpha=q.alpha)
            return self._hits(q, {i: (f.score, f.vector, f.keyword) for i, f in fused.items()})

    def _query_vector(self, q: SearchQuery, vector: Sequence[float] | None) -> np.ndarray[Any, Any] | None:
        if vector is not None:
            return check_query_vector(vector, self._dim)
        if q.mode == "keyword" or not q.text.strip():
            return None
        return check_query_vector(self._embedder.embed([q.text])[0].tolist(), self._dim)

    def _keyword_leg(self, q: SearchQuery, limit: int) -> Scores:
        return _keyword_scores(self._conn, q.text, q.filter, now(), limit)

    def _vector_leg(self, q: SearchQuery, qvec: np.ndarray[Any, Any] | None, limit: int) -> Scores:
        if qvec is None:
            return {}
        cache, at = self._matrix(q.filter.tenants), now()
        mask = cache.expires > at
        if _has_metadata_filter(q.filter):
            mask &= np.isin(cache.ids, _filtered_ids(self._conn, q.filter, at))
        with _BLAS.limit(limits=1, user_api="blas"):
            scores = cache.matrix @ qvec
        scores[~mask] = -np.inf
        top = min(limit, int(mask.sum()))
        if top == 0:
            return {}
        best = np.argpartition(-scores, top - 1)[:top]
        return {int(cache.ids[i]): float(scores[i]) for i in best}

    def _matrix(self, tenants: Sequence[str]) -> _VectorCache:
        version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self._data_version:  # another connection committed: anything may have changed
            self._cache.clear()
            self._data_version = version
        names = tuple(sorted(set(tenants)))
        if names not in self._cache:
            if len(self._cache) >= _MAX_CACHED_SETS:  # bound memory: forget the oldest tenant set
                del self._cache[next(iter(self._cache))]
            self._cache[names] = _VectorCache(_vector_rows(self._conn, names), self._dim)
        return self._cache[names]

    def _hits(self, q: SearchQuery, scored: dict[int, _Scored]) -> _Hits:
        memories = _memories_by_id(self._conn, _best(scored, q.k, q.min_score))
        hits = [
            SearchHit(memory=m, score=scored[i][0], vector_score=scored[i][1], keyword_score=scored[i][2])
            for i, m in memories.items()
        ]
        hits.sort(key=lambda h: (-h.score, h.memory.key, h.memory.tenant))
        return hits[: q.k]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._cache.clear()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- SQL --------------------------------------------------------------------------------------------

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS memories (
        id INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, content TEXT NOT NULL,
        tenant TEXT NOT NULL, domain TEXT NOT NULL, task_type TEXT NOT NULL, subtype TEXT,
        level TEXT NOT NULL, active INTEGER NOT NULL, confidence REAL NOT NULL, source TEXT,
        file_path TEXT, thread_id TEXT, agents TEXT NOT NULL, access_count INTEGER NOT NULL,
        created_at REAL NOT NULL, updated_at REAL NOT NULL, expires_at REAL, vector BLOB NOT NULL,
        UNIQUE (tenant, key))""",
    "CREATE INDEX IF NOT EXISTS memories_created ON memories (tenant, created_at)",
    "CREATE INDEX IF NOT EXISTS memories_expires ON memories (expires_at) WHERE expires_at IS NOT NULL",
    "CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(content, tenant_tag, "
    "tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_FIELDS = tuple(Memory.model_fields)
_COLUMNS = ", ".join(f"m.{name}" for name in _FIELDS)
_NAMES, _MARKS = ", ".join(_FIELDS), ", ".join("?" * len(_FIELDS))
_AGENTS, _ACCESS = _FIELDS.index("agents"), _FIELDS.index("access_count")
_CONTENT, _TENANT = _FIELDS.index("content"), _FIELDS.index("tenant")
_Known = tuple[int, list[str], int]  # a stored record's id, agents and access count
_UPDATE = f"UPDATE memories SET {', '.join(f'{name} = ?' for name in _FIELDS)}, vector = ? WHERE id = ?"
_LIST_FILTERS = {"tenants": "m.tenant", "kinds": "m.kind", "subtypes": "m.subtype"}
_VALUE_FILTERS = {
    "min_confidence": "m.confidence >= ?",
    "max_confidence": "m.confidence <= ?",
    "since": "m.created_at >= ?",
    "until": "m.created_at <= ?",
    "file_path": "m.file_path = ?",
    "active": "m.active = ?",
    "thread_id": "m.thread_id = ?",
    "domain": "m.domain = ?",
    "task_type": "m.task_type = ?",
}
_WORD = re.compile(r"\w+")
_STOP_TEXT = (  # function words: frequent everywhere, so they only slow a query down
    "a an the and or but if then than so of to in on at for with by from into about over up down out "
    "is are was were be been being am has have had do does did will would can could should may might "
    "it its this that these those there here as not no all any some very just also too more most "
    "what which who whom whose when where why how i me my you your he him his she her we us our they "
    "them their"
)
_STOPWORDS = frozenset(_STOP_TEXT.split())
T = TypeVar("T")


def _open_database(conn: sqlite3.Connection, dim: int, retries: int) -> None:
    # WAL + synchronous=NORMAL: COMMIT returns once the transaction's frames are in the WAL file,
    # i.e. in the OS page cache, so a killed process (SIGKILL) loses nothing acknowledged; only an
    # OS crash or power cut could lose the last commits before a checkpoint syncs them.
    _retrying(retries, lambda: conn.execute("PRAGMA journal_mode = WAL"))
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: index pages stay hot during bulk upserts
    _write(conn, retries, lambda c: _create_schema(c, dim))


def _create_schema(conn: sqlite3.Connection, dim: int) -> None:
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.execute("INSERT OR IGNORE INTO settings VALUES ('dim', ?)", (str(dim),))
    stored = int(conn.execute("SELECT value FROM settings WHERE name = 'dim'").fetchone()[0])
    if stored != dim:
        raise StoreError(f"this store holds {stored}-dim vectors; the embedder makes {dim}-dim ones")


def _retrying(retries: int, action: Callable[[], T]) -> T:
    """Run `action`, retrying with backoff while another process holds the lock."""
    for attempt in range(retries):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            time.sleep(0.02 * 2**attempt)
    return action()


def _write(conn: sqlite3.Connection, retries: int, body: Callable[[sqlite3.Connection], T]) -> T:
    """Run `body` in one IMMEDIATE transaction, committed before returning; any error rolls back."""
    _retrying(retries, lambda: conn.execute("BEGIN IMMEDIATE"))
    try:
        result = body(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


@functools.lru_cache(maxsize=4096)
def _tag(tenant: str) -> str:
    """A tenant as one FTS token: digits only, so no tokenizer or stemmer can alter it."""
    return "t" + str(int(hashlib.sha256(tenant.encode()).hexdigest()[:15], 16))


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


def _values(memory: Memory, agents: list[str], access_count: int, vector: np.ndarray[Any, Any]) -> list[Any]:
    values = [getattr(memory, name) for name in _FIELDS]
    values[_AGENTS], values[_ACCESS] = json.dumps(agents), access_count
    return [*values, vector.astype(np.float32).tobytes()]


def _upsert_rows(conn: sqlite3.Connection, batch: list[Memory], vectors: np.ndarray[Any, Any]) -> None:
    """Insert new records and merge existing ones, batched (`executemany`) for throughput."""
    known = _existing(conn, batch)
    next_id = int(conn.execute("SELECT coalesce(max(id), 0) FROM memories").fetchone()[0]) + 1
    inserts: list[list[Any]] = []
    updates: list[list[Any]] = []
    for memory, vector in zip(batch, vectors, strict=True):
        where = (memory.tenant, memory.key)
        if where not in known:  # ids are ours to assign: we hold the write lock
            known[where] = (next_id, memory.agents, memory.access_count)
            inserts.append([next_id, *_values(memory, memory.agents, memory.access_count, vector)])
            next_id += 1
            continue
        row_id, agents, access = known[where]
        merged = list(dict.fromkeys([*agents, *memory.agents]))
        known[where] = (row_id, merged, max(access, memory.access_count))
        updates.append([*_values(memory, merged, known[where][2], vector), row_id])
    conn.executemany(f"INSERT INTO memories (id, {_NAMES}, vector) VALUES (?, {_MARKS}, ?)", inserts)
    fts = "INSERT INTO memories_fts (rowid, content, tenant_tag) VALUES (?, ?, ?)"
    conn.executemany(fts, [(row[0], row[1 + _CONTENT], _tag(row[1 + _TENANT])) for row in inserts])
    conn.executemany(_UPDATE, updates)
    fts_update = "UPDATE memories_fts SET content = ? WHERE rowid = ?"
    conn.executemany(fts_update, [(row[_CONTENT], row[-1]) for row in updates])


def _existing(conn: sqlite3.Connection, batch: list[Memory]) -> dict[tuple[str, str], _Known]:
    """Stored (id, agents, access_count) of the batch's records that already exist."""
    by_tenant: dict[str, list[str]] = {}
    for memory in batch:
        by_tenant.setdefault(memory.tenant, []).append(memory.key)
    known: dict[tuple[str, str], _Known] = {}
    for tenant, keys in by_tenant.items():
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            query = (
                "SELECT tenant, key, id, agents, access_count FROM memories "
                f"WHERE tenant = ? AND key IN ({_marks(chunk)})"
            )
            for row in conn.execute(query, [tenant, *chunk]):
                known[(row[0], row[1])] = (row[2], json.loads(row[3]), row[4])
    return known


def _delete_rows(conn: sqlite3.Connection, where: str, params: list[Any]) -> int:
    ids = [(row[0],) for row in conn.execute(f"SELECT id FROM memories WHERE {where}", params)]
    conn.executemany("DELETE FROM memories_fts WHERE rowid = ?", ids)
    conn.executemany("DELETE FROM memories WHERE id = ?", ids)
    return len(ids)


def _increment_access(conn: sqlite3.Connection, rows: list[tuple[str, str]]) -> None:
    update = "UPDATE memories SET access_count = access_count + 1 WHERE tenant = ? AND key = ?"
    conn.executemany(update, rows)


def _where(f: SearchFilter, at: float) -> tuple[str, list[Any]]:
    """SQL conditions (on alias `m`) for a filter; expired records never match."""
    clauses, params = ["(m.expires_at IS NULL OR m.expires_at > ?)"], [at]
    for field, column in _LIST_FILTERS.items():
        values = getattr(f, field)
        if values:
            clauses.append(f"{column} IN ({_marks(values)})")
            params += values
    for field, clause in _VALUE_FILTERS.items():
        value = getattr(f, field)
        if value is not None:
            clauses.append(clause)
            params.append(value)
    return " AND ".join(clauses), params


def _has_metadata_filter(f: SearchFilter) -> bool:
    return bool(f.model_dump(exclude={"tenants"}, exclude_defaults=True))


def _filtered_ids(conn: sqlite3.Connection, f: SearchFilter, at: float) -> np.ndarray[Any, Any]:
    where, params = _where(f, at)
    return np.array([row[0] for row in conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params)])


def _vector_rows(conn: sqlite3.Connection, tenants: tuple[str, ...]) -> list[tuple[int, float | None, bytes]]:
    where = f"WHERE tenant IN ({_marks(tenants)})" if tenants else ""
    return conn.execute(
        f"SELECT id, expires_at, vector FROM memories {where} ORDER BY id", tenants
    ).fetchall()


def _match_expression(text: str, tenants: Sequence[str]) -> str:
    """An FTS5 query: any content word (quoted, stopwords dropped) within the filter's tenants."""
    words = dict.fromkeys(w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS)
    if not words:
        return ""
    expression = "content : (" + " OR ".join(f'"{word}"' for word in words) + ")"
    if tenants:
        expression = f"tenant_tag : ({' OR '.join(_tag(t) for t in tenants)}) AND {expression}"
    return expression


def _keyword_scores(conn: sqlite3.Connection, text: str, f: SearchFilter, at: float, limit: int) -> Scores:
    """Raw BM25 (FTS5 `bm25()`, positive, tenant column weighted 0) of the best `limit` matches."""
    match = _match_expression(text, f.tenants)
    if not match:
        return {}
    where, params = _where(f, at)
    query = (  # CROSS JOIN keeps FTS5 as the outer loop: match first, then look rows up by id
        "SELECT m.id, bm25(memories_fts, 1.0, 0.0) AS rank FROM memories_fts CROSS JOIN memories m "
        f"ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? AND {where} ORDER BY rank, m.key LIMIT ?"
    )
    return {row_id: -rank for row_id, rank in conn.execute(query, [match, *params, limit])}


def _to_memory(row: Sequence[Any]) -> Memory:
    data = dict(zip(_FIELDS, row, strict=True))
    data.update(agents=json.loads(data["agents"]), active=bool(data["active"]))
    return Memory.model_validate(data)


def _best(scored: dict[int, _Scored], k: int, min_score: float) -> list[int]:
    """Ids of the k best scores, plus any tied with the k-th (ties are broken by key later)."""
    ranked = sorted((s[0], i) for i, s in scored.items() if s[0] >= min_score)[::-1]
    cutoff = ranked[k - 1][0] if len(ranked) >= k else -1.0
    return [i for score, i in ranked if score >= cutoff]


def _memories_by_id(conn: sqlite3.Connection, ids: list[int]) -> dict[int, Memory]:
    query = f"SELECT m.id, {_COLUMNS} FROM memories m WHERE m.id IN ({_marks(ids)})"
    return {row[0]: _to_memory(row[1:]) for row in conn.execute(query, ids)} if ids else {}
