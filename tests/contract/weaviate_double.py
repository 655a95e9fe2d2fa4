"""A wire-level Weaviate test double: real weaviate-client requests, answered from real state.

No Weaviate server can run here, so the double serves what the v4 client talks to: REST (meta,
readiness, OIDC discovery answering 404, schema, tenants) on a werkzeug server, and gRPC (search,
batch insert/delete, tenants, aggregate count) on an in-process `grpc.server` built from the
protos weaviate-client ships (`weaviate_double_grpc`). State is a schema, tenants and, per
(collection, tenant) shard, objects with typed properties and named vectors; query semantics live
in `weaviate_double_query`. Every request is recorded, so tests can assert what an adapter sent.

>>> with WeaviateDouble() as double:  # doctest: +SKIP
...     client = weaviate.connect_to_local(port=double.http_port, grpc_port=double.grpc_port)
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import grpc
from werkzeug.serving import WSGIRequestHandler, make_server

from tests.contract.weaviate_double_query import QueryError, StoredObject, TextIndex
from tests.contract.weaviate_double_rest import RestApp

VERSION = "1.36.23"  # the 1.36 line deployments/docker-compose.yml runs


@dataclass(frozen=True)
class Recorded:
    """One request the double received: `rest` ("POST /v1/schema", JSON body) or `grpc` (method, proto)."""

    protocol: str
    name: str
    body: Any


class DoubleState:
    """Schema, tenants and objects of the double, guarded by one lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.classes: dict[str, dict[str, Any]] = {}
        self.tenants: dict[str, set[str]] = {}
        self.shards: dict[tuple[str, str], dict[str, StoredObject]] = {}
        self.dims: dict[tuple[str, str, str], int] = {}
        self.log: list[Recorded] = []

    def record(self, protocol: str, name: str, body: Any) -> None:
        if hasattr(body, "CopyFrom"):
            body = _copy_proto(body)
        with self.lock:
            self.log.append(Recorded(protocol, name, body))

    # -- schema ---------------------------------------------------------------------------------
    def collection(self, name: str) -> dict[str, Any]:
        if name not in self.classes:
            raise QueryError(f"could not find class {name} in schema")
        return self.classes[name]

    def multi_tenant(self, name: str) -> bool:
        return bool(self.collection(name)["multiTenancyConfig"]["enabled"])

    def property_types(self, name: str) -> dict[str, str]:
        return {p["name"]: p["dataType"][0] for p in self.collection(name)["properties"]}

    def text_index(self, name: str) -> TextIndex:
        cls = self.collection(name)
        inverted = cls["invertedIndexConfig"]
        searchable = {
            p["name"]: p.get("tokenization") or "word"
            for p in cls["properties"]
            if p["dataType"][0] in ("text", "text[]") and p.get("indexSearchable", True)
        }
        preset = inverted["stopwords"].get("preset", "en")
        stopwords = TextIndex(searchable).stopwords if preset == "en" else frozenset()
        bm25 = inverted["bm25"]
        return TextIndex(searchable, stopwords, float(bm25["k1"]), float(bm25["b"]))

    def tenant_names(self, name: str) -> set[str]:
        if not self.multi_tenant(name):
            raise QueryError(f"multi-tenancy is not enabled for class {name!r}")
        return self.tenants.setdefault(name, set())

    def drop_tenants(self, name: str, tenants: list[str]) -> None:
        for tenant in tenants:
            self.tenant_names(name).discard(tenant)
            self.shards.pop((name, tenant), None)
            self.dims = {k: v for k, v in self.dims.items() if k[:2] != (name, tenant)}

    # -- objects --------------------------------------------------------------------------------
    def shard(self, name: str, tenant: str) -> dict[str, StoredObject]:
        """The objects of one shard; refuses what Weaviate refuses (tenant rules)."""
        multi = self.multi_tenant(name)
        if multi and not tenant:
            raise QueryError(f"class {name} has multi-tenancy enabled, but request was without tenant")
        if not multi and tenant:
            raise QueryError(f"class {name} has multi-tenancy disabled, but request was with tenant")
        if multi and tenant not in self.tenant_names(name):
            raise QueryError(f'tenant not found: "{tenant}"')
        return self.shards.setdefault((name, tenant), {})

    def put(
        self, name: str, tenant: str, oid: str, props: dict[str, Any], vectors: dict[str, list[float]]
    ) -> None:
        """Insert or replace one object (a batch insert with a known id replaces it, as in Weaviate)."""
        shard = self.shard(name, tenant)
        typed = _typed(props, self.property_types(name), name)
        named = self._named_vectors(name, vectors)
        for vector_name, vector in named.items():
            known = self.dims.setdefault((name, tenant, vector_name), len(vector))
            if known != len(vector):
                raise QueryError(
                    f"new node has a vector with length {len(vector)}. Existing nodes have {known}"
                )
        oid = str(uuid.UUID(oid)) if oid else str(uuid.uuid4())
        now_ms = int(time.time() * 1000)
        created = shard[oid].created_ms if oid in shard else now_ms
        shard[oid] = StoredObject(oid, typed, named, created, now_ms)

    def _named_vectors(self, name: str, vectors: dict[str, list[float]]) -> dict[str, list[float]]:
        configured = list(self.collection(name).get("vectorConfig") or {})
        if "" in vectors and configured:
            if len(configured) != 1:
                raise QueryError("an unnamed vector for a collection with several named vectors")
            vectors = {configured[0]: vectors.pop(""), **vectors}
        unknown = [n for n in vectors if n and n not in configured]
        if unknown:
            raise QueryError(f"target vector {unknown[0]!r} not configured for collection {name}")
        return vectors


def _typed(props: dict[str, Any], types: dict[str, str], name: str) -> dict[str, Any]:
    """Properties coerced to the schema's types; unknown names are refused (no auto-schema)."""
    out: dict[str, Any] = {}
    for key, value in props.items():
        if key not in types:
            raise QueryError(f"no such prop with name '{key}' found in class '{name}' in the schema")
        out[key] = _coerce(value, types[key], key)
    return out


def _coerce(value: Any, data_type: str, key: str) -> Any:
    if value is None:
        return None
    checks: dict[str, tuple[type | tuple[type, ...], Any]] = {
        "int": ((int, float), lambda v: int(v)),
        "number": ((int, float), float),
        "boolean": (bool, bool),
        "text": (str, str),
        "text[]": (list, list),
    }
    kinds, convert = checks.get(data_type, (object, lambda v: v))
    if not isinstance(value, kinds) or (data_type == "int" and float(value) != int(value)):
        raise QueryError(f"invalid {data_type} property '{key}': {value!r}")
    return convert(value)


def _copy_proto(message: Any) -> Any:
    clone = type(message)()
    clone.CopyFrom(message)
    return clone


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:  # the request log replaces access logs
        pass


class WeaviateDouble:
    """The two servers on free loopback ports; `close()` stops both (also a context manager)."""

    def __init__(self) -> None:
        from tests.contract.weaviate_double_grpc import add_services

        self.state = DoubleState()
        self._closed = False
        app = RestApp(self.state, VERSION)
        self._http = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler)
        self._grpc = grpc.server(ThreadPoolExecutor(max_workers=4))
        add_services(self._grpc, self.state)
        self.grpc_port = self._grpc.add_insecure_port("127.0.0.1:0")
        # A short poll interval: shutdown() waits up to one interval for the serving loop to notice.
        serve = lambda: self._http.serve_forever(poll_interval=0.02)  # noqa: E731
        self._thread = threading.Thread(target=serve, name="weaviate-double", daemon=True)
        self._thread.start()
        self._grpc.start()

    @property
    def http_port(self) -> int:
        return int(self._http.server_port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def requests(self, name: str | re.Pattern[str]) -> list[Any]:
        """Bodies of the recorded requests whose name ("Search", "POST /v1/schema") matches."""
        with self.state.lock:
            log = list(self.state.log)
        if isinstance(name, str):
            return [r.body for r in log if r.name == name]
        return [r.body for r in log if name.fullmatch(r.name)]

    def close(self) -> None:
        """Stop both servers (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self._http.shutdown()
        self._http.server_close()
        self._grpc.stop(grace=None)
        self._thread.join(timeout=5)

    def __enter__(self) -> WeaviateDouble:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
