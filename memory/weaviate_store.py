"""`MemoryStore` on a Weaviate server or cluster (weaviate-client v4, bring-your-own vectors).

Layout on the server:

- Two collections, `{prefix}Evidence` (records of kind `evidence`) and `{prefix}Memory` (every
  other kind), both multi-tenant: one tenant per task id, plus the tenant `shared` for cross-task
  learning. Tenants are created on first write; names Weaviate refuses become `t-<sha256 prefix>`.
- Object UUIDs are `uuid5(tenant, key)`, so upserting a key overwrites one object.
- No vectorizer: vectors come from the caller or the store's embedder (one self-provided vector).
- BM25 runs over `terms`: every word of the content, lower-cased and stemmed with
  `memory.embeddings.stem`, indexed with whitespace tokenisation and no stopword preset; queries
  drop stopwords (`memory.embeddings.tokens`). Stopwords stay in the documents because they count
  in BM25's document length, as in the embedded store's FTS5 index, so both backends match and
  weigh the same words. `content` itself is stored unindexed.
- "Never expires" is stored as `NEVER` (year 9999), so the TTL filter is a plain `expires_at > now`.

Searching several tenants: a multi-tenant collection cannot be searched across tenants (each tenant
is its own shard), so a search names its shards: the tenants of its filter (all existing tenants
when the filter names none) in the collections its kinds need. A hybrid search on exactly one shard
is one server query, `hybrid(alpha=..., fusion_type=RELATIVE_SCORE)`. On several shards each shard
answers `near_vector` and `bm25` (top `max(k, HYBRID_LEG_LIMIT)` each) and the client fuses the
union with `memory.fusion.relative_score_fusion`, the same formula. BM25 statistics stay per shard,
as Weaviate keeps them.

>>> from memory.embeddings import HashingEmbedder
>>> store = WeaviateStore("http://localhost:8080", HashingEmbedder(dim=64))  # doctest: +SKIP
>>> store.count()  # doctest: +SKIP
0
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlparse

from memory import fusion
from memory.embeddings import Embedder, stem, tokens
from memory.models import Memory
from memory.store import MAX_TEXT_CHARS, SearchFilter, SearchHit, SearchQuery, StoreError
from memory.stores import as_filter, as_query, check_memories, check_query_vector, check_vectors

NEVER = 253402300799.0  # 9999-12-31T23:59:59Z: the stored expiry of records that never expire
_NAMESPACE = uuid.UUID("6f1c2f4e-3b8a-5d2c-9e41-7a0d5c3b2e10")
_TENANT_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_PREFIX = re.compile(r"^[A-Z][A-Za-z0-9_]*$")
_WORD = re.compile(r"[a-z0-9]+")  # the words `memory.embeddings.tokens` sees
_FIELDS = tuple(Memory.model_fields)
_PAGE = 10_000  # Weaviate's default QUERY_MAXIMUM_RESULTS
_BATCH = 500  # records written per gRPC batch
Vector = list[float]
Record = tuple[Memory, Vector]
Shards = list[Any]
Hits = list[SearchHit]
Memories = list[Memory]


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
    props["terms"] = " ".join(stem(word) for word in _WORD.findall(memory.content.lower()))
    return props


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


class WeaviateStore:
    """A `MemoryStore` on Weaviate (see the module docstring for the layout).

    >>> store = WeaviateStore("http://localhost:8080", embedder, grpc_port=50051)  # doctest: +SKIP
    >>> store.upsert([Memory(key="k", kind="fact", content="uv is fast", tenant="t1")])  # doctest: +SKIP
    """

    def __init__(
        self,
        url: str,
        embedder: Embedder,
        *,
        collection_prefix: str = "Cairn",
        grpc_port: int | None = None,
        api_key: str | None = None,
    ) -> None:
        _check_prefix(collection_prefix)
        self._attach(connect_client(url, grpc_port, api_key), embedder, collection_prefix, owns_client=True)

    @classmethod
    def from_client(
        cls, client: Any, embedder: Embedder, *, collection_prefix: str = "Cairn"
    ) -> WeaviateStore:
        """A store on a connected `weaviate.WeaviateClient` that the caller keeps and closes.

        Connecting costs about half a second (TLS contexts, checks); stores can share one client.

        >>> store = WeaviateStore.from_client(client, embedder, collection_prefix="Team")  # doctest: +SKIP
        """
        _check_prefix(collection_prefix)
        store = cls.__new__(cls)
        store._attach(client, embedder, collection_prefix, owns_client=False)
        return store

    def _attach(self, client: Any, embedder: Embedder, prefix: str, *, owns_client: bool) -> None:
        self._client, self._embedder, self._owns_client = client, embedder, owns_client
        self._names = {group: f"{prefix}{group}" for group in ("Evidence", "Memory")}
        # Tenants known to exist; only ever a hint for writes (reads ask the server).
        self._known: dict[str, set[str]] = {group: set() for group in self._names}
        for name in self._names.values():
            _ensure_collection(self._client, name)

    # -- writes ---------------------------------------------------------------------------------
    def upsert(self, memories: Sequence[Memory], vectors: Sequence[Sequence[float]] | None = None) -> None:
        """Insert or merge records (idempotent by tenant and key); every check runs before a write."""
        batch = [*memories]
        check_memories(batch)
        if not batch:
            return
        if vectors is not None:
            array = check_vectors(vectors, self._embedder.dim, len(batch))
        else:
            array = self._embedder.embed([m.content for m in batch])
        latest: dict[tuple[str, str], Record] = {}
        for memory, row in zip(batch, array, strict=True):
            seen = latest.get((memory.tenant, memory.key))
            latest[memory.tenant, memory.key] = (
                _merge(seen[0], memory) if seen else memory,
                list(map(float, row)),
            )
        for tenant in {tenant for tenant, _ in latest}:
            records = [rec for (t, _), rec in latest.items() if t == tenant]
            for start in range(0, len(records), _BATCH):  # bounded gRPC messages and id lookups
                self._write_tenant(tenant, records[start : start + _BATCH])

    def _write_tenant(self, tenant: str, records: list[Record]) -> None:
        ids = [object_uuid(tenant, m.key) for m, _ in records]
        stored = {group: self._fetch_ids(group, tenant, ids) for group in self._names}
        for group in self._names:
            mine = [(m, v) for m, v in records if group_of(m.kind) == group]
            others = [object_uuid(tenant, m.key) for m, _ in records if group_of(m.kind) != group]
            moved = [oid for oid in others if oid in stored[group]]
            if moved:  # a record whose kind changed collection: drop its old copy
                self._delete_ids(group, tenant, moved)
            if mine:
                old = {**stored["Evidence"], **stored["Memory"]}
                self._insert(group, tenant, [(_merge_old(old, tenant, m), v) for m, v in mine])

    def _insert(self, group: str, tenant: str, records: Iterable[Record]) -> None:
        from weaviate.classes.data import DataObject

        self._ensure_tenant(group, tenant)
        objects = [
            DataObject(properties=to_properties(m), uuid=object_uuid(tenant, m.key), vector={"default": v})
            for m, v in records
        ]
        result = self._shard(group, tenant).data.insert_many(objects)
        if result.has_errors:
            first = next(iter(result.errors.values()))
            raise RuntimeError(f"Weaviate refused {len(result.errors)} objects: {first.message}")

    def record_access(self, keys: Sequence[str], tenant: str) -> None:
        """Increment access counts (rewrites each object with its vector: one write path)."""
        ids = [object_uuid(tenant, key) for key in keys]
        for group in self._names:
            found = self._fetch_ids(group, tenant, ids, vectors=True)
            bumped = [
                (m.model_copy(update={"access_count": m.access_count + 1}), v) for m, v in found.values()
            ]
            if bumped:
                self._insert(group, tenant, bumped)

    def delete(self, keys: Sequence[str], tenant: str) -> int:
        """Delete records by key; returns how many existed."""
        ids = [object_uuid(tenant, key) for key in keys]
        return sum(self._delete_ids(group, tenant, ids) for group in self._names if ids)

    def delete_tenant(self, tenant: str) -> int:
        """Drop a tenant's shards; returns how many records they held."""
        removed = 0
        for group, name in self._names.items():
            weaviate_tenant = tenant_name(tenant)
            if weaviate_tenant in self._existing(group, [tenant]):
                removed += self._count_shard(self._shard(group, tenant), None)
                self._client.collections.use(name).tenants.remove([weaviate_tenant])
            self._known[group].discard(weaviate_tenant)
        return removed

    def purge_expired(self) -> int:
        """Delete expired records in every tenant; returns how many."""
        from weaviate.classes.query import Filter

        expired = Filter.by_property("expires_at").less_or_equal(time.time())
        collections = [self._client.collections.use(name) for name in self._names.values()]
        return sum(
            col.with_tenant(tenant).data.delete_many(where=expired).successful
            for col in collections
            for tenant in col.tenants.get()
        )

    # -- reads ----------------------------------------------------------------------------------
    def get(self, key: str, tenant: str) -> Memory | None:
        now, oid = time.time(), object_uuid(tenant, key)
        for group in self._names:
            found = self._fetch_ids(group, tenant, [oid]).get(oid)
            if found and (found[0].expires_at is None or found[0].expires_at > now):
                return found[0]
        return None

    def list(self, filter: SearchFilter | Mapping[str, Any], limit: int = 1000) -> Memories:
        """Records matching a filter, newest first (each shard sorted by the server, then merged)."""
        from weaviate.classes.query import Sort

        flt = as_filter(filter)
        where, newest = filter_of(flt, time.time()), Sort.by_property("created_at", ascending=False)
        found = [
            from_properties(obj.properties)
            for shard in self._shards(flt)
            for obj in shard.query.fetch_objects(filters=where, limit=min(limit, _PAGE), sort=newest).objects
        ]
        return sorted(found, key=lambda m: (-m.created_at, m.key))[:limit]

    def count(self, filter: SearchFilter | Mapping[str, Any] | None = None) -> int:
        flt = as_filter(filter)
        where = filter_of(flt, time.time())
        return sum(self._count_shard(shard, where) for shard in self._shards(flt))

    def search(self, query: SearchQuery | Mapping[str, Any], vector: Sequence[float] | None = None) -> Hits:
        """Vector, keyword or hybrid search (see the module docstring for several tenants)."""
        query = as_query(query)
        qvec = self._query_vector(query, vector)
        shards = self._shards(query.filter)
        if not shards:
            return []
        hits = _search_shards(shards, query, qvec, filter_of(query.filter, time.time()))
        kept = [hit for hit in hits if hit.score >= query.min_score]
        return sorted(kept, key=lambda h: (-h.score, h.memory.key, h.memory.tenant))[: query.k]

    def close(self) -> None:
        """Close the client this store opened (a client passed to `from_client` stays open)."""
        if self._owns_client:
            self._client.close()

    # -- helpers --------------------------------------------------------------------------------
    def _query_vector(self, query: SearchQuery, vector: Sequence[float] | None) -> Vector | None:
        check_text(query.text)
        if vector is not None:
            return [float(x) for x in check_query_vector(vector, self._embedder.dim)]
        if query.mode == "keyword" or not query.text.strip():
            return None
        return [float(x) for x in self._embedder.embed([query.text])[0]]

    def _shard(self, group: str, tenant: str) -> Any:
        return self._client.collections.use(self._names[group]).with_tenant(tenant_name(tenant))

    def _shards(self, flt: SearchFilter) -> Shards:
        """The (collection, tenant) shards a filter reaches; unknown tenants are skipped."""
        groups = {group_of(kind) for kind in flt.kinds} or set(self._names)
        shards = []
        for group in sorted(groups):
            col = self._client.collections.use(self._names[group])
            names = self._existing(group, flt.tenants) if flt.tenants else set(col.tenants.get())
            shards += [col.with_tenant(name) for name in sorted(names)]
        return shards

    def _existing(self, group: str, tenants: Sequence[str]) -> set[str]:
        """Which of `tenants` exist in a collection, as Weaviate tenant names (asks the server)."""
        col = self._client.collections.use(self._names[group])
        found = set(col.tenants.get_by_names([tenant_name(t) for t in tenants]))
        self._known[group] |= found
        return found

    def _ensure_tenant(self, group: str, tenant: str) -> None:
        name = tenant_name(tenant)
        if name in self._known[group] or name in self._existing(group, [tenant]):
            return
        self._client.collections.use(self._names[group]).tenants.create([name])
        self._known[group].add(name)

    def _fetch_ids(
        self, group: str, tenant: str, ids: Sequence[str], *, vectors: bool = False
    ) -> dict[str, Record]:
        """Stored records by object id (with vectors when asked); {} when the tenant is absent."""
        from weaviate.classes.query import Filter

        if not ids or tenant_name(tenant) not in self._existing(group, [tenant]):
            return {}
        result = self._shard(group, tenant).query.fetch_objects(
            filters=Filter.by_id().contains_any(list(ids)), limit=len(ids), include_vector=vectors
        )
        return {str(o.uuid): (from_properties(o.properties), _vector_of(o.vector)) for o in result.objects}

    def _delete_ids(self, group: str, tenant: str, ids: Sequence[str]) -> int:
        from weaviate.classes.query import Filter

        if tenant_name(tenant) not in self._existing(group, [tenant]):
            return 0
        where = Filter.by_id().contains_any(list(ids))
        return int(self._shard(group, tenant).data.delete_many(where=where).successful)

    @staticmethod
    def _count_shard(shard: Any, where: Any) -> int:
        return int(shard.aggregate.over_all(filters=where, total_count=True).total_count or 0)


def check_text(text: str) -> None:
    """Refuse an oversized query text (an empty one just finds nothing)."""
    if len(text) > MAX_TEXT_CHARS:
        raise StoreError(f"query text has {len(text)} chars; max {MAX_TEXT_CHARS}")


def _merge(old: Memory, new: Memory) -> Memory:
    """`new` refreshed over `old`: agents merged, the larger access count kept."""
    agents = list(dict.fromkeys([*old.agents, *new.agents]))
    return new.model_copy(update={"agents": agents, "access_count": max(old.access_count, new.access_count)})


def _merge_old(stored: dict[str, tuple[Memory, list[float]]], tenant: str, memory: Memory) -> Memory:
    old = stored.get(object_uuid(tenant, memory.key))
    return _merge(old[0], memory) if old else memory


def _vector_of(raw: Any) -> list[float]:
    """The object's vector from a fetch (a dict of named vectors, or a bare list)."""
    if isinstance(raw, dict):
        raw = raw.get("default") or next(iter(raw.values()), [])
    return [float(x) for x in raw or []]


def _check_prefix(prefix: str) -> None:
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


# -- search ---------------------------------------------------------------------------------------
Leg = dict[str, tuple[Memory, float]]  # object id -> (record, raw leg score)
_EXPLAIN = re.compile(r"Result Set '?([^)']*)'?\) Document \S+: original score \S+, normalized score: (\S+)")


def _search_shards(
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
            query_properties=["terms"],
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
        query_properties=["terms"],
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
        legs[leg] = min(1.0, float(weighted) / weight) if weight > 0 else None
    return legs["vector"], legs["keyword"]


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


def _ensure_collection(client: Any, name: str) -> None:
    """Create the collection unless it exists (another process may win the race: then it exists)."""
    from weaviate.classes.config import Configure, StopwordsPreset, VectorDistances

    if client.collections.exists(name):
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
                bm25_k1=fusion.BM25_K1, bm25_b=fusion.BM25_B, stopwords_preset=StopwordsPreset.NONE
            ),
        )
    except Exception:
        if not client.collections.exists(name):
            raise


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
