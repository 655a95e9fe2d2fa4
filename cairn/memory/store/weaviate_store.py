"""`MemoryStore` on a Weaviate server or cluster (weaviate-client v4, bring-your-own vectors).

Layout on the server:

- Two collections, `{prefix}Evidence` (records of kind `evidence`) and `{prefix}Memory` (every
  other kind), both multi-tenant: one tenant per task id, plus the tenant `shared` for cross-task
  learning. Tenants are created on first write; names Weaviate refuses become `t-<sha256 prefix>`.
- Object UUIDs are `uuid5(tenant, key)`, so upserting a key overwrites one object.
- No vectorizer: vectors come from the caller or the store's embedder (one self-provided vector).
- BM25 runs over one property, `terms`: every word of the content twice and of the context once,
  lower-cased and stemmed with `cairn.memory.embed.embeddings.stem`, indexed with whitespace tokenisation
  and no stopword preset, k1 doubled (`weaviate_schema.KEYWORD_PROPERTIES` says why one property);
  queries drop stopwords (`cairn.memory.embed.embeddings.tokens`). Stopwords stay in the documents because
  they count in BM25's document length, as in the embedded store's FTS5 index, so both backends
  match and weigh the same words. `content` itself is stored unindexed.
- "Never expires" is stored as `NEVER` (year 9999), so the TTL filter is a plain `expires_at > now`.

Searching several tenants: a multi-tenant collection cannot be searched across tenants (each tenant
is its own shard), so a search names its shards: the tenants of its filter (all existing tenants
when the filter names none) in the collections its kinds need. A hybrid search on exactly one shard
is one server query, `hybrid(alpha=..., fusion_type=RELATIVE_SCORE)`. On several shards each shard
answers `near_vector` and `bm25` (top `max(k, HYBRID_LEG_LIMIT)` each) and the client fuses the
union with `cairn.memory.store.fusion.relative_score_fusion`, the same formula. BM25 statistics stay
per shard,
as Weaviate keeps them. Either way the fused hits then go through `cairn.memory.store.rerank` in the
client, as `SQLiteStore`'s do.

>>> from cairn.memory.embed.embeddings import HashingEmbedder
>>> store = WeaviateStore("http://localhost:8080", HashingEmbedder(dim=64))  # doctest: +SKIP
>>> store.count()  # doctest: +SKIP
0
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from cairn.core import Memory
from cairn.memory.embed.embeddings import Embedder
from cairn.memory.store.checks import check_memories, check_query_vector, check_vectors
from cairn.memory.store.protocol import SearchFilter, SearchHit, SearchQuery
from cairn.memory.store.rerank import rerank
from cairn.memory.store.weaviate_schema import (
    NEVER,
    check_prefix,
    check_text,
    connect_client,
    ensure_collection,
    filter_of,
    from_properties,
    group_of,
    object_uuid,
    tenant_name,
    to_properties,
)
from cairn.memory.store.weaviate_search import search_shards

__all__ = ["NEVER", "WeaviateStore", "connect_client", "object_uuid"]
_PAGE = 10_000  # Weaviate's default QUERY_MAXIMUM_RESULTS
_BATCH = 500  # records written per gRPC batch
Vector = list[float]
Record = tuple[Memory, Vector]
Shards = list[Any]
Hits = list[SearchHit]
Memories = list[Memory]


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
        check_prefix(collection_prefix)
        self._attach(connect_client(url, grpc_port, api_key), embedder, collection_prefix, owns_client=True)

    @classmethod
    def from_client(
        cls, client: Any, embedder: Embedder, *, collection_prefix: str = "Cairn"
    ) -> WeaviateStore:
        """A store on a connected `weaviate.WeaviateClient` that the caller keeps and closes.

        Connecting costs about half a second (TLS contexts, checks); stores can share one client.

        >>> store = WeaviateStore.from_client(client, embedder, collection_prefix="Team")  # doctest: +SKIP
        """
        check_prefix(collection_prefix)
        store = cls.__new__(cls)
        store._attach(client, embedder, collection_prefix, owns_client=False)
        return store

    def _attach(self, client: Any, embedder: Embedder, prefix: str, *, owns_client: bool) -> None:
        self._client, self._embedder, self._owns_client = client, embedder, owns_client
        self._names = {group: f"{prefix}{group}" for group in ("Evidence", "Memory")}
        # Tenants known to exist; only ever a hint for writes (reads ask the server).
        self._known: dict[str, set[str]] = {group: set() for group in self._names}
        for name in self._names.values():
            ensure_collection(self._client, name)

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

    def list(self, filter: SearchFilter, limit: int = 1000) -> Memories:
        """Records matching a filter, newest first (each shard sorted by the server, then merged)."""
        from weaviate.classes.query import Sort

        flt = filter or SearchFilter()
        where, newest = filter_of(flt, time.time()), Sort.by_property("created_at", ascending=False)
        found = [
            from_properties(obj.properties)
            for shard in self._shards(flt)
            for obj in shard.query.fetch_objects(filters=where, limit=min(limit, _PAGE), sort=newest).objects
        ]
        return sorted(found, key=lambda m: (-m.created_at, m.key))[:limit]

    def count(self, filter: SearchFilter | None = None) -> int:
        flt = filter or SearchFilter()
        where = filter_of(flt, time.time())
        return sum(self._count_shard(shard, where) for shard in self._shards(flt))

    def search(self, query: SearchQuery, vector: Sequence[float] | None = None) -> Hits:
        """Vector, keyword or hybrid search (see the module docstring for several tenants)."""
        qvec = self._query_vector(query, vector)
        shards = self._shards(query.filter)
        if not shards:
            return []
        hits = search_shards(shards, query, qvec, filter_of(query.filter, time.time()))
        if query.mode == "hybrid" and query.rerank:
            hits = rerank(query.text, hits)
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
