"""The verifier's fit at a tiny size: it runs from end to end through the functions `cairn run`
decides with, measures on held-out folds and writes nothing it was not asked to (the shipped
weights are the full run's, `bench/verifier_fit.py`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.bench.test_fast_benches import figures


def test_the_fit_measures_each_dataset_on_folds_it_never_saw(tmp_path: Path) -> None:
    out = tmp_path / "weights.json"
    report = figures("verifier_fit.py", "--datasets", "house,near-house,ledger", "--limit", "6",
                     "--out", str(out), "--folds", str(tmp_path / "folds"))  # fmt: skip
    assert set(report["figures"]) == {"house", "near-house", "ledger"}
    assert 0.0 <= report["thresholds"]["absent"] <= report["thresholds"]["complete"] <= 1.0
    assert report["figures"]["near-house"]["answerable"] == 0  # a near miss has no right value
    weights = json.loads(out.read_text(encoding="utf-8"))
    assert weights["ranker"]["names"] and weights["offline"]["names"] and "complete" in weights["thresholds"]
    assert not (tmp_path / "folds").exists() or not list((tmp_path / "folds").iterdir())  # no SQuAD article
