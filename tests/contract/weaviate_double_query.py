"""Query semantics of the Weaviate test double: filters, BM25, near-vector, hybrid, sorting.

Pure functions over stored objects and the request protos weaviate-client sends, written from
Weaviate's behaviour: cosine distance = 1 - cos; BM25 with the collection's k1/b, per-shard
statistics and float property boosts, scored per property as Weaviate 1.39 does
(`cairn.memory.store.fusion.weaviate_bm25_scores`, checked against a live server); relative-score
fusion with each leg limited to `max(limit, HYBRID_LEG_LIMIT)` and Weaviate's explain text; ranked
fusion as 1 / (60 + rank).

>>> tokenize("Hello, World!", "word")
['hello', 'world']
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from weaviate.proto.v1 import base_pb2, base_search_pb2

from cairn.memory.store import fusion

F = base_pb2.Filters
_EN_STOPWORDS = frozenset(  # Weaviate's "en" preset
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
    }
    | {"of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to"}
    | {"was", "will", "with"}
)


@dataclass
class StoredObject:
    """One object of one shard: its id, typed properties and named vectors."""

    uuid: str
    properties: dict[str, Any]
    vectors: dict[str, list[float]] = field(default_factory=dict)
    created_ms: int = 0
    updated_ms: int = 0


@dataclass
class Scored:
    obj: StoredObject
    score: float = 0.0
    distance: float | None = None
    explain: str = ""


class QueryError(Exception):
    """A request the double refuses (sent back as gRPC INVALID_ARGUMENT, like the server)."""


def tokenize(text: str, tokenization: str, stopwords: frozenset[str] = frozenset()) -> list[str]:
    """Weaviate's tokenizers (word, lowercase, whitespace, field), minus query stopwords."""
    if tokenization == "field":
        return [text.strip()] if text.strip() else []
    if tokenization == "whitespace":
        words = text.split()
    elif tokenization == "lowercase":
        words = text.lower().split()
    else:
        words = [w for w in re.split(r"[^0-9A-Za-z]+", text.lower()) if w]
    return [w for w in words if w not in stopwords]


# -- filters ----------------------------------------------------------------------------------------
def matches(flt: base_pb2.Filters, obj: StoredObject) -> bool:
    """Whether an object passes a `Filters` tree (operators the v4 client's `Filter` API emits)."""
    op = flt.operator
    if op == F.OPERATOR_AND:
        return all(matches(sub, obj) for sub in flt.filters)
    if op == F.OPERATOR_OR:
        return any(matches(sub, obj) for sub in flt.filters)
    if op == F.OPERATOR_NOT:
        return not matches(flt.filters[0], obj)
    name = flt.target.property if flt.HasField("target") else flt.on[-1]
    value: Any = obj.uuid if name == "_id" else obj.properties.get(name)
    wanted = _test_value(flt)
    if op == F.OPERATOR_IS_NULL:
        return (value is None) == bool(wanted)
    if value is None:
        return op == F.OPERATOR_NOT_EQUAL
    return _compare(op, value, wanted)


def _test_value(flt: base_pb2.Filters) -> Any:
    kind = flt.WhichOneof("test_value")
    if kind is None:
        raise QueryError("filter without a value")
    value = getattr(flt, kind)
    return list(value.values) if kind.endswith("_array") else value


_COMPARE: dict[int, Callable[[Any, Any], bool]] = {
    F.OPERATOR_EQUAL: lambda v, w: v == w,
    F.OPERATOR_NOT_EQUAL: lambda v, w: v != w,
    F.OPERATOR_GREATER_THAN: lambda v, w: v > w,
    F.OPERATOR_GREATER_THAN_EQUAL: lambda v, w: v >= w,
    F.OPERATOR_LESS_THAN: lambda v, w: v < w,
    F.OPERATOR_LESS_THAN_EQUAL: lambda v, w: v <= w,
    F.OPERATOR_LIKE: lambda v, w: fnmatchcase(str(v), str(w)),
}


def _compare(op: int, value: Any, wanted: Any) -> bool:
    values = value if isinstance(value, list) else [value]
    if op == F.OPERATOR_CONTAINS_ANY:
        return any(v in wanted for v in values)
    if op == F.OPERATOR_CONTAINS_ALL:
        return all(w in values for w in wanted)
    if op == F.OPERATOR_CONTAINS_NONE:
        return not any(v in wanted for v in values)
    if op not in _COMPARE:
        raise QueryError(f"filter operator {F.Operator.Name(op)} is not supported by the double")
    # An array property equals a value when one of its elements does (Weaviate's semantics).
    return any(_COMPARE[op](v, wanted) for v in values)


# -- vectors ----------------------------------------------------------------------------------------
def unpack(raw: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def query_vector(message: Any) -> list[float] | None:
    """The single query vector of a NearVector or Hybrid message, whichever field carries it."""
    if len(message.vectors):
        return unpack(message.vectors[0].vector_bytes)
    if message.vector_bytes:
        return unpack(message.vector_bytes)
    if len(message.vector):
        return list(message.vector)
    for entry in getattr(message, "vector_for_targets", []):
        return unpack(entry.vector_bytes or entry.vectors[0].vector_bytes)
    return None


def cosine_distance(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        raise QueryError(f"vector lengths don't match: {len(a)} vs {len(b)}")
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return 1.0 - (dot / norm if norm else 0.0)


def near_vector(objs: list[StoredObject], vector: list[float], target: str, limit: int) -> list[Scored]:
    """Nearest objects by cosine distance (ties by id), at most `limit`."""
    scored = [
        Scored(o, distance=cosine_distance(vector, _vector_of(o, target))) for o in objs if _has(o, target)
    ]
    scored.sort(key=lambda s: (s.distance, s.obj.uuid))
    return scored[:limit]


def _has(obj: StoredObject, target: str) -> bool:
    return bool(obj.vectors.get(target) or (not target and obj.vectors))


def _vector_of(obj: StoredObject, target: str) -> list[float]:
    return obj.vectors[target] if target else next(iter(obj.vectors.values()))


# -- keyword ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TextIndex:
    """How a collection analyses text: each searchable property's tokenization, stopwords, k1/b."""

    tokenization: dict[str, str]
    stopwords: frozenset[str] = _EN_STOPWORDS
    k1: float = fusion.BM25_K1
    b: float = fusion.BM25_B


def bm25(
    shard: list[StoredObject],
    allowed: set[str],
    query: str,
    props: Sequence[str],
    index: TextIndex,
    limit: int | None = None,
) -> list[Scored]:
    """BM25 over the whole shard's statistics (`fusion.weaviate_bm25_parts`, Weaviate 1.39's
    scorer); hits are the `allowed` objects holding a query term in a searched property.

    Properties may carry a boost, `name^1.5`, read as a float (one that does not parse counts 0,
    its matches still returned); a property named twice counts once, with its last boost. Each
    property is tokenised by its own tokenization. With a `limit`, each property keeps only its
    best `wand_limit(limit)` hits before the properties are added up, as Weaviate's BlockMax WAND
    does: a document below that cut in one property loses that property's share of its score.
    """
    boosts = _boosts(list(props) or list(index.tokenization))
    terms: list[str] = []  # the query's tokens under each tokenization in use, repeats kept
    fields: list[fusion.Field] = []
    for name in boosts:
        tok = index.tokenization.get(name, "word")
        if tok not in {index.tokenization.get(n, "word") for n in list(boosts)[: len(fields)]}:
            terms += tokenize(query, tok, index.stopwords)
        fields.append([_tokens_of(o, name, tok) for o in shard])
    parts = fusion.weaviate_bm25_parts(terms, fields, list(boosts.values()), index.k1, index.b)
    totals: dict[int, float] = {}
    for values, part in zip(fields, parts, strict=True):
        found = [d for d, o in enumerate(shard) if o.uuid in allowed and _holds(values[d], terms)]
        found.sort(key=lambda d: -part[d])
        for d in found[: wand_limit(limit)] if limit else found:
            totals[d] = totals.get(d, 0.0) + part[d]
    hits = [Scored(shard[d], score=score) for d, score in totals.items()]
    hits.sort(key=lambda s: (-s.score, s.obj.uuid))
    return hits


def wand_limit(limit: int) -> int:
    """How many hits Weaviate keeps per property (and segment) for a keyword query of `limit`."""
    return int(max(limit * 1.1, limit + 10))


def _holds(tokens: Sequence[str] | None, terms: Sequence[str]) -> bool:
    return bool(tokens) and not set(terms).isdisjoint(tokens or ())


def _boosts(specs: Sequence[str]) -> dict[str, float]:
    boosts: dict[str, float] = {}
    for spec in specs:
        name, caret, boost = spec.partition("^")
        try:
            boosts[name] = float(boost) if caret else 1.0
        except ValueError:
            boosts[name] = 0.0
    return boosts


def _tokens_of(obj: StoredObject, name: str, tokenization: str) -> list[str] | None:
    value = obj.properties.get(name)
    return None if value is None else tokenize(str(value), tokenization)


# -- hybrid -----------------------------------------------------------------------------------------
def fuse(vector: list[Scored], keyword: list[Scored], alpha: float, fusion_type: int) -> list[Scored]:
    """Relative-score (default) or ranked fusion of the two legs, with Weaviate's explain text."""
    if fusion_type == base_search_pb2.Hybrid.FUSION_TYPE_RANKED:
        return _ranked(vector, keyword, alpha)
    objs = {s.obj.uuid: s.obj for s in (*vector, *keyword)}
    raw_v = {s.obj.uuid: 1.0 - (s.distance or 0.0) for s in vector}
    raw_k = {s.obj.uuid: s.score for s in keyword}
    fused = fusion.relative_score_fusion(raw_v, raw_k, alpha)
    out = []
    for oid, f in fused.items():
        parts = [("vector", raw_v, f.vector, alpha), ("keyword", raw_k, f.keyword, 1.0 - alpha)]
        explain = "".join(
            f"\nHybrid (Result Set {name}) Document {oid}: original score {raw[oid]}, normalized score: "
            f"{weight * norm}"
            for name, raw, norm, weight in parts
            if norm is not None
        )
        out.append(Scored(objs[oid], score=f.score, explain=explain))
    out.sort(key=lambda s: (-s.score, s.obj.uuid))
    return out


def _ranked(vector: list[Scored], keyword: list[Scored], alpha: float) -> list[Scored]:
    scores: dict[str, float] = {}
    objs = {s.obj.uuid: s.obj for s in (*vector, *keyword)}
    for leg, weight in ((vector, alpha), (keyword, 1.0 - alpha)):
        for rank, s in enumerate(leg):
            scores[s.obj.uuid] = scores.get(s.obj.uuid, 0.0) + weight / (60 + rank)
    return sorted((Scored(objs[o], score=v) for o, v in scores.items()), key=lambda s: (-s.score, s.obj.uuid))


def sort_objects(objs: list[StoredObject], sort_by: Sequence[Any]) -> list[StoredObject]:
    """Stable multi-key sort by properties (missing values last, as nulls)."""
    out = list(objs)
    for spec in reversed(list(sort_by)):
        name = spec.path[0]
        present = [o for o in out if o.properties.get(name) is not None]
        missing = [o for o in out if o.properties.get(name) is None]
        present.sort(key=lambda o: o.properties[name], reverse=not spec.ascending)
        out = present + missing
    return out
