"""The REST half of the Weaviate test double: a small WSGI app over `DoubleState`.

Routes: readiness/liveness, OIDC discovery (404: no auth), meta, nodes, schema (list, get, create
with server-side defaults filled in, delete) and tenants (list, add, remove, exists). Errors use
Weaviate's body shape, `{"error": [{"message": ...}]}`, with status 422 (or 404 when missing).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from werkzeug.wrappers import Request, Response

from tests.contract.weaviate_double_query import QueryError

if TYPE_CHECKING:
    from tests.contract.weaviate_double import DoubleState

Handler = Callable[[Request, re.Match[str]], Response]
_CLASS_NAME = re.compile(r"^[A-Z][_0-9A-Za-z]*$")
_PROP_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")
_TENANT_NAME = re.compile(r"^[A-Za-z0-9\-_]{1,64}$")


def _json(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")


def _error(message: str, status: int = 422) -> Response:
    return _json({"error": [{"message": message}]}, status)


class RestApp:
    """WSGI app: records each request, then routes it (first matching method + path wins)."""

    def __init__(self, state: DoubleState, version: str) -> None:
        self._state, self._version = state, version
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = [
            ("GET", re.compile(r"/v1/\.well-known/(ready|live)"), lambda r, m: _json({})),
            (
                "GET",
                re.compile(r"/v1/\.well-known/openid-configuration"),
                lambda r, m: _error("no oidc", 404),
            ),
            ("GET", re.compile(r"/v1/meta"), self._meta),
            ("GET", re.compile(r"/v1/nodes"), self._nodes),
            (
                "GET",
                re.compile(r"/v1/schema"),
                lambda r, m: _json({"classes": list(self._state.classes.values())}),
            ),
            ("POST", re.compile(r"/v1/schema"), self._create_class),
            ("GET", re.compile(r"/v1/schema/([^/]+)"), self._get_class),
            ("PUT", re.compile(r"/v1/schema/([^/]+)"), self._update_class),
            ("DELETE", re.compile(r"/v1/schema/([^/]+)"), self._delete_class),
            ("POST", re.compile(r"/v1/schema/([^/]+)/properties"), self._add_property),
            ("GET", re.compile(r"/v1/schema/([^/]+)/tenants"), self._list_tenants),
            ("POST", re.compile(r"/v1/schema/([^/]+)/tenants"), self._add_tenants),
            ("DELETE", re.compile(r"/v1/schema/([^/]+)/tenants"), self._remove_tenants),
            ("GET", re.compile(r"/v1/schema/([^/]+)/tenants/([^/]+)"), self._tenant_exists),
            ("HEAD", re.compile(r"/v1/schema/([^/]+)/tenants/([^/]+)"), self._tenant_exists),
        ]

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        request = Request(environ)
        body = request.get_json(silent=True)
        self._state.record("rest", f"{request.method} {request.path}", body)
        response = self._dispatch(request)
        return response(environ, start_response)

    def _dispatch(self, request: Request) -> Response:
        for method, pattern, handler in self._routes:
            match = pattern.fullmatch(request.path)
            if match and method == request.method:
                with self._state.lock:
                    try:
                        return handler(request, match)
                    except QueryError as exc:
                        return _error(str(exc))
        return _error(f"the double does not serve {request.method} {request.path}", 404)

    def _meta(self, request: Request, match: re.Match[str]) -> Response:
        return _json({"hostname": "http://[::]:8080", "version": self._version, "modules": {}})

    def _nodes(self, request: Request, match: re.Match[str]) -> Response:
        node = {"name": "double", "status": "HEALTHY", "version": self._version, "gitHash": "double"}
        return _json({"nodes": [node]})

    # -- classes --------------------------------------------------------------------------------
    def _create_class(self, request: Request, match: re.Match[str]) -> Response:
        config = request.get_json(silent=True) or {}
        name = str(config.get("class", ""))
        if not _CLASS_NAME.match(name):
            return _error(f"'{name}' is not a valid class name")
        if name in self._state.classes:
            return _error(f"class name {name} already exists")
        bad = [p.get("name") for p in config.get("properties", []) if not _PROP_NAME.match(p.get("name", ""))]
        if bad:
            return _error(f"'{bad[0]}' is not a valid property name")
        self._state.classes[name] = server_shaped(config)
        return _json(self._state.classes[name])

    def _get_class(self, request: Request, match: re.Match[str]) -> Response:
        found = self._state.classes.get(match.group(1))
        return _json(found) if found else Response(status=404)

    def _update_class(self, request: Request, match: re.Match[str]) -> Response:
        """Only what Cairn changes on an existing collection: the BM25 parameters."""
        cls = self._state.collection(match.group(1))
        config = request.get_json(silent=True) or {}
        bm25 = (config.get("invertedIndexConfig") or {}).get("bm25")
        if bm25:
            cls["invertedIndexConfig"]["bm25"] = {"k1": float(bm25["k1"]), "b": float(bm25["b"])}
        return _json(cls)

    def _delete_class(self, request: Request, match: re.Match[str]) -> Response:
        name = match.group(1)
        if self._state.classes.pop(name, None) is not None:
            self._state.shards = {k: v for k, v in self._state.shards.items() if k[0] != name}
            self._state.tenants.pop(name, None)
        return Response(status=200)

    def _add_property(self, request: Request, match: re.Match[str]) -> Response:
        cls = self._state.collection(match.group(1))
        prop = request.get_json(silent=True) or {}
        name = str(prop.get("name", ""))
        if not _PROP_NAME.match(name):
            return _error(f"'{name}' is not a valid property name")
        if any(p["name"].lower() == name.lower() for p in cls["properties"]):
            return _error(f"property '{name}' already exists in class {match.group(1)}")
        cls["properties"].append(_property_shaped(prop))
        return _json(cls["properties"][-1])

    # -- tenants --------------------------------------------------------------------------------
    def _list_tenants(self, request: Request, match: re.Match[str]) -> Response:
        names = sorted(self._state.tenant_names(match.group(1)))
        return _json([{"name": n, "activityStatus": "HOT"} for n in names])

    def _add_tenants(self, request: Request, match: re.Match[str]) -> Response:
        wanted = [str(t.get("name", "")) for t in request.get_json(silent=True) or []]
        bad = [n for n in wanted if not _TENANT_NAME.match(n)]
        if bad:
            return _error(f"tenant name '{bad[0]}' is not valid")
        self._state.tenant_names(match.group(1)).update(wanted)
        return _json([{"name": n, "activityStatus": "HOT"} for n in wanted])

    def _remove_tenants(self, request: Request, match: re.Match[str]) -> Response:
        names = [str(n) for n in request.get_json(silent=True) or []]
        if any(not n for n in names):
            return _error("empty tenant name")
        self._state.drop_tenants(match.group(1), names)
        return Response(status=200)

    def _tenant_exists(self, request: Request, match: re.Match[str]) -> Response:
        found = match.group(2) in self._state.tenant_names(match.group(1))
        return _json({"name": match.group(2), "activityStatus": "HOT"}) if found else Response(status=404)


def server_shaped(config: dict[str, Any]) -> dict[str, Any]:
    """A created class as the server returns it: the request plus the server's defaults."""
    cls = copy.deepcopy(config)
    cls["properties"] = [_property_shaped(prop) for prop in cls.get("properties", [])]
    inverted = cls.setdefault("invertedIndexConfig", {})
    inverted.setdefault("bm25", {"b": 0.75, "k1": 1.2})
    stopwords = inverted.setdefault("stopwords", {"preset": "en"})
    stopwords.setdefault("additions", None)
    stopwords.setdefault("removals", None)
    inverted.setdefault("cleanupIntervalSeconds", 60)
    for flag in ("indexTimestamps", "indexNullState", "indexPropertyLength"):
        inverted.setdefault(flag, False)
    tenancy = cls.setdefault("multiTenancyConfig", {"enabled": False})
    tenancy.setdefault("autoTenantCreation", False)
    tenancy.setdefault("autoTenantActivation", False)
    cls.setdefault("replicationConfig", {"factor": 1, "asyncEnabled": False})
    cls.setdefault("shardingConfig", {"desiredCount": 1, "actualCount": 1, "strategy": "hash"})
    for vector in (cls.get("vectorConfig") or {}).values():
        vector.setdefault("vectorIndexType", "hnsw")
        _hnsw_defaults(vector.setdefault("vectorIndexConfig", {}))
    if not cls.get("vectorConfig"):
        cls.setdefault("vectorizer", "none")
        cls.setdefault("vectorIndexType", "hnsw")
        _hnsw_defaults(cls.setdefault("vectorIndexConfig", {}))
    return cls


def _property_shaped(prop: dict[str, Any]) -> dict[str, Any]:
    """A property as the server returns it: indexing flags and tokenization filled in."""
    shaped = copy.deepcopy(prop)
    text = shaped["dataType"][0] in ("text", "text[]")
    shaped.setdefault("indexFilterable", True)
    shaped.setdefault("indexSearchable", text)
    shaped.setdefault("indexRangeFilters", False)
    if text:
        shaped.setdefault("tokenization", "word")
    return shaped


def _hnsw_defaults(config: dict[str, Any]) -> None:
    """Weaviate's documented HNSW defaults: the client parses all of them when it reads a schema."""
    for name, value in _HNSW_DEFAULTS.items():
        config.setdefault(name, copy.deepcopy(value))


_HNSW_DEFAULTS: dict[str, Any] = {
    "distance": "cosine",
    "cleanupIntervalSeconds": 300,
    "dynamicEfMin": 100,
    "dynamicEfMax": 500,
    "dynamicEfFactor": 8,
    "ef": -1,
    "efConstruction": 128,
    "flatSearchCutoff": 40000,
    "maxConnections": 32,
    "skip": False,
    "vectorCacheMaxObjects": 1_000_000_000_000,
    "pq": {"enabled": False},
    "bq": {"enabled": False},
    "sq": {"enabled": False},
}
