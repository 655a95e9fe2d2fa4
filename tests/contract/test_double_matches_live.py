"""The double tells the truth: the same records and queries on the Weaviate double and on the real
server (the session's `weaviate_server`) give the same hits with the same scores.

The contract suite checks each backend against the `MemoryStore` rules; this checks the double
against the server, so the fast lane (which runs only the double) ranks as production does. It
found that Weaviate 1.39 scores each BM25 property on its own and cuts each to its best hits
before adding them up (now modelled in the double, and avoided by `WeaviateStore`'s one keyword
property), and that it reads fractional boosts (see docs/weaviate.md).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from cairn.memory.dialog import Turn, turn_memories, turn_vectors
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.protocol import SearchFilter, SearchHit, SearchMode, SearchQuery
from cairn.memory.store.weaviate_store import WeaviateStore, connect_client
from tests.contract.weaviate_backend import GROUPS, shared_double
from tests.weaviate_server import MARKER, LiveWeaviate

pytestmark = getattr(pytest.mark, MARKER)
EMBEDDER = HashingEmbedder(dim=64)
TOLERANCE = 1e-5  # the server scores in float32
MODES: tuple[SearchMode, ...] = ("keyword", "vector", "hybrid")


def dialog(seed: int, n: int = 240) -> list[Turn]:
    """A deterministic conversation: Zipf-distributed made-up words, two speakers, three sessions."""
    rng = random.Random(seed)
    words = ["".join(rng.choices("etaoinshrdlucmfwyp", k=rng.randint(3, 8))) for _ in range(400)]
    weights = [1.0 / (i + 1) for i in range(len(words))]
    return [
        Turn(
            speaker=("Ann", "Bo")[i % 2],
            text=" ".join(rng.choices(words, weights, k=rng.randint(3, 30))),
            turn_id=f"D{i}",
            session=f"s{i // 80}",
        )
        for i in range(n)
    ]


@pytest.fixture(scope="module")
def pair(weaviate_server: LiveWeaviate) -> Iterator[tuple[WeaviateStore, WeaviateStore, list[Turn]]]:
    """The same conversation in two tenants, on the live server and on the double."""
    prefix = "CairnD" + uuid.uuid4().hex[:10]
    live = WeaviateStore(
        weaviate_server.url, EMBEDDER, collection_prefix=prefix, grpc_port=weaviate_server.grpc_port
    )
    _, client = shared_double()
    double = WeaviateStore.from_client(client, EMBEDDER, collection_prefix=prefix)
    turns = dialog(7)
    for store in (live, double):
        for tenant, part in (("conv-a", turns[:160]), ("conv-b", turns[160:])):
            store.upsert(turn_memories(part, tenant), turn_vectors(part, EMBEDDER))
    yield live, double, turns
    live.close()
    _drop(weaviate_server, prefix)


def _drop(server: LiveWeaviate, prefix: str) -> None:
    client = connect_client(server.url, server.grpc_port)
    try:
        client.collections.delete([f"{prefix}{group}" for group in GROUPS])
    finally:
        client.close()


def queries(turns: list[Turn], n: int = 12) -> list[str]:
    """Spans of the conversation's own turns (so keyword search finds something), and a name."""
    rng = random.Random(3)
    spans = []
    for turn in rng.sample(turns, n):
        words = turn.text.split()
        start = rng.randrange(max(1, len(words) - 4))
        spans.append(" ".join(words[start : start + 4]))
    return [*spans, "Ann"]


def assert_same_ranking(live: list[SearchHit], double: list[SearchHit]) -> None:
    """Same scores position by position; the same record at each, except among ties."""
    assert len(live) == len(double)
    for got, want in zip(live, double, strict=True):
        assert got.score == pytest.approx(want.score, abs=TOLERANCE)
    scores = {h.memory.key: h.score for h in double}
    for hit in live:
        if hit.memory.key in scores:
            assert hit.score == pytest.approx(scores[hit.memory.key], abs=TOLERANCE)
        else:  # a tie at the cut: another record with the same score took the last place
            assert hit.score == pytest.approx(double[-1].score, abs=TOLERANCE)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tenants", [["conv-a"], ["conv-a", "conv-b"]], ids=["one-shard", "two-shards"])
def test_searches_rank_alike_on_the_double_and_the_server(
    pair: tuple[WeaviateStore, WeaviateStore, list[Turn]], mode: SearchMode, tenants: list[str]
) -> None:
    live, double, turns = pair
    for text in queries(turns):
        for k, alpha in ((10, 0.5), (25, 0.3)):
            query = SearchQuery(text=text, mode=mode, k=k, alpha=alpha, filter=SearchFilter(tenants=tenants))
            assert_same_ranking(live.search(query), double.search(query))


def test_lists_and_counts_agree(pair: tuple[WeaviateStore, WeaviateStore, list[Turn]]) -> None:
    live, double, _ = pair
    for flt in (SearchFilter(tenants=["conv-b"]), SearchFilter(), SearchFilter(thread_id="s1")):
        assert live.count(flt) == double.count(flt)
        assert [m.key for m in live.list(flt, limit=30)] == [m.key for m in double.list(flt, limit=30)]


def test_two_property_bm25_is_cut_per_property_as_on_the_server(weaviate_server: LiveWeaviate) -> None:
    """Weaviate keeps each property's best max(1.1 limit, limit + 10) hits before adding the
    properties up: a record found low in one property loses that part of its score. The double
    must do the same (Cairn queries one property, but a double that hides this misleads)."""
    turns = dialog(11, n=120)
    docs = [
        {"a": t.text, "b": " ".join(turns[(i + 1) % len(turns)].text.split()[:60])}
        for i, t in enumerate(turns)
    ]
    live = connect_client(weaviate_server.url, weaviate_server.grpc_port)
    try:
        _, double = shared_double()
        got = [_raw_bm25(client, docs, queries(turns, 6)) for client in (live, double)]
    finally:
        live.close()
    for on_live, on_double in zip(*got, strict=True):
        assert on_live.keys() == on_double.keys()
        assert all(on_live[k] == pytest.approx(on_double[k], abs=1e-4) for k in on_live)


def _raw_bm25(client: Any, docs: list[dict[str, str]], texts: list[str]) -> list[dict[str, float]]:
    """Each query's {key: score} at limit 5 over properties a^2 and b, in a fresh collection."""
    from weaviate.classes.config import Configure, DataType, Property, Tokenization
    from weaviate.classes.query import MetadataQuery

    name = "CairnRaw" + uuid.uuid4().hex[:10]
    props = [Property(name=p, data_type=DataType.TEXT, tokenization=Tokenization.WHITESPACE) for p in "ab"]
    collection = client.collections.create(
        name,
        properties=[*props, Property(name="key", data_type=DataType.TEXT)],
        multi_tenancy_config=Configure.multi_tenancy(enabled=True),
        vector_config=Configure.Vectors.self_provided(),
    )
    try:
        collection.tenants.create(["t"])
        shard = collection.with_tenant("t")
        shard.data.insert_many([{**doc, "key": f"d{i}"} for i, doc in enumerate(docs)])
        found = []
        for text in texts:
            res = shard.query.bm25(
                text, query_properties=["a^2", "b"], limit=5, return_metadata=MetadataQuery(score=True)
            )
            found.append({o.properties["key"]: float(o.metadata.score or 0.0) for o in res.objects})
        return found
    finally:
        client.collections.delete(name)
