"""Weaviate's side of `WeaviateStore`: collection schema, object ids, tenants, properties, filters.

Two multi-tenant collections hold the records (see `cairn.memory.store.weaviate_store`); this module says how
a `Memory` is laid out there and how a `SearchFilter` reads as a Weaviate filter. Every import of
weaviate-client is inside a function, so importing Cairn never needs the client.
"""

from __future__ import annotations

import re
import uuid
from fractions import Fraction
from typing import Any
from urllib.parse import urlparse

from cairn.core import Memory
from cairn.memory.embed.embeddings import stem
from cairn.memory.store import fusion
from cairn.memory.store.protocol import MAX_TEXT_CHARS, SearchFilter, StoreError

NEVER = 253402300799.0  # 9999-12-31T23:59:59Z: the stored expiry of records that never expire
_NAMESPACE = uuid.UUID("6f1c2f4e-3b8a-5d2c-9e41-7a0d5c3b2e10")
_TENANT_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_PREFIX = re.compile(r"^[A-Z][A-Za-z0-9_]*$")
_WORD = re.compile(r"[a-z0-9]+")  # the words `cairn.memory.embed.embeddings.tokens` sees
_FIELDS = tuple(Memory.model_fields)
# Keyword search runs over one property, `terms`: the content's words `_RATIO.denominator` times
# and the context's `_RATIO.numerator` times (2 and 1 for `fusion.CONTEXT_WEIGHT` = 0.5), with k1
# scaled by the same factor. Why one property: Weaviate (1.39, BlockMax WAND) scores each queried
# property on its own, with its own average length, and sums them only over each property's best
# max(1.1 limit, limit + 10) documents, so a `terms^2, context_terms^1` query ranks unlike FTS5's
# pooled BM25F and its scores even change with the limit. One property pools the frequencies as
# BM25F does: its tf is 2 tf_content + tf_context = 2 w, and k1 doubled gives FTS5's saturation
# w / (w + k1 (...)); only the length counts the content twice. docs/weaviate.md has the figures.
_RATIO = Fraction(fusion.CONTEXT_WEIGHT).limit_denominator(10)
KEYWORD_PROPERTIES = ["terms"]
BM25_K1 = fusion.BM25_K1 * _RATIO.denominator


def object_uuid(tenant: str, key: str) -> str:
    """The deterministic object id of `key` in `tenant` (makes upserts idempotent).

    >>> object_uuid("task-1", "k") == object_uuid("task-1", "k") != object_uuid("shared", "k")
    True
    """
    return str(uuid.uuid5(_NAMESPACE, f"{tenant}\x1f{key}"))


def tenant_name(tenant: str) -> str:
    """The Weaviate tenant holding `tenant`: itself when Weaviate accepts the name, else a hash.

    >>> tenant_name("task-1"), tenant_name("a/b")[:2]
    ('task-1', 't-')
    """
    if _TENANT_NAME.match(tenant):
        return tenant
    return "t-" + uuid.uuid5(_NAMESPACE, tenant).hex


def group_of(kind: str) -> str:
    """Which collection (`Evidence` or `Memory`) holds records of `kind`."""
    return "Evidence" if kind == "evidence" else "Memory"


def to_properties(memory: Memory) -> dict[str, Any]:
    """A record as Weaviate properties (None-valued fields omitted; `terms` for BM25)."""
    props = {name: value for name, value in memory.model_dump().items() if value is not None}
    props["expires_at"] = NEVER if memory.expires_at is None else memory.expires_at
    weighted = [_terms(memory.content)] * _RATIO.denominator + [
        _terms(memory.context or "")
    ] * _RATIO.numerator
    props["terms"] = " ".join(filter(None, weighted))
    return props


def _terms(text: str) -> str:
    """Stemmed words, space-separated: Weaviate's whitespace tokenizer then sees Cairn's tokens."""
    return " ".join(stem(word) for word in _WORD.findall(text.lower()))


def from_properties(props: dict[str, Any]) -> Memory:
    """The record behind Weaviate properties (inverse of `to_properties`)."""
    data = {name: props[name] for name in _FIELDS if props.get(name) is not None}
    if float(data.get("expires_at", NEVER)) >= NEVER:
        data.pop("expires_at", None)
    data["access_count"] = int(data.get("access_count", 0))
    data["agents"] = list(data.get("agents") or [])
    return Memory.model_validate(data)


def filter_of(flt: SearchFilter, now: float) -> Any:
    """The Weaviate filter for a `SearchFilter` (tenants excepted: they pick shards), TTL included."""
    from weaviate.classes.query import Filter

    prop = Filter.by_property
    parts = [prop("expires_at").greater_than(now)]
    if flt.kinds:
        parts.append(prop("kind").contains_any(list(flt.kinds)))
    if flt.subtypes:
        parts.append(prop("subtype").contains_any(list(flt.subtypes)))
    bounds = [("confidence", flt.min_confidence, flt.max_confidence), ("created_at", flt.since, flt.until)]
    for name, low, high in bounds:
        if low is not None:
            parts.append(prop(name).greater_or_equal(low))
        if high is not None:
            parts.append(prop(name).less_or_equal(high))
    for name in ("file_path", "thread_id", "domain", "task_type", "active"):
        value = getattr(flt, name)
        if value is not None:
            parts.append(prop(name).equal(value))
    return Filter.all_of(parts)


def check_text(text: str) -> None:
    """Refuse an oversized query text (an empty one just finds nothing)."""
    if len(text) > MAX_TEXT_CHARS:
        raise StoreError(f"query text has {len(text)} chars; max {MAX_TEXT_CHARS}")


def check_prefix(prefix: str) -> None:
    if not _PREFIX.match(prefix):
        raise StoreError(f"collection prefix {prefix!r} must be a capitalised identifier")


def connect_client(url: str, grpc_port: int | None = None, api_key: str | None = None) -> Any:
    """A connected `weaviate.WeaviateClient` for `url` (REST) and `grpc_port` (default 50051)."""
    import weaviate
    from weaviate.classes.init import Auth

    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise StoreError(f"WEAVIATE_URL must look like http://host:8080, got {url!r}")
    secure = parsed.scheme == "https"
    return weaviate.connect_to_custom(
        http_host=parsed.hostname,
        http_port=parsed.port or (443 if secure else 8080),
        http_secure=secure,
        grpc_host=parsed.hostname,
        grpc_port=grpc_port or 50051,
        grpc_secure=secure,
        auth_credentials=Auth.api_key(api_key) if api_key else None,
    )


# -- schema ---------------------------------------------------------------------------------------
_TEXT_FIELDS = (
    "key",
    "kind",
    "tenant",
    "domain",
    "task_type",
    "subtype",
    "level",
    "source",
    "file_path",
    "thread_id",
)


def ensure_collection(client: Any, name: str) -> None:
    """Create the collection unless it exists (another process may win the race: then it exists),
    or add the properties a collection made by an older Cairn lacks."""
    from weaviate.classes.config import Configure, StopwordsPreset, VectorDistances

    if client.collections.exists(name):
        collection = client.collections.get(name)
        _add_missing_properties(collection)
        _set_bm25(collection)
        return
    try:
        client.collections.create(
            name,
            properties=_schema_properties(),
            multi_tenancy_config=Configure.multi_tenancy(enabled=True, auto_tenant_activation=True),
            vector_config=Configure.Vectors.self_provided(
                name="default",
                vector_index_config=Configure.VectorIndex.hnsw(distance_metric=VectorDistances.COSINE),
            ),
            inverted_index_config=Configure.inverted_index(
                bm25_k1=BM25_K1, bm25_b=fusion.BM25_B, stopwords_preset=StopwordsPreset.NONE
            ),
        )
    except Exception:
        if not client.collections.exists(name):
            raise


def _add_missing_properties(collection: Any) -> None:
    present = {prop.name for prop in collection.config.get(simple=True).properties}
    for prop in _schema_properties():
        if prop.name not in present:
            try:
                collection.config.add_property(prop)
            except Exception:  # another process may have added it first
                if prop.name not in {p.name for p in collection.config.get(simple=True).properties}:
                    raise


def _set_bm25(collection: Any) -> None:
    """Give a collection made by an older Cairn (k1 = 1.2, content and context in two properties)
    the k1 of the one-property layout. Its records keep their old `terms` until `cairn reindex`."""
    from weaviate.classes.config import Reconfigure

    bm25 = collection.config.get().inverted_index_config.bm25
    if abs(bm25.k1 - BM25_K1) > 1e-6 or abs(bm25.b - fusion.BM25_B) > 1e-6:
        collection.config.update(
            inverted_index_config=Reconfigure.inverted_index(bm25_k1=BM25_K1, bm25_b=fusion.BM25_B)
        )


def _schema_properties() -> list[Any]:
    from weaviate.classes.config import DataType, Property, Tokenization

    def tag(name: str, data_type: DataType = DataType.TEXT) -> Any:  # exact-match filters only
        return Property(
            name=name, data_type=data_type, tokenization=Tokenization.FIELD, index_searchable=False
        )

    def number(name: str) -> Any:
        return Property(name=name, data_type=DataType.NUMBER, index_range_filters=True)

    return [
        *(tag(name) for name in _TEXT_FIELDS),
        tag("agents", DataType.TEXT_ARRAY),
        Property(name="content", data_type=DataType.TEXT, index_filterable=False, index_searchable=False),
        Property(name="context", data_type=DataType.TEXT, index_filterable=False, index_searchable=False),
        Property(
            name="terms",
            data_type=DataType.TEXT,
            tokenization=Tokenization.WHITESPACE,
            index_filterable=False,
        ),
        Property(name="active", data_type=DataType.BOOL),
        Property(name="access_count", data_type=DataType.INT),
        *(number(name) for name in ("confidence", "created_at", "updated_at", "expires_at")),
    ]
