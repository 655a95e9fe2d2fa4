"""Ranking maths shared by the store backends."""

from __future__ import annotations

import math

import pytest

from cairn.memory.fusion import bm25_idf, bm25_scores, minmax, ranked, relative_score_fusion


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
    expected = idf * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 4 / avg))
    assert bm25_scores(["cat"], docs)[2] == pytest.approx(expected)
    assert bm25_scores(["cat", "cat"], docs) == bm25_scores(["cat"], docs)  # query terms count once
    assert bm25_scores(["zebra"], docs) == [0.0, 0.0, 0.0] and bm25_scores(["cat"], []) == []


def test_ranked_breaks_ties_by_key() -> None:
    assert ranked({"b": 1.0, "a": 1.0, "c": 2.0}, 3) == [("c", 2.0), ("a", 1.0), ("b", 1.0)]
