"""What `WeaviateStore` sends over the wire, read back from the double's request log.

The contract suite checks behaviour; these check the adapter's Weaviate-specific choices: the
schema (multi-tenancy, no vectorizer, properties), tenant names, vectors sent with objects, hybrid
alpha and fusion type, and filters.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import weaviate
from weaviate.proto.v1 import base_pb2, base_search_pb2

from cairn.core import Memory
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.protocol import SearchFilter, SearchQuery
from cairn.memory.store.weaviate_schema import ensure_collection
from cairn.memory.store.weaviate_store import NEVER, WeaviateStore, object_uuid
from tests.contract.weaviate_backend import DoubleWeaviateStore

DIM = 32
F = base_pb2.Filters


@pytest.fixture(scope="module")
def wired() -> Iterator[DoubleWeaviateStore]:
    # One store for the module: connecting costs ~0.5 s; each test reads only the requests it caused.
    made = DoubleWeaviateStore(HashingEmbedder(dim=DIM))
    yield made
    made.close()


def _mem(key: str, tenant: str, kind: Any = "fact", **extra: Any) -> Memory:
    return Memory(key=key, kind=kind, content=f"note {key} about the build", tenant=tenant, **extra)


def _new(wired: DoubleWeaviateStore, name: str, since: int) -> list[Any]:
    log = wired.double.state.log[since:]
    return [r.body for r in log if r.name == name]


def _conditions(flt: base_pb2.Filters) -> set[tuple[str, str, Any]]:
    """A filter tree flattened to (property, operator, value) leaves."""
    if flt.operator in (F.OPERATOR_AND, F.OPERATOR_OR, F.OPERATOR_NOT):
        return set().union(*(_conditions(sub) for sub in flt.filters))
    kind = flt.WhichOneof("test_value")
    value = getattr(flt, kind)
    value = tuple(value.values) if kind.endswith("_array") else value
    return {(flt.target.property, F.Operator.Name(flt.operator), value)}


def test_schema_is_multi_tenant_with_self_provided_vectors(wired: DoubleWeaviateStore) -> None:
    created = {body["class"]: body for body in wired.double.requests("POST /v1/schema")}
    assert set(created) == {"CairnEvidence", "CairnMemory"}
    for body in created.values():
        assert body["multiTenancyConfig"]["enabled"] is True
        assert body["vectorConfig"]["default"]["vectorizer"] == {"none": {}}
        assert body["invertedIndexConfig"]["stopwords"]["preset"] == "none"
        assert body["invertedIndexConfig"]["bm25"] == {"k1": pytest.approx(2.4), "b": pytest.approx(0.75)}
        props = {p["name"]: p for p in body["properties"]}
        assert set(Memory.model_fields) | {"terms"} == set(props)
        assert props["terms"]["tokenization"] == "whitespace"
        assert props["context"]["indexSearchable"] is False
        assert props["kind"]["tokenization"] == "field" and props["kind"]["indexSearchable"] is False
        assert props["content"]["indexSearchable"] is False
        assert props["agents"]["dataType"] == ["text[]"] and props["access_count"]["dataType"] == ["int"]


def test_tenants_are_created_once_per_collection(wired: DoubleWeaviateStore) -> None:
    mark = len(wired.double.state.log)
    wired.upsert([_mem("t-a", "task-7", kind="evidence"), _mem("t-b", "task-7")])
    wired.upsert([_mem("t-c", "task-7", kind="evidence")])
    added = _new(wired, "POST /v1/schema/CairnEvidence/tenants", mark)
    assert [[t["name"] for t in body] for body in added] == [["task-7"]]
    assert len(_new(wired, "POST /v1/schema/CairnMemory/tenants", mark)) == 1


def test_a_tenant_name_weaviate_refuses_is_hashed(wired: DoubleWeaviateStore) -> None:
    mark = len(wired.double.state.log)
    wired.upsert([_mem("odd", "repo/task 1")])
    (added,) = _new(wired, "POST /v1/schema/CairnMemory/tenants", mark)
    assert added[0]["name"].startswith("t-") and wired.get("odd", "repo/task 1") is not None


def test_objects_carry_tenant_uuid_and_the_given_vector(wired: DoubleWeaviateStore) -> None:
    vector = np.linspace(-1.0, 1.0, DIM)
    mark = len(wired.double.state.log)
    wired.upsert([_mem("vec", "task-8", expires_at=None)], vectors=[vector.tolist()])
    (batch,) = _new(wired, "BatchObjects", mark)
    (obj,) = batch.objects
    assert (obj.collection, obj.tenant, obj.uuid) == ("CairnMemory", "task-8", object_uuid("task-8", "vec"))
    (sent,) = obj.vectors
    got = np.frombuffer(sent.vector_bytes, dtype="<f4")
    assert sent.name == "default" and np.allclose(got, vector / np.linalg.norm(vector), atol=1e-6)
    props = obj.properties.non_ref_properties.fields
    # The content's words twice (weight 1 against the context's 0.5, which this record lacks).
    assert props["terms"].string_value == "note vec about the build note vec about the build"
    assert props["expires_at"].number_value == NEVER


def test_terms_weigh_the_content_twice_and_the_context_once(wired: DoubleWeaviateStore) -> None:
    mark = len(wired.double.state.log)
    wired.upsert([Memory(key="turn", kind="fact", content="Yes, Rex!", context="Your dog?", tenant="t")])
    (batch,) = _new(wired, "BatchObjects", mark)
    terms = batch.objects[0].properties.non_ref_properties.fields["terms"].string_value
    assert terms == "yes rex yes rex your dog"


def test_one_shard_hybrid_is_fused_by_the_server(wired: DoubleWeaviateStore) -> None:
    wired.upsert([_mem("h1", "task-9", kind="evidence"), _mem("h2", "task-9", kind="evidence")])
    mark = len(wired.double.state.log)
    flt = SearchFilter(tenants=["task-9"], kinds=["evidence"])
    hits = wired.search(SearchQuery(text="build h1", alpha=0.3, k=3, filter=flt))
    (request,) = _new(wired, "Search", mark)
    hybrid = request.hybrid_search
    assert request.tenant == "task-9" and request.collection == "CairnEvidence"
    assert hybrid.use_alpha_param and hybrid.alpha_param == pytest.approx(0.3)
    assert hybrid.fusion_type == base_search_pb2.Hybrid.FUSION_TYPE_RELATIVE_SCORE
    # One property: Weaviate would score two on their own and cut each to its best hits first.
    assert list(hybrid.properties) == ["terms"] and hybrid.query == "build h1"
    assert len(hybrid.vector_bytes) == 4 * DIM and request.limit >= 3
    assert hits[0].memory.key == "h1" and hits[0].keyword_score == pytest.approx(1.0)


def test_several_tenants_are_searched_shard_by_shard(wired: DoubleWeaviateStore) -> None:
    wired.upsert([_mem("m1", "task-10"), _mem("m2", "shared")])
    mark = len(wired.double.state.log)
    flt = SearchFilter(tenants=["task-10", "shared"], kinds=["fact"])
    hits = wired.search(SearchQuery(text="build", filter=flt))
    requests = _new(wired, "Search", mark)
    legs = sorted((r.tenant, _leg(r)) for r in requests)
    assert legs == [("shared", "bm25"), ("shared", "near"), ("task-10", "bm25"), ("task-10", "near")]
    assert {h.memory.tenant for h in hits} == {"task-10", "shared"}


def _leg(request: Any) -> str:
    return "bm25" if request.HasField("bm25_search") else "near" if request.HasField("near_vector") else "?"


def test_every_filter_field_is_sent(wired: DoubleWeaviateStore) -> None:
    wired.upsert([_mem("f1", "task-11", kind="evidence", subtype="execution")])
    mark = len(wired.double.state.log)
    flt = SearchFilter(
        tenants=["task-11"],
        kinds=["evidence"],
        subtypes=["execution"],
        min_confidence=0.2,
        max_confidence=0.9,
        since=10.0,
        until=20.0,
        file_path="a.py",
        active=True,
        thread_id="th",
        domain="python",
        task_type="coding_task",
    )
    wired.search(SearchQuery(text="build", mode="keyword", filter=flt))
    (request,) = _new(wired, "Search", mark)
    leaves = _conditions(request.filters)
    expected = {
        ("kind", "OPERATOR_CONTAINS_ANY", ("evidence",)),
        ("subtype", "OPERATOR_CONTAINS_ANY", ("execution",)),
        ("confidence", "OPERATOR_GREATER_THAN_EQUAL", 0.2),
        ("confidence", "OPERATOR_LESS_THAN_EQUAL", 0.9),
        ("created_at", "OPERATOR_GREATER_THAN_EQUAL", 10.0),
        ("created_at", "OPERATOR_LESS_THAN_EQUAL", 20.0),
        ("file_path", "OPERATOR_EQUAL", "a.py"),
        ("active", "OPERATOR_EQUAL", True),
        ("thread_id", "OPERATOR_EQUAL", "th"),
        ("domain", "OPERATOR_EQUAL", "python"),
        ("task_type", "OPERATOR_EQUAL", "coding_task"),
    }
    assert expected <= leaves
    (ttl,) = [leaf for leaf in leaves - expected]
    assert ttl[:2] == ("expires_at", "OPERATOR_GREATER_THAN")
    assert request.tenant == "task-11"
    assert list(request.bm25_search.properties) == ["terms"]


def test_delete_tenant_removes_the_weaviate_tenant(wired: DoubleWeaviateStore) -> None:
    wired.upsert([_mem("d1", "task-12"), _mem("d2", "task-12", kind="evidence")])
    mark = len(wired.double.state.log)
    assert wired.delete_tenant("task-12") == 2
    assert _new(wired, "DELETE /v1/schema/CairnMemory/tenants", mark) == [["task-12"]]
    assert _new(wired, "DELETE /v1/schema/CairnEvidence/tenants", mark) == [["task-12"]]


def test_the_double_refuses_a_search_across_tenants(wired: DoubleWeaviateStore) -> None:
    client = weaviate.connect_to_local(port=wired.double.http_port, grpc_port=wired.double.grpc_port)
    try:
        with pytest.raises(weaviate.exceptions.WeaviateQueryError, match="multi-tenancy enabled"):
            client.collections.use("CairnMemory").query.fetch_objects()
    finally:
        client.close()


def test_purge_deletes_expired_objects_tenant_by_tenant(wired: DoubleWeaviateStore) -> None:
    wired.upsert([_mem("old", "task-13", expires_at=1.0), _mem("new", "task-13")])
    mark = len(wired.double.state.log)
    assert wired.purge_expired() == 1
    deletes = _new(wired, "BatchDelete", mark)
    assert {d.tenant for d in deletes} >= {"task-13"}
    assert all(
        _conditions(d.filters) == {("expires_at", "OPERATOR_LESS_THAN_EQUAL", d.filters.value_number)}
        for d in deletes
    )
    assert wired.get("new", "task-13") is not None and wired.get("old", "task-13") is None


def test_a_collection_from_an_older_cairn_gains_context_and_the_new_k1(wired: DoubleWeaviateStore) -> None:
    client = weaviate.connect_to_local(port=wired.double.http_port, grpc_port=wired.double.grpc_port)
    try:
        for group in ("Evidence", "Memory"):  # as an older Cairn made them: no context, k1 = 1.2
            ensure_collection(client, f"Old{group}")
            old = wired.double.state.classes[f"Old{group}"]
            old["properties"] = [p for p in old["properties"] if not p["name"].startswith("context")]
            old["invertedIndexConfig"]["bm25"]["k1"] = 1.2
        mark = len(wired.double.state.log)
        store = WeaviateStore.from_client(client, HashingEmbedder(dim=DIM), collection_prefix="Old")
        added = _new(wired, "POST /v1/schema/OldMemory/properties", mark)
        assert [p["name"] for p in added] == ["context"]
        assert wired.double.state.classes["OldMemory"]["invertedIndexConfig"]["bm25"]["k1"] == pytest.approx(
            2.4
        )
        store.upsert([Memory(key="a", kind="fact", content="yes!", context="the pottery class", tenant="t")])
        hits = store.search(SearchQuery(text="pottery", mode="keyword", filter=SearchFilter(tenants=["t"])))
        assert [h.memory.key for h in hits] == ["a"]
        mark = len(wired.double.state.log)
        WeaviateStore.from_client(client, HashingEmbedder(dim=DIM), collection_prefix="Old")
        assert not _new(wired, "POST /v1/schema/OldMemory/properties", mark)  # nothing re-added
        assert not _new(wired, "PUT /v1/schema/OldMemory", mark)  # nor k1 set again
    finally:
        client.close()
