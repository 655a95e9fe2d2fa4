"""The verifier's fit and the served model's judgements, at a tiny size: each runs from end to end
through the functions `cairn run` decides with, measures on held-out folds and writes nothing it
was not asked to (the shipped weights are the full run's, `bench/verifier_fit.py`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.bench.test_fast_benches import bench, figures


def test_the_fit_measures_each_dataset_on_folds_it_never_saw(tmp_path: Path) -> None:
    out = tmp_path / "weights.json"
    report = figures("verifier_fit.py", "--datasets", "house,near-house,ledger", "--limit", "6",
                     "--out", str(out), "--folds", str(tmp_path / "folds"))  # fmt: skip
    assert set(report["figures"]) == {"house", "near-house", "ledger"}
    assert 0.0 <= report["thresholds"]["absent"] <= report["thresholds"]["complete"] <= 1.0
    assert report["figures"]["near-house"]["answerable"] == 0  # a near miss has no right value
    weights = json.loads(out.read_text(encoding="utf-8"))
    assert weights["ranker"]["names"] and weights["offline"]["names"] and "offline" in weights["thresholds"]
    assert not (tmp_path / "folds").exists() or not list((tmp_path / "folds").iterdir())  # no SQuAD article


def test_the_judgements_are_asked_once_per_candidate(tmp_path: Path) -> None:
    out = tmp_path / "judged.jsonl"
    args = ["--model", "cairn/offline", "--datasets", "house", "--per-dataset", "3", "--out", str(out)]
    first = bench("verifier_judge.py", *args)
    assert first.returncode == 0, first.stderr[-2000:]
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows and all(0.0 <= r["p_yes"] <= 1.0 and r["source"].startswith("source:") for r in rows)
    assert bench("verifier_judge.py", *args).returncode == 0  # continued: nothing asked twice
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(rows)
