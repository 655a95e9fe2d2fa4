"""The contract tests behind `cairn.memory.store.contract`, which is what a user imports.

They live apart from that face so pytest rewrites their asserts (a failure shows the values it
compared): `contract` registers this module for rewriting before it imports it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from cairn.core import now
from cairn.memory.embed.embeddings import Embedder, HashingEmbedder
from cairn.memory.store._contract_cases import (
    BAD_QUERY_VECTORS,
    BAD_UPSERTS,
    CORPUS,
    DIM,
    FILTER_CASES,
    GOOD,
    MODES,
    basis,
    filter_records,
    keys,
    mem,
    search,
    upsert_corpus,
)
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


class StoreContract:
    """The contract tests; a subclass named `Test...` provides `make_store` (or the `store` fixture)."""

    def make_store(self, tmp_path: Path, embedder: Embedder) -> MemoryStore:
        """A new, empty store that embeds with `embedder`; `tmp_path` is this test's own folder."""
        raise NotImplementedError(f"{type(self).__name__} must define make_store or the store fixture")

    @pytest.fixture
    def embedder(self) -> Embedder:
        return HashingEmbedder(dim=DIM)

    @pytest.fixture
    def store(self, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryStore]:
        made = self.make_store(tmp_path, embedder)
        yield made
        made.close()

    # -- upsert, get, delete --------------------------------------------------------------------

    def test_upsert_is_idempotent_merges_agents_and_keeps_max_access(self, store: MemoryStore) -> None:
        store.upsert([mem("k1", "first version of the note", agents=["ann"], access_count=5)])
        store.upsert([mem("k1", "second draft of the note", agents=["bo", "ann"], access_count=2)])
        got = store.get("k1", "t1")
        assert got is not None
        assert (got.content, got.agents, got.access_count) == ("second draft of the note", ["ann", "bo"], 5)
        assert store.count(SearchFilter(tenants=["t1"])) == 1
        assert keys(search(store, "draft", "keyword", ["t1"])) == ["k1"]
        assert search(store, "first version", "keyword", ["t1"]) == []

    def test_same_key_in_two_tenants_is_two_records(self, store: MemoryStore) -> None:
        store.upsert([mem("k1", "alpha note", tenant="a"), mem("k1", "beta note", tenant="b")])
        assert store.count() == 2
        assert store.get("k1", "a").content == "alpha note"  # type: ignore[union-attr]
        assert store.get("k1", "b").content == "beta note"  # type: ignore[union-attr]

    def test_get_and_delete(self, store: MemoryStore) -> None:
        store.upsert([mem("k1", "keep this"), mem("k2", "drop this")])
        assert store.get("k1", "other") is None and store.get("nope", "t1") is None
        assert store.delete(["k2", "missing"], "t1") == 1
        assert store.delete(["k2"], "t1") == 0 and store.delete([], "t1") == 0
        assert store.get("k2", "t1") is None and store.get("k1", "t1") is not None
        assert keys(search(store, "keep drop", "keyword", ["t1"])) == ["k1"]

    def test_delete_tenant_leaves_other_tenants(self, store: MemoryStore) -> None:
        store.upsert(
            [mem("k1", "one", tenant="a"), mem("k2", "two", tenant="a"), mem("k3", "three", tenant="b")]
        )
        assert store.delete_tenant("a") == 2
        assert store.count() == 1 and store.get("k3", "b") is not None
        assert search(store, "one two", "hybrid", ["a"]) == []

    def test_record_access_counts_per_tenant(self, store: MemoryStore) -> None:
        store.upsert([mem("k1", "note", tenant="a"), mem("k1", "note", tenant="b")])
        store.record_access(["k1"], "a")
        store.record_access(["k1", "missing"], "a")
        assert store.get("k1", "a").access_count == 2  # type: ignore[union-attr]
        assert store.get("k1", "b").access_count == 0  # type: ignore[union-attr]

    def test_list_is_newest_first_with_limit(self, store: MemoryStore) -> None:
        store.upsert([mem(f"k{i}", f"note {i}", created_at=1000.0 + i) for i in range(5)])
        assert [m.key for m in store.list(SearchFilter(tenants=["t1"]), limit=3)] == ["k4", "k3", "k2"]

    # -- tenants ----------------------------------------------------------------------------------

    @pytest.mark.parametrize("mode", MODES)
    def test_search_never_crosses_tenants(self, store: MemoryStore, mode: SearchMode) -> None:
        text = "deploy plan for the payment service"
        records = [mem(f"k{i}", text, tenant=t) for i, t in enumerate(["a", "b", "shared"])]
        store.upsert(records, [basis(0)] * 3)
        vector = basis(0)
        assert {h.memory.tenant for h in search(store, text, mode, ["a"], vector=vector)} == {"a"}
        both = search(store, text, mode, ["a", "shared"], vector=vector)
        assert sorted(h.memory.tenant for h in both) == ["a", "shared"]
        assert len(search(store, text, mode, [], vector=vector)) == 3  # no tenant named: every tenant

    # -- filters ----------------------------------------------------------------------------------

    @pytest.mark.parametrize("case", sorted(FILTER_CASES))
    def test_every_filter_field_in_list_count_and_search(self, store: MemoryStore, case: str) -> None:
        fields, expected = FILTER_CASES[case]
        store.upsert(filter_records())
        f = SearchFilter(tenants=["t1"], **fields)
        assert {m.key for m in store.list(f)} == expected
        assert store.count(f) == len(expected)
        for mode in MODES:
            assert set(keys(search(store, "parser release", mode, ["t1"], f=fields))) == expected, mode

    # -- TTL --------------------------------------------------------------------------------------

    def test_expired_records_are_never_returned_and_purged(self, store: MemoryStore) -> None:
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

    # -- search modes, k, scores ------------------------------------------------------------------

    def test_keyword_search_ranks_matching_text(self, store: MemoryStore) -> None:
        upsert_corpus(store)
        hits = search(store, "garden cat", "keyword", ["t1"])
        assert keys(hits)[0] == "c-dog"  # the only record with both words
        assert set(keys(hits)) == {"c-dog", "c-cat", "c-garden", "c-bird"}
        assert hits[0].score == 1.0 and hits[0].keyword_score == 1.0

    def test_vector_search_uses_the_given_vector(self, store: MemoryStore) -> None:
        upsert_corpus(store)
        hits = search(store, "", "vector", ["t1"], vector=basis(4), k=3)
        assert keys(hits)[0] == "c-deploy" and math.isclose(hits[0].score, 1.0, abs_tol=1e-5)
        assert all(h.score == pytest.approx(0.0, abs=1e-6) for h in hits[1:])

    def test_vector_search_embeds_text_when_no_vector(self, store: MemoryStore) -> None:
        store.upsert([mem(key, text) for key, text in CORPUS.items()])
        assert keys(search(store, CORPUS["c-test"], "vector", ["t1"]))[0] == "c-test"

    def test_hybrid_prefers_records_found_by_both_legs(self, store: MemoryStore) -> None:
        upsert_corpus(store)
        hits = search(store, "garden", "hybrid", ["t1"], vector=basis(5))
        assert keys(hits)[0] == "c-garden"
        assert hits[0].vector_score == 1.0 and hits[0].keyword_score == 1.0

    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize("k", [1, 3])
    def test_k_limits_hits(self, store: MemoryStore, mode: SearchMode, k: int) -> None:
        upsert_corpus(store)
        assert len(search(store, "the garden", mode, ["t1"], vector=basis(0, 1), k=k)) == k

    @pytest.mark.parametrize("mode", MODES)
    def test_scores_in_range_and_ordered(self, store: MemoryStore, mode: SearchMode) -> None:
        upsert_corpus(store)
        hits = search(store, "the cat in the garden", mode, ["t1"], vector=basis(0, 5), k=8)
        assert len(hits) >= 4
        assert all(0.0 <= h.score <= 1.0 for h in hits)
        assert [(-h.score, h.memory.key) for h in hits] == sorted((-h.score, h.memory.key) for h in hits)

    def test_min_score_drops_weak_hits(self, store: MemoryStore) -> None:
        upsert_corpus(store)
        hits = search(store, "", "vector", ["t1"], vector=basis(1, 2), min_score=0.5)
        assert keys(hits) == ["c-build", "c-dog"]  # equal scores: ordered by key
        assert all(math.isclose(h.score, math.sqrt(0.5), abs_tol=1e-5) for h in hits)
        assert keys(search(store, "garden cat", "keyword", ["t1"], min_score=1.0)) == ["c-dog"]

    def test_hybrid_alpha_extremes_match_single_legs(self, store: MemoryStore) -> None:
        upsert_corpus(store)
        words = "the garden cat dog bird"
        keyword = keys(search(store, words, "keyword", ["t1"], k=3))
        assert keys(search(store, words, "hybrid", ["t1"], vector=basis(7), alpha=0.0, k=3)) == keyword
        blend = np.array(basis(0)) * 0.8 + np.array(basis(2)) * 0.5 + np.array(basis(6)) * 0.3
        vector = (blend / np.linalg.norm(blend)).tolist()
        by_vector = keys(search(store, "", "vector", ["t1"], vector=vector, k=3))
        assert by_vector == ["c-cat", "c-build", "c-mat"]
        assert keys(search(store, words, "hybrid", ["t1"], vector=vector, alpha=1.0, k=3)) == by_vector

    @pytest.mark.parametrize("mode", ["keyword", "hybrid"])
    def test_context_words_find_a_record_below_one_that_says_them(
        self, store: MemoryStore, mode: SearchMode
    ) -> None:
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

    def test_hybrid_lifts_the_turns_of_the_participant_the_query_names(self, store: MemoryStore) -> None:
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

    def test_oversized_context_is_refused(self, store: MemoryStore) -> None:
        with pytest.raises(StoreError, match="context"):
            store.upsert([GOOD, mem("b", "fine text", context="x" * (MAX_TEXT_CHARS + 1))])
        assert store.count() == 0

    # -- bad input --------------------------------------------------------------------------------

    @pytest.mark.parametrize("case", sorted(BAD_UPSERTS))
    def test_bad_upsert_raises_and_stores_nothing(self, store: MemoryStore, case: str) -> None:
        memories, vectors = BAD_UPSERTS[case]
        with pytest.raises(StoreError) as error:
            store.upsert(memories, vectors)
        assert "\n" not in str(error.value) and str(error.value)
        assert store.count() == 0 and store.get("good", "t1") is None

    def test_unknown_filter_field_is_a_one_line_store_error(self, store: MemoryStore) -> None:
        """Plain data (JSON, a CLI) becomes a filter or query through the parsers, which refuse it."""
        store.upsert([GOOD])
        calls: list[Callable[[], object]] = [
            lambda: store.list(parse_filter({"bogus": 1})),
            lambda: store.count(parse_filter({"tenants": ["t1"], "bogus": 1})),
            lambda: store.search(parse_query({"text": "fine", "filter": {"bogus": 1}})),
        ]
        for call in calls:
            with pytest.raises(StoreError) as error:
                call()
            assert "\n" not in str(error.value) and "bogus" in str(error.value)
        assert [hit.memory.key for hit in store.search(parse_query({"text": "fine"}))] == ["good"]

    @pytest.mark.parametrize("vector", BAD_QUERY_VECTORS)
    def test_bad_query_vector_raises(self, store: MemoryStore, vector: list[float]) -> None:
        store.upsert([GOOD])
        with pytest.raises(StoreError):
            store.search(SearchQuery(text="fine", mode="vector"), vector)
