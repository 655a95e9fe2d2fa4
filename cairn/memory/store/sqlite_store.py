"""`SQLiteStore`: the embedded `MemoryStore` — one SQLite file, WAL, FTS5 BM25, exact numpy vectors.

- Records live in `memories`, their text in the FTS5 index `memories_fts` with a per-tenant tag,
  so a tenant-filtered keyword query ranks only that tenant's matches (`cairn.memory.store.sqlite_schema`).
- Vector search is exact: one float32 matrix per tenant set is cached in-process and scanned with
  one BLAS thread. The cache is dropped for tenants this process writes and entirely when
  `PRAGMA data_version` shows another process committed (`cairn.memory.store.sqlite_search`).
- Writes run in `BEGIN IMMEDIATE` transactions with a busy timeout and retries, so several processes
  can write one file; a failed write stores nothing, an acknowledged one is committed.
- Keyword scores are FTS5's `bm25()`; see `cairn.memory.store.fusion` for how it compares with Weaviate's.

>>> from cairn.memory.embed.embeddings import HashingEmbedder
>>> from cairn.core import Memory
>>> store = SQLiteStore(":memory:", HashingEmbedder(dim=32))
>>> store.upsert([Memory(key="k1", kind="fact", content="the build uses uv", tenant="t1")])
>>> store.search(SearchQuery(text="build", filter=SearchFilter(tenants=["t1"])))[0].memory.key
'k1'
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cairn.core import Memory, now
from cairn.memory.embed.embeddings import Embedder
from cairn.memory.store import sqlite_rows, sqlite_search
from cairn.memory.store.checks import check_memories, check_query_vector, check_vectors
from cairn.memory.store.fusion import HYBRID_LEG_LIMIT, minmax, relative_score_fusion
from cairn.memory.store.protocol import SearchFilter, SearchHit, SearchQuery
from cairn.memory.store.rerank import participant_scores, rerank_depth
from cairn.memory.store.sqlite_schema import open_database, write

_MAX_CACHED_SETS = 64
_Hits = list[SearchHit]  # aliases: the method `list` shadows the builtin inside the class
_Memories = list[Memory]
_Scored = tuple[float, float | None, float | None]  # score, vector score, keyword score


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
        self._cache: dict[tuple[str, ...], sqlite_search.VectorMatrix] = {}
        self._data_version = -1
        open_database(self._conn, self._dim, retries)

    # -- writes ---------------------------------------------------------------------------------

    def upsert(self, memories: Sequence[Memory], vectors: Sequence[Sequence[float]] | None = None) -> None:
        """Insert or merge records (idempotent by tenant and key); commits before returning."""
        batch = [*memories]
        check_memories(batch)
        given = vectors if vectors is not None else self._embed(batch)
        array = check_vectors(given, self._dim, len(batch))
        with self._lock:
            write(self._conn, self._retries, lambda c: sqlite_rows.upsert_rows(c, batch, array))
            self._invalidate({m.tenant for m in batch})

    def _embed(self, batch: Sequence[Memory]) -> np.ndarray[Any, Any]:
        return self._embedder.embed([m.content for m in batch]) if batch else np.zeros((0, self._dim))

    def delete(self, keys: Sequence[str], tenant: str) -> int:
        where = f"tenant = ? AND key IN ({sqlite_rows.marks(keys)})"
        return self._delete(where, [tenant, *keys], {tenant}) if keys else 0

    def delete_tenant(self, tenant: str) -> int:
        return self._delete("tenant = ?", [tenant], {tenant})

    def purge_expired(self) -> int:
        return self._delete("expires_at IS NOT NULL AND expires_at <= ?", [now()], None)

    def record_access(self, keys: Sequence[str], tenant: str) -> None:
        pairs = [(tenant, key) for key in keys]
        with self._lock:
            write(self._conn, self._retries, lambda c: sqlite_rows.increment_access(c, pairs))

    def _delete(self, where: str, params: list[Any], tenants: set[str] | None) -> int:
        with self._lock:
            deleted = write(self._conn, self._retries, lambda c: sqlite_rows.delete_rows(c, where, params))
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

    def list(self, filter: SearchFilter, limit: int = 1000, *, key: str | None = None) -> _Memories:
        """Records matching a filter, newest first (then by key)."""
        where, params = sqlite_search.where_sql((filter or SearchFilter()), now())
        if key is not None:
            where, params = f"{where} AND m.key = ?", [*params, key]
        query = (
            f"SELECT {sqlite_rows.COLUMNS} FROM memories m WHERE {where} "
            "ORDER BY m.created_at DESC, m.key LIMIT ?"
        )
        with self._lock:
            return [sqlite_rows.to_memory(row) for row in self._conn.execute(query, [*params, limit])]

    def count(self, filter: SearchFilter | None = None) -> int:
        where, params = sqlite_search.where_sql((filter or SearchFilter()), now())
        with self._lock:
            found = self._conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()
            return int(found[0])

    def search(self, query: SearchQuery, vector: Sequence[float] | None = None) -> _Hits:
        """Vector, keyword or hybrid search; scores in [0, 1], ordered by score then key."""
        q = query
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
            fused = relative_score_fusion(
                self._vector_leg(q, qvec, limit), self._keyword_leg(q, limit), alpha=q.alpha
            )
            scored = {i: (f.score, f.vector, f.keyword) for i, f in fused.items()}
            return self._hits(q, self._reranked(q, scored) if q.rerank else scored)

    def _query_vector(self, q: SearchQuery, vector: Sequence[float] | None) -> np.ndarray[Any, Any] | None:
        if vector is not None:
            return check_query_vector(vector, self._dim)
        if q.mode == "keyword" or not q.text.strip():
            return None
        return check_query_vector(self._embedder.embed([q.text])[0].tolist(), self._dim)

    def _keyword_leg(self, q: SearchQuery, limit: int) -> sqlite_search.Scores:
        return sqlite_search.keyword_scores(self._conn, q.text, q.filter, now(), limit)

    def _vector_leg(
        self, q: SearchQuery, qvec: np.ndarray[Any, Any] | None, limit: int
    ) -> sqlite_search.Scores:
        if qvec is None:
            return {}
        matrix, at = self._matrix(q.filter.tenants), now()
        mask = matrix.expires > at
        if sqlite_search.has_metadata_filter(q.filter):
            mask &= np.isin(matrix.ids, sqlite_search.filtered_ids(self._conn, q.filter, at))
        return matrix.top(qvec, mask, limit)

    def _matrix(self, tenants: Sequence[str]) -> sqlite_search.VectorMatrix:
        version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        if version != self._data_version:  # another connection committed: anything may have changed
            self._cache.clear()
            self._data_version = version
        names = tuple(sorted(set(tenants)))
        if names not in self._cache:
            if len(self._cache) >= _MAX_CACHED_SETS:  # bound the cache: forget the oldest tenant set
                del self._cache[next(iter(self._cache))]
            self._cache[names] = sqlite_search.VectorMatrix(
                sqlite_search.vector_rows(self._conn, names), self._dim
            )
        return self._cache[names]

    def _hits(self, q: SearchQuery, scored: dict[int, _Scored]) -> _Hits:
        memories = sqlite_rows.memories_by_id(self._conn, _best(scored, q.k, q.min_score))
        hits = [
            SearchHit(memory=m, score=scored[i][0], vector_score=scored[i][1], keyword_score=scored[i][2])
            for i, m in memories.items()
        ]
        hits.sort(key=lambda h: (-h.score, h.memory.key, h.memory.tenant))
        return hits[: q.k]

    def _reranked(self, q: SearchQuery, scored: dict[int, _Scored]) -> dict[int, _Scored]:
        """The best `rerank_depth(k)` fused scores through the rerank stage (`cairn.memory.store.rerank`)."""
        head = _best(scored, rerank_depth(q.k), 0.0)
        speakers = sqlite_rows.speakers_by_id(self._conn, head)
        lifted = participant_scores(q.text, {i: scored[i][0] for i in head}, speakers)
        return {i: (lifted[i], scored[i][1], scored[i][2]) for i in head}

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._cache.clear()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _best(scored: dict[int, _Scored], k: int, min_score: float) -> list[int]:
    """Ids of the k best scores, plus any tied with the k-th (ties are broken by key later)."""
    ranked = sorted((s[0], i) for i, s in scored.items() if s[0] >= min_score)[::-1]
    cutoff = ranked[k - 1][0] if len(ranked) >= k else -1.0
    return [i for score, i in ranked if score >= cutoff]
