"""`bench/recall.py` reads any file in LoCoMo's format (`--data`) and prints one JSON object (`--json`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def tiny_conversation() -> dict[str, object]:
    turns = [
        ("Ann", "I signed up for a pottery class last week", "D1:1"),
        ("Bo", "How was it?", "D1:2"),
        ("Ann", "Amazing, I made a bowl for my mum", "D1:3"),
        ("Bo", "My dog Rex learned to fetch sticks", "D1:4"),
    ]
    turns += [("Bo", f"filler number {i} about weather{i}", f"D1:{i}") for i in range(5, 40)]
    return {
        "sample_id": "tiny",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": s, "text": t, "dia_id": d} for s, t, d in turns],
        },
        "qa": [
            {
                "question": "What did Ann make in pottery class?",
                "answer": "a bowl",
                "evidence": ["D1:3"],
                "category": 4,
            },
            # No word of it is in any turn: keyword search cannot find its evidence.
            {"question": "Quokka?", "answer": "?", "evidence": ["D1:4"], "category": 1},
            # Adversarial questions are left out; this one would be found (and raise the average).
            {"question": "Did Ann sign up for a pottery class?", "evidence": ["D1:1"], "category": 5},
        ],
    }


def test_recall_bench_reads_data_and_prints_json(tmp_path: Path) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([tiny_conversation()]))
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "recall.py"), "--data", str(data), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(run.stdout)
    assert set(report["default"]) == {"recall@5", "recall@10", "recall@25"}
    assert report["default"] == report["hybrid/static-minilm"]
    assert {"keyword/hashing", "vector/hashing", "hybrid-turn-only/hashing"} <= set(report)
    assert {"hybrid-no-rerank/static-minilm", "vector/static-minilm"} <= set(report)
    # One of the two counted questions is found, the other cannot be: (1 + 0) / 2.
    assert report["keyword/hashing"] == {"recall@5": 0.5, "recall@10": 0.5, "recall@25": 0.5}
    assert all(0.5 <= value <= 1.0 for config in report.values() for value in config.values())


def test_recall_variants_rebuild_the_default_from_its_legs(tmp_path: Path) -> None:
    """`bench/recall_variants.py` compares candidates with a `product` row that ranks as the store's
    own hybrid search does: the same recall as `bench/recall.py`'s default on the same data."""
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([tiny_conversation()]))

    def report(script: str) -> dict[str, dict[str, float]]:
        command = [sys.executable, str(ROOT / "bench" / script), "--data", str(data), "--json"]
        out = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
        return dict(json.loads(out))

    variants, default = report("recall_variants.py"), report("recall.py")["default"]
    assert {k: variants["product"][k] for k in default} == default
    assert variants["product"]["delta@10"] == 0.0
    assert {"vector-prf", "expansion", "short-turn-prior", "rrf-fusion"} <= set(variants)


def test_recall_bench_runs_chosen_embedders_and_splits_recall_by_category(tmp_path: Path) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([tiny_conversation()]))
    command = [sys.executable, str(ROOT / "bench" / "recall.py"), "--data", str(data), "--json"]
    run = subprocess.run(
        [*command, "--embedders", "hashing", "--by-category"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(run.stdout)
    assert "default" not in report and all(name.endswith("/hashing") for name in report)
    # Category 4 (single-hop) is found, category 1 (multi-hop) cannot be.
    assert report["keyword/hashing"]["recall@10 single-hop"] == 1.0
    assert report["keyword/hashing"]["recall@10 multi-hop"] == 0.0
