"""Searching Weaviate shards for `WeaviateStore`: per-shard legs fused in the client, or one
server-side hybrid query when a search reaches exactly one shard (see `cairn.memory.store.weaviate_store`).
"""

from __future__ import annotations

import re
from typing import Any

from cairn.core import Memory
from cairn.memory.embed.embeddings import tokens
from cairn.memory.store import fusion
from cairn.memory.store.protocol import SearchHit, SearchQuery
from cairn.memory.store.weaviate_schema import KEYWORD_PROPERTIES, from_properties

Leg = dict[str, tuple[Memory, float]]  # object id -> (record, raw leg score)
_EXPLAIN = re.compile(r"Result Set '?([^)']*)'?\) Document \S+: original score \S+, normalized score: (\S+)")


def search_shards(
    shards: list[Any], query: SearchQuery, qvec: list[float] | None, where: Any
) -> list[SearchHit]:
    terms = " ".join(tokens(query.text))
    depth = max(query.k, fusion.HYBRID_LEG_LIMIT)
    # Without keyword terms the server's hybrid would get an empty query: fusing the vector leg
    # alone in the client gives the same scores without relying on how a server treats "".
    if query.mode == "hybrid" and len(shards) == 1 and qvec is not None and terms:
        return _server_hybrid(shards[0], query, terms, qvec, where, depth)
    vector = _vector_leg(shards, qvec, where, depth) if query.mode != "keyword" and qvec else {}
    keyword = _keyword_leg(shards, terms, where, depth) if query.mode != "vector" and terms else {}
    records = {oid: rec for leg in (vector, keyword) for oid, (rec, _) in leg.items()}
    if query.mode == "vector":
        return [SearchHit(memory=m, score=s, vector_score=s) for m, s in vector.values()]
    if query.mode == "keyword":
        norm = fusion.minmax({oid: s for oid, (_, s) in keyword.items()})
        return [SearchHit(memory=records[oid], score=s, keyword_score=s) for oid, s in norm.items()]
    fused = fusion.relative_score_fusion(
        {oid: s for oid, (_, s) in vector.items()}, {oid: s for oid, (_, s) in keyword.items()}, query.alpha
    )
    return [
        SearchHit(memory=records[oid], score=f.score, vector_score=f.vector, keyword_score=f.keyword)
        for oid, f in fused.items()
    ]


def _vector_leg(shards: list[Any], qvec: list[float], where: Any, depth: int) -> Leg:
    from weaviate.classes.query import MetadataQuery

    leg: Leg = {}
    for shard in shards:
        result = shard.query.near_vector(
            near_vector=qvec,
            target_vector="default",
            filters=where,
            limit=depth,
            return_metadata=MetadataQuery(distance=True),
        )
        for obj in result.objects:
            similarity = 1.0 - float(obj.metadata.distance or 0.0)
            leg[str(obj.uuid)] = (from_properties(obj.properties), min(1.0, max(0.0, similarity)))
    return leg


def _keyword_leg(shards: list[Any], terms: str, where: Any, depth: int) -> Leg:
    from weaviate.classes.query import MetadataQuery

    leg: Leg = {}
    for shard in shards:
        result = shard.query.bm25(
            query=terms,
            query_properties=KEYWORD_PROPERTIES,
            filters=where,
            limit=depth,
            return_metadata=MetadataQuery(score=True),
        )
        for obj in result.objects:
            leg[str(obj.uuid)] = (from_properties(obj.properties), float(obj.metadata.score or 0.0))
    return leg


def _server_hybrid(
    shard: Any, query: SearchQuery, terms: str, qvec: list[float], where: Any, depth: int
) -> list[SearchHit]:
    """One shard: Weaviate fuses the legs itself (relative score, the store's alpha)."""
    from weaviate.classes.query import HybridFusion, MetadataQuery

    result = shard.query.hybrid(
        query=terms,
        vector=qvec,
        alpha=query.alpha,
        fusion_type=HybridFusion.RELATIVE_SCORE,
        query_properties=KEYWORD_PROPERTIES,
        target_vector="default",
        filters=where,
        limit=depth,
        return_metadata=MetadataQuery(score=True, explain_score=True),
    )
    hits = []
    for obj in result.objects:
        vector, keyword = _legs_of(obj.metadata.explain_score or "", query.alpha)
        score = min(1.0, max(0.0, float(obj.metadata.score or 0.0)))
        hits.append(
            SearchHit(
                memory=from_properties(obj.properties),
                score=score,
                vector_score=vector,
                keyword_score=keyword,
            )
        )
    return hits


def _legs_of(explain: str, alpha: float) -> tuple[float | None, float | None]:
    """Each leg's normalised score, recovered from Weaviate's explain text (None: absent/unknown)."""
    legs: dict[str, float | None] = {"vector": None, "keyword": None}
    for name, weighted in _EXPLAIN.findall(explain):
        leg = "vector" if "vector" in name.lower() else "keyword"
        weight = alpha if leg == "vector" else 1.0 - alpha
        # The explain text carries ~8 digits: round off the division's float noise (0.99999998).
        legs[leg] = min(1.0, round(float(weighted) / weight, 6)) if weight > 0 else None
    return legs["vector"], legs["keyword"]
