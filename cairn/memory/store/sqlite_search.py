"""The two legs of a `SQLiteStore` search: FTS5 BM25 and exact vectors, plus the SQL of filters.

Keyword leg. FTS5 computes `bm25()` for every row a MATCH yields, so the match itself is
restricted to the filter's tenants (`tenant_tag : (...) AND content : (...)`) and stopwords are
dropped from the query. When the filter names nothing but tenants, ranking runs inside FTS5 alone
(`ORDER BY rank LIMIT n`, no join): joining every match with `memories` before the LIMIT cost as
much as the ranking itself. Expired rows are then removed from the ranked head, which is widened
until the best `n` live rows (and anything tied with the last of them) are certain. Other filters
are selective in ways the ranked head cannot anticipate, so they use one joined query.

Vector leg. One float32 matrix per tenant set, scanned with one BLAS thread (two threads on two
cores gave tail spikes, see the field notes).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from cairn.memory.embed.words import FUNCTION_WORDS
from cairn.memory.store.fusion import CONTEXT_WEIGHT
from cairn.memory.store.protocol import SearchFilter
from cairn.memory.store.sqlite_rows import marks, tenant_tag

Scores = dict[int, float]  # row id -> raw leg score
VectorRow = tuple[int, float | None, bytes]  # id, expires_at, vector blob
_BLAS = ThreadpoolController()
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
STOPWORDS = FUNCTION_WORDS  # frequent everywhere, so they only slow a query down
_HEAD_SLACK = 16  # extra ranked rows fetched beyond `limit`, so a few expired ones cost no retry
_BM25 = f"bm25(memories_fts, 1.0, 0.0, {CONTEXT_WEIGHT})"  # column weights: content, tenant, context
_RANKED = (
    f"SELECT rowid, {_BM25} AS score FROM memories_fts WHERE memories_fts MATCH ? ORDER BY score LIMIT ?"
)


def where_sql(f: SearchFilter, at: float) -> tuple[str, list[Any]]:
    """SQL conditions (on alias `m`) for a filter; expired records never match."""
    clauses, params = ["(m.expires_at IS NULL OR m.expires_at > ?)"], [at]
    for field, column in _LIST_FILTERS.items():
        values = getattr(f, field)
        if values:
            clauses.append(f"{column} IN ({marks(values)})")
            params += values
    for field, clause in _VALUE_FILTERS.items():
        value = getattr(f, field)
        if value is not None:
            clauses.append(clause)
            params.append(value)
    return " AND ".join(clauses), params


def has_metadata_filter(f: SearchFilter) -> bool:
    return bool(f.model_dump(exclude={"tenants"}, exclude_defaults=True))


def match_expression(text: str, tenants: Sequence[str]) -> str:
    """An FTS5 query: any word (quoted, stopwords dropped) of content or context, within the tenants."""
    words = dict.fromkeys(w for w in _WORD.findall(text.lower()) if w not in STOPWORDS)
    if not words:
        return ""
    expression = "{content context} : (" + " OR ".join(f'"{word}"' for word in words) + ")"
    if tenants:
        expression = f"tenant_tag : ({' OR '.join(tenant_tag(t) for t in tenants)}) AND {expression}"
    return expression


def keyword_scores(conn: sqlite3.Connection, text: str, f: SearchFilter, at: float, limit: int) -> Scores:
    """Raw BM25 (FTS5 `bm25()`, positive; tenant weighted 0, context below content) of the best `limit`."""
    match = match_expression(text, f.tenants)
    if not match:
        return {}
    if has_metadata_filter(f):
        return _joined_scores(conn, match, f, at, limit)
    return _ranked_head_scores(conn, match, at, limit)


def _joined_scores(conn: sqlite3.Connection, match: str, f: SearchFilter, at: float, limit: int) -> Scores:
    where, params = where_sql(f, at)
    query = (  # CROSS JOIN keeps FTS5 as the outer loop: match first, then look rows up by id
        f"SELECT m.id, {_BM25} AS rank FROM memories_fts CROSS JOIN memories m "
        f"ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? AND {where} ORDER BY rank, m.key LIMIT ?"
    )
    return {row_id: -rank for row_id, rank in conn.execute(query, [match, *params, limit])}


def _ranked_head_scores(conn: sqlite3.Connection, match: str, at: float, limit: int) -> Scores:
    """The best `limit` live rows, ties broken by key, from a widening ranked head of the match."""
    fetch = limit + _HEAD_SLACK
    while True:
        head = conn.execute(_RANKED, [match, fetch]).fetchall()
        live = _live_keys(conn, [row_id for row_id, _ in head], at)
        ranked = sorted((rank, live[row_id], row_id) for row_id, rank in head if row_id in live)[:limit]
        exhausted = len(head) < fetch
        # Rows past the head rank no better than its last one; strictly worse cannot displace ours.
        if exhausted or (len(ranked) == limit and ranked[-1][0] < head[-1][1]):
            return {row_id: -rank for rank, _, row_id in ranked}
        fetch *= 4


def _live_keys(conn: sqlite3.Connection, ids: list[int], at: float) -> dict[int, str]:
    if not ids:
        return {}
    query = (
        f"SELECT id, key FROM memories WHERE id IN ({marks(ids)}) AND (expires_at IS NULL OR expires_at > ?)"
    )
    return dict(conn.execute(query, [*ids, at]).fetchall())


def filtered_ids(conn: sqlite3.Connection, f: SearchFilter, at: float) -> np.ndarray[Any, Any]:
    where, params = where_sql(f, at)
    return np.array([row[0] for row in conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params)])


def vector_rows(conn: sqlite3.Connection, tenants: tuple[str, ...]) -> list[VectorRow]:
    where = f"WHERE tenant IN ({marks(tenants)})" if tenants else ""
    return conn.execute(
        f"SELECT id, expires_at, vector FROM memories {where} ORDER BY id", tenants
    ).fetchall()


class VectorMatrix:
    """Row ids, expiry times and the unit-vector matrix of one tenant set."""

    def __init__(self, rows: list[VectorRow], dim: int) -> None:
        self.ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        self.expires = np.fromiter((np.inf if r[1] is None else r[1] for r in rows), np.float64, len(rows))
        self.matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(len(rows), dim)

    def top(self, qvec: np.ndarray[Any, Any], mask: np.ndarray[Any, Any], limit: int) -> Scores:
        """Cosine similarity of the best `limit` rows where `mask` holds."""
        with _BLAS.limit(limits=1, user_api="blas"):
            scores = self.matrix @ qvec
        scores[~mask] = -np.inf
        top = min(limit, int(mask.sum()))
        if top == 0:
            return {}
        best = np.argpartition(-scores, top - 1)[:top]
        return {int(self.ids[i]): float(scores[i]) for i in best}
