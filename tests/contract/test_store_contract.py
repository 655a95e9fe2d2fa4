"""The `MemoryStore` contract (`cairn.memory.store.protocol`), run against every backend."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from cairn.memory.models import Memory, now
from cairn.memory.store.protocol import (
    MAX_TEXT_CHARS,
    MemoryStore,
    SearchFilter,
    SearchMode,
    SearchQuery,
    StoreError,
    parse_filter,
    parse_query,
)
from tests.contract.conftest import DIM

MODES: tuple[SearchMode, ...] = ("keyword", "vector", "hybrid")


def mem(key: str, content: str, tenant: str = "t1", **fields: Any) -> Memory:
    return Memory(key=key, kind=fields.pop("kind", "fact"), content=content, tenant=tenant, **fields)


def basis(i: int, j: int | None = None) -> list[float]:
    """A unit vector along axis i (or halfway between axes i and j)."""
    v = np.zeros(DIM)
    v[i] = 1.0
    if j is not None:
        v[j] = 1.0
    return (v / np.linalg.norm(v)).tolist()


def search(store: MemoryStore, text: str, mode: SearchMode, tenants: list[str], **kw: Any) -> list[Any]:
    vector = kw.pop("vector", None)
    query = SearchQuery(text=text, mode=mode, filter=SearchFilter(tenants=tenants, **kw.pop("f", {})), **kw)
    return store.search(query, vector)


def keys(hits: list[Any]) -> list[str]:
    return [hit.memory.key for hit in hits]


# -- upsert, get, delete ------------------------------------------------------------------------


def test_upsert_is_idempotent_merges_agents_and_keeps_max_access(store: MemoryStore) -> None:
    store.upsert([mem("k1", "first version of the note", agents=["ann"], access_count=5)])
    store.upsert([mem("k1", "second draft of the note", agents=["bo", "ann"], access_count=2)])
    got = store.get("k1", "t1")
    assert got is not None
    assert (got.content, got.agents, got.access_count) == ("second draft of the note", ["ann", "bo"], 5)
    assert store.count(SearchFilter(tenants=["t1"])) == 1
    assert keys(search(store, "draft", "keyword", ["t1"])) == ["k1"]
    assert search(store, "first version", "keyword", ["t1"]) == []


def test_same_key_in_two_tenants_is_two_records(store: MemoryStore) -> None:
    store.upsert([mem("k1", "alpha note", tenant="a"), mem("k1", "beta note", tenant="b")])
    assert store.count() == 2
    assert store.get("k1", "a").content == "alpha note"  # type: ignore[union-attr]
    assert store.get("k1", "b").content == "beta note"  # type: ignore[union-attr]


def test_get_and_delete(store: MemoryStore) -> None:
    store.upsert([mem("k1", "keep this"), mem("k2", "drop this")])
    assert store.get("k1", "other") is None and store.get("nope", "t1") is None
    assert store.delete(["k2", "missing"], "t1") == 1
    assert store.delete(["k2"], "t1") == 0 and store.delete([], "t1") == 0
    assert store.get("k2", "t1") is None and store.get("k1", "t1") is not None
    assert keys(search(store, "keep drop", "keyword", ["t1"])) == ["k1"]


def test_delete_tenant_leaves_other_tenants(store: MemoryStore) -> None:
    store.upsert([mem("k1", "one", tenant="a"), mem("k2", "two", tenant="a"), mem("k3", "three", tenant="b")])
    assert store.delete_tenant("a") == 2
    assert store.count() == 1 and store.get("k3", "b") is not None
    assert search(store, "one two", "hybrid", ["a"]) == []


def test_record_access_counts_per_tenant(store: MemoryStore) -> None:
    store.upsert([mem("k1", "note", tenant="a"), mem("k1", "note", tenant="b")])
    store.record_access(["k1"], "a")
    store.record_access(["k1", "missing"], "a")
    assert store.get("k1", "a").access_count == 2  # type: ignore[union-attr]
    assert store.get("k1", "b").access_count == 0  # type: ignore[union-attr]


def test_list_is_newest_first_with_limit(store: MemoryStore) -> None:
    store.upsert([mem(f"k{i}", f"note {i}", created_at=1000.0 + i) for i in range(5)])
    assert [m.key for m in store.list(SearchFilter(tenants=["t1"]), limit=3)] == ["k4", "k3", "k2"]


# -- tenants --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_search_never_crosses_tenants(store: MemoryStore, mode: SearchMode) -> None:
    text = "deploy plan for the payment service"
    records = [mem(f"k{i}", text, tenant=t) for i, t in enumerate(["a", "b", "shared"])]
    store.upsert(records, [basis(0)] * 3)
    vector = basis(0)
    assert {h.memory.tenant for h in search(store, text, mode, ["a"], vector=vector)} == {"a"}
    both = search(store, text, mode, ["a", "shared"], vector=vector)
    assert sorted(h.memory.tenant for h in both) == ["a", "shared"]
    assert len(search(store, text, mode, [], vector=vector)) == 3  # no tenant named: every tenant


# -- filters --------------------------------------------------------------------------------------

FILTER_CASES: dict[str, tuple[dict[str, Any], set[str]]] = {
    "kinds": ({"kinds": ["fact", "insight"]}, {"r1", "r2"}),
    "subtypes": ({"subtypes": ["execution"]}, {"r3"}),
    "min_confidence": ({"min_confidence": 0.5}, {"r1", "r2"}),
    "max_confidence": ({"max_confidence": 0.5}, {"r2", "r3"}),
    "since": ({"since": 2000.0}, {"r2", "r3"}),
    "until": ({"until": 2000.0}, {"r1", "r2"}),
    "file_path": ({"file_path": "a.py"}, {"r1"}),
    "active": ({"active": False}, {"r2"}),
    "thread_id": ({"thread_id": "th2"}, {"r2"}),
    "domain": ({"domain": "python"}, {"r1", "r3"}),
    "task_type": ({"task_type": "research_task"}, {"r2", "r3"}),
    "tenants": ({}, {"r1", "r2", "r3"}),
}


def _filter_records() -> list[Memory]:
    text = "release checklist for the parser module"
    r1 = dict(kind="fact", confidence=0.9, created_at=1000.0, file_path="a.py", thread_id="th1")
    r2 = dict(kind="insight", subtype="synthesis", confidence=0.5, created_at=2000.0, file_path="b.py")
    r3 = dict(kind="evidence", subtype="execution", confidence=0.2, created_at=3000.0)
    return [
        mem("r1", text, domain="python", task_type="coding_task", **r1),
        mem("r2", text, domain="web", task_type="research_task", active=False, thread_id="th2", **r2),
        mem("r3", text, domain="python", task_type="research_task", **r3),
        mem("r4", text, tenant="t2", domain="python", task_type="research_task", **r1),
    ]


def test_filter_cases_cover_every_filter_field() -> None:
    assert set(FILTER_CASES) | {"min_confidence", "max_confidence"} == set(SearchFilter.model_fields)


@pytest.mark.parametrize("case", sorted(FILTER_CASES))
def test_every_filter_field_in_list_count_and_search(store: MemoryStore, case: str) -> None:
    fields, expected = FILTER_CASES[case]
    store.upsert(_filter_records())
    f = SearchFilter(tenants=["t1"], **fields)
    assert {m.key for m in store.list(f)} == expected
    assert store.count(f) == len(expected)
    for mode in MODES:
        assert set(keys(search(store, "parser release", mode, ["t1"], f=fields))) == expected, mode


# -- TTL ------------------------------------------------------------------------------------------


def test_expired_records_are_never_returned_and_purged(store: MemoryStore) -> None:
    text = "temporary build cache location"
    store.upsert(
        [
            mem("old", text, expires_at=now() - 10),
            mem("fresh", text, expires_at=now() + 3600),
            mem("forever", text),
        ]
    )
    assert store.get("old", "t1") is None
    assert {m.key for m in store.list(SearchFilter())} == {"fresh", "forever"}
    assert store.count() == 2
    for mode in MODES:
        assert set(keys(search(store, text, mode, ["t1"]))) == {"fresh", "forever"}, mode
    assert store.purge_expired() == 1
    assert store.purge_expired() == 0 and store.count() == 2


# -- search modes, k, scores ----------------------------------------------------------------------

CORPUS = {
    "c-cat": "the cat sat on the warm mat near the window",
    "c-dog": "a dog chased the cat across the garden",
    "c-build": "the build uses uv and pyproject for packaging",
    "c-test": "pytest runs the unit tests of the build",
    "c-deploy": "deploy the service with docker compose and weaviate",
    "c-garden": "tomatoes grow in the garden behind the house",
    "c-mat": "a yoga mat and a water bottle for the gym",
    "c-bird": "a bird sang in the garden at dawn",
}


def _corpus(store: MemoryStore) -> None:
    store.upsert([mem(key, text) for key, text in CORPUS.items()], [basis(i) for i in range(len(CORPUS))])


def test_keyword_search_ranks_matching_text(store: MemoryStore) -> None:
    _corpus(store)
    hits = search(store, "garden cat", "keyword", ["t1"])
    assert keys(hits)[0] == "c-dog"  # the only record with both words
    assert set(keys(hits)) == {"c-dog", "c-cat", "c-garden", "c-bird"}
    assert hits[0].score == 1.0 and hits[0].keyword_score == 1.0


def test_vector_search_uses_the_given_vector(store: MemoryStore) -> None:
    _corpus(store)
    hits = search(store, "", "vector", ["t1"], vector=basis(4), k=3)
    assert keys(hits)[0] == "c-deploy" and math.isclose(hits[0].score, 1.0, abs_tol=1e-5)
    assert all(h.score == pytest.approx(0.0, abs=1e-6) for h in hits[1:])


def test_vector_search_embeds_text_when_no_vector(store: MemoryStore) -> None:
    store.upsert([mem(key, text) for key, text in CORPUS.items()])
    assert keys(search(store, CORPUS["c-test"], "vector", ["t1"]))[0] == "c-test"


def test_hybrid_prefers_records_found_by_both_legs(store: MemoryStore) -> None:
    _corpus(store)
    hits = search(store, "garden", "hybrid", ["t1"], vector=basis(5))
    assert keys(hits)[0] == "c-garden"
    assert hits[0].vector_score == 1.0 and hits[0].keyword_score == 1.0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("k", [1, 3])
def test_k_limits_hits(store: MemoryStore, mode: SearchMode, k: int) -> None:
    _corpus(store)
    assert len(search(store, "the garden", mode, ["t1"], vector=basis(0, 1), k=k)) == k


@pytest.mark.parametrize("mode", MODES)
def test_scores_in_range_and_ordered(store: MemoryStore, mode: SearchMode) -> None:
    _corpus(store)
    hits = search(store, "the cat in the garden", mode, ["t1"], vector=basis(0, 5), k=8)
    assert len(hits) >= 4
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert [(-h.score, h.memory.key) for h in hits] == sorted((-h.score, h.memory.key) for h in hits)


def test_min_score_drops_weak_hits(store: MemoryStore) -> None:
    _corpus(store)
    hits = search(store, "", "vector", ["t1"], vector=basis(1, 2), min_score=0.5)
    assert keys(hits) == ["c-build", "c-dog"]  # equal scores: ordered by key
    assert all(math.isclose(h.score, math.sqrt(0.5), abs_tol=1e-5) for h in hits)
    assert keys(search(store, "garden cat", "keyword", ["t1"], min_score=1.0)) == ["c-dog"]


def test_hybrid_alpha_extremes_match_single_legs(store: MemoryStore) -> None:
    _corpus(store)
    words = "the garden cat dog bird"
    keyword = keys(search(store, words, "keyword", ["t1"], k=3))
    assert keys(search(store, words, "hybrid", ["t1"], vector=basis(7), alpha=0.0, k=3)) == keyword
    blend = np.array(basis(0)) * 0.8 + np.array(basis(2)) * 0.5 + np.array(basis(6)) * 0.3
    vector = (blend / np.linalg.norm(blend)).tolist()
    by_vector = keys(search(store, "", "vector", ["t1"], vector=vector, k=3))
    assert by_vector == ["c-cat", "c-build", "c-mat"]
    assert keys(search(store, words, "hybrid", ["t1"], vector=vector, alpha=1.0, k=3)) == by_vector


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_context_words_find_a_record_below_one_that_says_them(store: MemoryStore, mode: SearchMode) -> None:
    store.upsert(
        [
            mem("said", "Bo: did you like the pottery class?", context="Ann: it was amazing"),
            mem("answer", "Ann: yes, it was amazing!", context="Bo: did you like the pottery class?"),
            mem("other", "Ann: something else entirely", context="Bo: and the weather?"),
        ],
        [basis(0), basis(1), basis(2)],
    )
    hits = search(store, "pottery class", mode, ["t1"], vector=basis(7))
    assert keys(hits)[:2] == ["said", "answer"] and hits[0].score > hits[1].score
    assert "other" not in keys(hits) or mode == "hybrid"  # hybrid's vector leg returns every record
    got = store.get("answer", "t1")
    assert got is not None and got.context == "Bo: did you like the pottery class?"


def test_hybrid_lifts_the_turns_of_the_participant_the_query_names(store: MemoryStore) -> None:
    near = np.array(basis(0)) * 0.9 + np.array(basis(1)) * 0.3  # cosine 0.95 with the query
    vectors = [basis(0), (near / np.linalg.norm(near)).tolist(), basis(2)]
    turns = [("bo-tea", "Bo: green tea"), ("ann-tea", "Ann: tea, green"), ("ann-cat", "Ann: my cat")]
    store.upsert(
        [mem(key, text, kind="document_chunk", subtype="dialog_turn") for key, text in turns], vectors
    )
    asked = {"vector": basis(0), "alpha": 1.0}  # the vector leg alone sets the fused order
    plain = search(store, "What green tea does Ann drink?", "hybrid", ["t1"], rerank=False, **asked)
    assert keys(plain) == ["bo-tea", "ann-tea", "ann-cat"]
    hits = search(store, "What green tea does Ann drink?", "hybrid", ["t1"], **asked)
    assert keys(hits) == ["ann-tea", "bo-tea", "ann-cat"]  # 0.95 + the boost beats 1.0
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert keys(search(store, "What green tea does Cy drink?", "hybrid", ["t1"], **asked)) == keys(plain)


def test_oversized_context_is_refused(store: MemoryStore) -> None:
    with pytest.raises(StoreError, match="context"):
        store.upsert([GOOD, mem("b", "fine text", context="x" * (MAX_TEXT_CHARS + 1))])
    assert store.count() == 0


# -- bad input ------------------------------------------------------------------------------------

GOOD = mem("good", "a perfectly fine record")
BAD_UPSERTS: dict[str, tuple[list[Memory], list[list[float]] | None]] = {
    "wrong dimension": ([GOOD, mem("b", "fine text")], [basis(0), [0.1] * (DIM + 1)]),
    "nan": ([GOOD, mem("b", "fine text")], [basis(0), [math.nan] * DIM]),
    "infinite": ([GOOD, mem("b", "fine text")], [basis(0), [math.inf] + [0.0] * (DIM - 1)]),
    "vector count": ([GOOD, mem("b", "fine text")], [basis(0)]),
    "empty text": ([GOOD, mem("b", "")], None),
    "blank text": ([GOOD, mem("b", "  \n ")], None),
    "oversized text": ([GOOD, mem("b", "x" * (MAX_TEXT_CHARS + 1))], None),
}


@pytest.mark.parametrize("case", sorted(BAD_UPSERTS))
def test_bad_upsert_raises_and_stores_nothing(store: MemoryStore, case: str) -> None:
    memories, vectors = BAD_UPSERTS[case]
    with pytest.raises(StoreError) as error:
        store.upsert(memories, vectors)
    assert "\n" not in str(error.value) and str(error.value)
    assert store.count() == 0 and store.get("good", "t1") is None


def test_unknown_filter_field_is_a_one_line_store_error(store: MemoryStore) -> None:
    """Plain data (JSON, a CLI) becomes a filter or query through the parsers, which refuse it."""
    store.upsert([GOOD])
    calls = [
        lambda: store.list(parse_filter({"bogus": 1})),
        lambda: store.count(parse_filter({"tenants": ["t1"], "bogus": 1})),
        lambda: store.search(parse_query({"text": "fine", "filter": {"bogus": 1}})),
    ]
    for call in calls:
        with pytest.raises(StoreError) as error:
            call()
        assert "\n" not in str(error.value) and "bogus" in str(error.value)
    assert [hit.memory.key for hit in store.search(parse_query({"text": "fine"}))] == ["good"]


@pytest.mark.parametrize("vector", [[0.1] * (DIM - 1), [math.nan] * DIM])
def test_bad_query_vector_raises(store: MemoryStore, vector: list[float]) -> None:
    store.upsert([GOOD])
    with pytest.raises(StoreError):
        store.search(SearchQuery(text="fine", mode="vector"), vector)
