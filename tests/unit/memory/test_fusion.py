"""Ranking maths shared by the store backends."""

from __future__ import annotations

import math

import pytest

from cairn.memory.store.fusion import (
    bm25_idf,
    bm25_scores,
    minmax,
    ranked,
    relative_score_fusion,
    weaviate_bm25_scores,
)


def test_minmax_spans_unit_interval_and_equal_scores_get_full_weight() -> None:
    assert minmax({"a": 3.0, "b": 1.0, "c": 2.0}) == {"a": 1.0, "b": 0.0, "c": 0.5}
    assert minmax({"a": 0.4, "b": 0.4}) == {"a": 1.0, "b": 1.0}
    assert minmax({}) == {}


def test_fusion_weights_legs_by_alpha_and_missing_leg_scores_zero() -> None:
    fused = relative_score_fusion({"a": 0.9, "b": 0.3}, {"b": 12.0, "c": 4.0}, alpha=0.7)
    assert fused["a"].score == pytest.approx(0.7) and fused["a"].keyword is None
    assert fused["b"].score == pytest.approx(0.3) and (fused["b"].vector, fused["b"].keyword) == (0.0, 1.0)
    assert fused["c"].score == pytest.approx(0.0) and fused["c"].vector is None


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_fusion_at_alpha_extremes_keeps_one_legs_order(alpha: float) -> None:
    vector, keyword = {"a": 0.2, "b": 0.9, "c": 0.5}, {"a": 7.0, "b": 1.0, "c": 3.0}
    fused = relative_score_fusion(vector, keyword, alpha)
    leg = vector if alpha == 1.0 else keyword
    assert [k for k, _ in ranked({k: f.score for k, f in fused.items()}, 3)] == [k for k, _ in ranked(leg, 3)]


def test_bm25_matches_weaviate_formula_by_hand() -> None:
    docs = [["cat", "sat"], ["dog"], ["cat", "cat", "mat", "hat"]]
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert bm25_idf(3, 2) == pytest.approx(idf)
    avg = 7 / 3
    expected = idf * 2 / (2 + 1.2 * (0.25 + 0.75 * 4 / avg))  # Weaviate has no (k1 + 1) factor
    assert bm25_scores(["cat"], docs)[2] == pytest.approx(expected)
    assert bm25_scores(["cat", "cat"], docs)[2] == pytest.approx(2 * expected)  # a repeated word counts twice
    assert bm25_scores(["zebra"], docs) == [0.0, 0.0, 0.0] and bm25_scores(["cat"], []) == []


# What Weaviate 1.39.0 returned (`bm25(query="zebra", query_properties=...)`, scores as sent) for
# these documents, recorded with deployments/weaviate/start.sh: the scorer must give the same.
_CONTENT = ["zebra", "a1 a2", "a2", "a3", "a4", "a5", "a6", "a7"]
_CONTEXT = [None, "zebra b1 b2", "b2 b3 b4 b5 b6 b7", None, None, None, "zebra", None]


def test_one_property_scores_as_weaviate_1_39_returned() -> None:
    docs = [d.split() for d in ["zebra", "zebra xylo", "yak yak yak yak", "quail rook"]]
    assert weaviate_bm25_scores(["zebra"], [docs], [1.0]) == pytest.approx(
        [0.407734, 0.33007, 0.0, 0.0], abs=1e-6
    )
    assert weaviate_bm25_scores(["zebra"], [docs], [1.5])[:2] == pytest.approx([0.6116, 0.495105], abs=1e-6)


def test_two_properties_are_scored_apart_and_added_as_weaviate_1_39_returned() -> None:
    """Each property with its own average length (the documents lacking it not counted), the
    document frequency averaged over the properties holding the word: not BM25F's pooling."""
    fields = [[d.split() for d in _CONTENT], [d.split() if d else None for d in _CONTEXT]]
    scores = weaviate_bm25_scores(["zebra"], fields, [2.0, 1.0])
    assert scores == pytest.approx([1.706438, 0.849175, 0, 0, 0, 0, 1.141248, 0], abs=1e-6)
    assert weaviate_bm25_scores(["zebra"], fields[1:], [1.0])[6] == pytest.approx(0.815881, abs=1e-6)


def test_ranked_breaks_ties_by_key() -> None:
    assert ranked({"b": 1.0, "a": 1.0, "c": 2.0}, 3) == [("c", 2.0), ("a", 1.0), ("b", 1.0)]
