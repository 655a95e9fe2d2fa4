"""The gRPC half of the Weaviate test double: Weaviate's `weaviate.v1.Weaviate` service and its
health check, built from the protos weaviate-client ships, over the double's in-memory state.

Implemented: Search (fetch with filters/sort/limit/offset, bm25, near_vector, hybrid), BatchObjects,
BatchDelete, TenantsGet, Aggregate (objects count only). Everything else answers UNIMPLEMENTED.
"""

from __future__ import annotations

import struct
import uuid
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf import json_format
from weaviate.proto.v1 import (
    aggregate_pb2,
    base_pb2,
    batch_delete_pb2,
    batch_pb2,
    health_weaviate_pb2,
    properties_pb2,
    search_get_pb2,
    tenants_pb2,
    weaviate_pb2_grpc,
)

from cairn.memory.store.fusion import HYBRID_LEG_LIMIT
from tests.contract import weaviate_double_query as q

if TYPE_CHECKING:
    from tests.contract.weaviate_double import DoubleState

_DEFAULT_LIMIT = 10  # Weaviate's QUERY_DEFAULTS_LIMIT


class DoubleServicer(weaviate_pb2_grpc.WeaviateServicer):
    """Answers the client's gRPC calls from `DoubleState`, recording every request first."""

    def __init__(self, state: DoubleState) -> None:
        self._state = state

    def _run(self, name: str, request: Any, context: grpc.ServicerContext, body: Any) -> Any:
        self._state.record("grpc", name, request)
        with self._state.lock:
            try:
                return body(request)
            except q.QueryError as exc:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))

    def Search(self, request: Any, context: grpc.ServicerContext) -> Any:  # gRPC method names are CamelCase
        return self._run("Search", request, context, self._search)

    def BatchObjects(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run("BatchObjects", request, context, self._batch)

    def BatchDelete(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run("BatchDelete", request, context, self._batch_delete)

    def TenantsGet(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run("TenantsGet", request, context, self._tenants_get)

    def Aggregate(self, request: Any, context: grpc.ServicerContext) -> Any:
        return self._run("Aggregate", request, context, self._aggregate)

    # -- search ---------------------------------------------------------------------------------
    def _search(self, req: search_get_pb2.SearchRequest) -> search_get_pb2.SearchReply:
        shard = list(self._state.shard(req.collection, req.tenant).values())
        allowed = [o for o in shard if not req.HasField("filters") or q.matches(req.filters, o)]
        depth = (req.limit or _DEFAULT_LIMIT) + req.offset
        scored = self._rank(req, shard, allowed, depth)
        page = scored[req.offset : depth]
        types = self._state.property_types(req.collection)
        return search_get_pb2.SearchReply(took=0.001, results=[_result(req, s, types) for s in page])

    def _rank(self, req: Any, shard: list[Any], allowed: list[Any], depth: int) -> list[q.Scored]:
        index = self._state.text_index(req.collection)
        ids = {o.uuid for o in allowed}
        if req.HasField("hybrid_search"):
            return _hybrid(req.hybrid_search, shard, allowed, index, max(depth, HYBRID_LEG_LIMIT))
        if req.HasField("bm25_search"):
            return q.bm25(shard, ids, req.bm25_search.query, req.bm25_search.properties, index, depth)
        if req.HasField("near_vector"):
            return _near(req.near_vector, allowed, depth)
        for other in ("near_object", "near_text", "near_image", "group_by", "rerank", "generative"):
            if req.HasField(other):
                raise q.QueryError(f"{other} is not supported by the double")
        return [q.Scored(o) for o in q.sort_objects(allowed, req.sort_by)]

    # -- writes ---------------------------------------------------------------------------------
    def _batch(self, req: batch_pb2.BatchObjectsRequest) -> batch_pb2.BatchObjectsReply:
        errors = []
        for index, obj in enumerate(req.objects):
            try:
                self._state.put(obj.collection, obj.tenant, obj.uuid, _batch_props(obj), _batch_vectors(obj))
            except q.QueryError as exc:
                errors.append(batch_pb2.BatchObjectsReply.BatchError(index=index, error=str(exc)))
        return batch_pb2.BatchObjectsReply(took=0.001, errors=errors)

    def _batch_delete(self, req: batch_delete_pb2.BatchDeleteRequest) -> batch_delete_pb2.BatchDeleteReply:
        shard = self._state.shard(req.collection, req.tenant)
        hits = [o for o in shard.values() if q.matches(req.filters, o)]
        if not req.dry_run:
            for obj in hits:
                del shard[obj.uuid]
        objects = [
            batch_delete_pb2.BatchDeleteObject(uuid=_uuid_bytes(o.uuid), successful=True) for o in hits
        ]
        return batch_delete_pb2.BatchDeleteReply(
            took=0.001,
            matches=len(hits),
            successful=len(hits),
            failed=0,
            objects=objects if req.verbose else [],
        )

    # -- schema reads ---------------------------------------------------------------------------
    def _tenants_get(self, req: tenants_pb2.TenantsGetRequest) -> tenants_pb2.TenantsGetReply:
        existing = self._state.tenant_names(req.collection)
        names = [n for n in req.names.values if n in existing] if req.HasField("names") else sorted(existing)
        hot = tenants_pb2.TENANT_ACTIVITY_STATUS_HOT
        return tenants_pb2.TenantsGetReply(
            took=0.001, tenants=[tenants_pb2.Tenant(name=n, activity_status=hot) for n in names]
        )

    def _aggregate(self, req: aggregate_pb2.AggregateRequest) -> aggregate_pb2.AggregateReply:
        if len(req.aggregations) or req.HasField("group_by"):
            raise q.QueryError("the double aggregates object counts only")
        shard = self._state.shard(req.collection, req.tenant).values()
        count = sum(1 for o in shard if not req.HasField("filters") or q.matches(req.filters, o))
        single = aggregate_pb2.AggregateReply.Single(objects_count=count)
        return aggregate_pb2.AggregateReply(took=0.001, single_result=single)


def _hybrid(h: Any, shard: list[Any], allowed: list[Any], index: q.TextIndex, depth: int) -> list[q.Scored]:
    """Both legs (each `depth` deep) fused; Weaviate skips a leg whose weight is zero."""
    alpha = h.alpha_param if h.use_alpha_param else h.alpha
    vector = q.query_vector(h) or (q.query_vector(h.near_vector) if h.HasField("near_vector") else None)
    if vector is None and alpha > 0:
        raise q.QueryError("hybrid needs a vector: the collection has no vectorizer")
    vleg = q.near_vector(allowed, vector, _target(h), depth) if vector is not None and alpha > 0 else []
    ids = {o.uuid for o in allowed}
    kleg = q.bm25(shard, ids, h.query, h.properties, index, depth)[:depth] if h.query and alpha < 1 else []
    return q.fuse(vleg, kleg, alpha, h.fusion_type)


def _target(message: Any) -> str:
    if message.HasField("targets") and len(message.targets.target_vectors):
        return str(message.targets.target_vectors[0])
    return str(message.target_vectors[0]) if len(message.target_vectors) else ""


def _near(nv: Any, allowed: list[Any], depth: int) -> list[q.Scored]:
    vector = q.query_vector(nv)
    if vector is None:
        raise q.QueryError("near_vector without a vector")
    hits = q.near_vector(allowed, vector, _target(nv), depth)
    if nv.HasField("distance"):
        hits = [s for s in hits if (s.distance or 0.0) <= nv.distance]
    return hits


def _batch_props(obj: Any) -> dict[str, Any]:
    """The object's properties, from the Struct and the typed array fields the client uses."""
    props: dict[str, Any] = json_format.MessageToDict(obj.properties.non_ref_properties)
    for group in ("text_array_properties", "int_array_properties", "boolean_array_properties"):
        for arr in getattr(obj.properties, group):
            props[arr.prop_name] = list(arr.values)
    for arr in obj.properties.number_array_properties:
        raw = arr.values_bytes
        props[arr.prop_name] = list(struct.unpack(f"<{len(raw) // 8}d", raw)) if raw else list(arr.values)
    for name in obj.properties.empty_list_props:
        props[name] = []
    return props


def _batch_vectors(obj: Any) -> dict[str, list[float]]:
    named = {v.name or "": q.unpack(v.vector_bytes) for v in obj.vectors}
    if obj.vector_bytes:
        named[""] = q.unpack(obj.vector_bytes)
    elif len(obj.vector):
        named[""] = list(obj.vector)
    return named


def _uuid_bytes(value: str) -> bytes:
    return uuid.UUID(value).bytes


def _result(req: Any, s: q.Scored, types: dict[str, str]) -> search_get_pb2.SearchResult:
    wanted = req.properties
    if not req.HasField("properties") or wanted.return_all_nonref_properties:
        names = list(s.obj.properties)
    else:
        names = [n for n in wanted.non_ref_properties if n in s.obj.properties]
    fields = {n: _value(s.obj.properties[n], types.get(n, "text")) for n in names}
    meta = search_get_pb2.MetadataResult(id=s.obj.uuid, id_as_bytes=_uuid_bytes(s.obj.uuid))
    if s.distance is not None:
        meta.distance, meta.distance_present = s.distance, True
        meta.certainty, meta.certainty_present = 1.0 - s.distance / 2.0, True
    if req.HasField("bm25_search") or req.HasField("hybrid_search"):
        meta.score, meta.score_present = s.score, True
        meta.explain_score, meta.explain_score_present = s.explain, bool(s.explain)
    if req.metadata.vector or len(req.metadata.vectors):
        meta.vectors.extend(_vectors_out(s.obj.vectors))
    if req.metadata.creation_time_unix:
        meta.creation_time_unix, meta.creation_time_unix_present = s.obj.created_ms, True
    if req.metadata.last_update_time_unix:
        meta.last_update_time_unix, meta.last_update_time_unix_present = s.obj.updated_ms, True
    props = search_get_pb2.PropertiesResult(
        non_ref_props=properties_pb2.Properties(fields=fields), target_collection=req.collection
    )
    return search_get_pb2.SearchResult(properties=props, metadata=meta)


def _vectors_out(vectors: dict[str, list[float]]) -> list[base_pb2.Vectors]:
    single = base_pb2.Vectors.VECTOR_TYPE_SINGLE_FP32
    return [
        base_pb2.Vectors(name=name or "default", vector_bytes=struct.pack(f"<{len(v)}f", *v), type=single)
        for name, v in vectors.items()
    ]


def _value(value: Any, data_type: str) -> properties_pb2.Value:
    """A stored property as the typed `Value` Weaviate sends back (by the schema's data type)."""
    if data_type.endswith("[]"):
        lv = properties_pb2.ListValue()
        if data_type == "number[]":
            lv.number_values.values = struct.pack(f"<{len(value)}d", *value)
        elif data_type == "int[]":
            lv.int_values.values = struct.pack(f"<{len(value)}q", *value)
        elif data_type == "boolean[]":
            lv.bool_values.values.extend(value)
        else:
            lv.text_values.values.extend(value)
        return properties_pb2.Value(list_value=lv)
    makers = {
        "number": lambda v: properties_pb2.Value(number_value=float(v)),
        "int": lambda v: properties_pb2.Value(int_value=int(v)),
        "boolean": lambda v: properties_pb2.Value(bool_value=bool(v)),
        "date": lambda v: properties_pb2.Value(date_value=str(v)),
        "uuid": lambda v: properties_pb2.Value(uuid_value=str(v)),
    }
    return makers.get(data_type, lambda v: properties_pb2.Value(text_value=str(v)))(value)


def add_services(server: grpc.Server, state: DoubleState) -> None:
    """Register the Weaviate service and the health check the client pings on connect."""
    weaviate_pb2_grpc.add_WeaviateServicer_to_server(DoubleServicer(state), server)  # type: ignore[no-untyped-call]
    serving = health_weaviate_pb2.WeaviateHealthCheckResponse.SERVING
    check = grpc.unary_unary_rpc_method_handler(
        lambda request, context: health_weaviate_pb2.WeaviateHealthCheckResponse(status=serving),
        request_deserializer=health_weaviate_pb2.WeaviateHealthCheckRequest.FromString,
        response_serializer=health_weaviate_pb2.WeaviateHealthCheckResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("grpc.health.v1.Health", {"Check": check})]
    )
