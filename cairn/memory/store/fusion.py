"""Ranking maths shared by every store backend: min-max normalisation, Weaviate's relative-score
fusion, and a Weaviate-style BM25 scorer over token lists.

Hybrid search must rank alike on SQLite and Weaviate, so both backends (and the Weaviate test
double) fuse their two legs with `relative_score_fusion`:

- each leg is min-max normalised to [0, 1] over its own results; when every score of a leg is
  equal, each result gets the full weight (1.0), as Weaviate's `hybrid_fusion.go` does;
- fused = alpha * vector + (1 - alpha) * keyword; a record missing from a leg scores 0 there.

The keyword leg of `SQLiteStore` is FTS5's own `bm25()` (k1 = 1.2, b = 0.75, index-backed, so a
query never rescans texts). Its idf is ln((N - n + 0.5) / (n + 0.5)), floored near zero for terms in
more than half of the documents, where Weaviate's is ln(1 + (N - n + 0.5) / (n + 0.5)); both are
monotone in n, so per-leg orderings agree except for terms common to most documents, which carry
little weight in either. `bm25_scores` / `weaviate_bm25_scores` implement Weaviate's scorer for the
test double.

>>> relative_score_fusion({"a": 0.9, "b": 0.5}, {"b": 7.0, "c": 2.0}, alpha=0.5)["b"].score
0.5
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

BM25_K1 = 1.2
BM25_B = 0.75
# A word of a record's `context` counts this much of a word of its `content` in BM25 (a field
# weight, as in BM25F): neighbours help find a dialog turn, but the turn's own words say most.
CONTEXT_WEIGHT = 0.5
# Candidates each leg of a hybrid query contributes before fusion (at least k).
HYBRID_LEG_LIMIT = 100

K = TypeVar("K", bound=Hashable)  # a record id: a key string, a row id...


def minmax(scores: Mapping[K, float]) -> dict[K, float]:
    """Min-max normalise to [0, 1]; all-equal scores all get 1.0 (full weight).

    >>> minmax({"a": 2.0, "b": 4.0, "c": 3.0})
    {'a': 0.0, 'b': 1.0, 'c': 0.5}
    """
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high - low <= 0.0:
        return dict.fromkeys(scores, 1.0)
    span = high - low
    return {key: (value - low) / span for key, value in scores.items()}


@dataclass(frozen=True)
class Fused:
    """One fused result: the fused score and each leg's normalised score (None: not in that leg)."""

    score: float
    vector: float | None
    keyword: float | None


def relative_score_fusion(
    vector: Mapping[K, float], keyword: Mapping[K, float], alpha: float
) -> dict[K, Fused]:
    """Weaviate's relative-score fusion of raw leg scores keyed by record id.

    `vector` holds 1 - distance per record, `keyword` raw BM25; alpha = 1 is pure vector.

    >>> relative_score_fusion({"a": 0.2}, {}, alpha=0.25)["a"].score
    0.25
    """
    v_norm, k_norm = minmax(vector), minmax(keyword)
    fused: dict[K, Fused] = {}
    for key in v_norm.keys() | k_norm.keys():
        v, k = v_norm.get(key), k_norm.get(key)
        score = alpha * (v or 0.0) + (1.0 - alpha) * (k or 0.0)
        fused[key] = Fused(score=min(1.0, max(0.0, score)), vector=v, keyword=k)
    return fused


def ranked(scores: Mapping[str, float], k: int) -> list[tuple[str, float]]:
    """The k best (key, score) pairs: score descending, then key ascending (the stores' order).

    >>> ranked({"b": 0.5, "a": 0.5, "c": 0.9}, 2)
    [('c', 0.9), ('a', 0.5)]
    """
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]


def bm25_idf(n_docs: int, doc_freq: int) -> float:
    """Weaviate's idf: ln(1 + (N - n + 0.5) / (n + 0.5)); always positive."""
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


def bm25_scores(
    query: Sequence[str], docs: Sequence[Sequence[str]], k1: float = BM25_K1, b: float = BM25_B
) -> list[float]:
    """Weaviate's BM25 of one tokenised query against one tokenised property (0.0: no match).

    Statistics (N, document frequencies, average length) come from `docs` itself, so pass the
    documents the query may see (one tenant's, say).

    >>> s = bm25_scores(["cat"], [["cat", "sat"], ["dog"], ["cat", "cat"]])
    >>> s[2] > s[0] > s[1] == 0.0
    True
    """
    return weaviate_bm25_scores(query, [docs], [1.0], k1, b)


Field = Sequence[Sequence[str] | None]  # one property of every document: its tokens, None if absent


def weaviate_bm25_scores(
    query: Sequence[str],
    fields: Sequence[Field],
    boosts: Sequence[float],
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[float]:
    """BM25 over several properties as Weaviate 1.39 scores it (BlockMax WAND), read from its
    source and checked against a live server (`tests/contract/test_double_matches_live.py`).

    `fields[f][d]` is property f of document d (None: d lacks it), weighted `boosts[f]`:

    - each property is scored on its own, `idf * boost * tf / (tf + k1 (1 - b + b L / avgL))`,
      and a document's score is the sum over properties and query terms: no BM25F pooling of
      frequencies, and no `(k1 + 1)` factor;
    - L counts a property's tokens in the document; avgL averages it over the documents that
      have the property (one without it is not counted as length 0);
    - idf = ln(1 + (N - n + 0.5) / (n + 0.5)), N the documents, n a term's document frequency
      averaged (integer division) over the properties holding it;
    - a term repeated in the query counts that many times.

    >>> title, body = [["cat"], ["dog"]], [["dog"], None]
    >>> s = weaviate_bm25_scores(["cat"], [title, body], [2.0, 1.0])
    >>> s[0] > s[1] == 0.0
    True
    """
    parts = weaviate_bm25_parts(query, fields, boosts, k1, b)
    return [sum(column) for column in zip(*parts, strict=True)] if parts else []


def weaviate_bm25_parts(
    query: Sequence[str],
    fields: Sequence[Field],
    boosts: Sequence[float],
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[list[float]]:
    """`weaviate_bm25_scores` before the sum: `parts[f][d]`, property f's boosted score of document d
    (Weaviate ranks each property on its own before adding them up)."""
    n_docs = len(fields[0]) if fields else 0
    counts = [[Counter(tokens) if tokens is not None else None for tokens in field] for field in fields]
    idf = _property_idf(Counter(query), counts, n_docs)
    parts = []
    for field, boost in zip(counts, boosts, strict=True):
        lengths = [sum(tf.values()) for tf in field if tf is not None]
        avg_len = sum(lengths) / len(lengths) if lengths else 0.0
        parts.append(
            [
                boost * _bm25_doc(idf, tf, sum(tf.values()) / avg_len, k1, b) if tf and avg_len else 0.0
                for tf in field
            ]
        )
    return parts


def _property_idf(
    query: Counter[str], fields: Sequence[Sequence[Counter[str] | None]], n_docs: int
) -> dict[str, float]:
    idf = {}
    for term, repeats in query.items():
        freqs = [sum(1 for tf in field if tf and term in tf) for field in fields]
        holding = [n for n in freqs if n]
        if holding:
            idf[term] = bm25_idf(n_docs, sum(holding) // len(holding)) * repeats
    return idf


def _bm25_doc(idf: Mapping[str, float], tf: Mapping[str, int], rel_len: float, k1: float, b: float) -> float:
    score = 0.0
    for term, weight in idf.items():
        freq = tf.get(term, 0)
        if freq:
            score += weight * freq / (freq + k1 * (1.0 - b + b * rel_len))
    return score
