"""The benches that start real processes (the CLI, MCP servers, Prefect servers and flow runs) run
at a tiny size and print one JSON object, so none rots unnoticed (the others:
`tests/unit/bench/test_fast_benches.py`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.unit.bench.test_fast_benches import figures
from tests.unit.bench.test_recall_bench import tiny_conversation
from tests.weaviate_server import MARKER, LiveWeaviate

pytestmark = pytest.mark.e2e


def test_bad_arguments_bench() -> None:
    report = figures("bad_arguments.py", "--repeat", "1")
    cases = report["cases"]
    assert "--help (the floor)" in cases and len(cases) > 5
    assert all(row["wall_s"] > 0 and row["cpu_s"] > 0 for row in cases.values())


def test_mcp_calls_bench() -> None:
    report = figures("mcp_calls.py", "--calls", "3", "--per-call", "1", "--threads", "2")
    assert report["calls"] == 3 and report["per_call_runs"] == 1
    assert 0 < report["pool_call_ms"] < report["session_per_call_ms"]


def test_agent_bench_offline() -> None:
    """Loosely: `bench/agent.py` is being reworked; its JSON has the tasks, each judged."""
    report = figures("agent.py", "--tasks", "question")
    (task,) = report["tasks"]
    assert isinstance(task["complete"], bool) and isinstance(task["correct"], bool)
    # The offline model's answer is right; the offline verifier does not prove its paraphrase
    # ("usable storage" against "holds ... of usable water"), so it is given unverified.
    assert task["correct"] and not task["complete"] and task["stop_reason"].startswith("unverified")


def test_the_ledger_bench_with_the_local_models_recorded_reading(tmp_path: Path) -> None:
    """The 1.5B's recorded `ledger` replies over the paraphrased services (N = 50): every row is
    the item's current owner and budget, given unverified, and none is wrong."""
    cassette = Path(__file__).parents[1] / "data" / "real-model" / "ledger-service-50.cassette.jsonl"
    args = ("--suite", "long", "--n", "50", "--limit", "1", "--no-baseline", "--keep", str(tmp_path))
    report = figures("agent.py", *args, "--model", f"replay:{cassette}")
    (task,) = report["tasks"]
    assert task["correct"] and not task["complete"]
    assert "unverified 50 (50 right)" in task["why"] and "missing 0" in task["why"]
    (ledger,) = tmp_path.glob("cairn/*/tasks/*/artifacts/report.md")
    assert "| Kates mirror | Unverified: Team Eider | Unverified: 630 ms |" in ledger.read_text(
        encoding="utf-8"
    )


def test_orchestration_bench_on_servers() -> None:
    report = figures("orchestration.py", "--iterations", "3", "--modes", "server", "--rounds", "1")
    assert set(report) == {"server", "server_deployment", "deployment_over_cairn"}
    for row in (report["server"], report["server_deployment"]):
        assert row["iteration_ms"] > row["tool_call_ms"] > 0
    assert report["deployment_over_cairn"] > 0


@getattr(pytest.mark, MARKER)
def test_store_bench_on_both_backends(weaviate_server: LiveWeaviate) -> None:
    env = {**os.environ, **weaviate_server.env()}
    report = figures("store.py", "--sizes", "300", "--backends", "sqlite,weaviate", env=env)
    assert set(report) == {"sqlite", "weaviate"}
    for backend in report.values():
        row = backend["300"]
        assert row["insert_per_s"] > 0 and 0 < row["hybrid_p50_ms"] <= row["hybrid_p95_ms"]
        assert 0.9 <= row["recall_at_10"] <= 1.0  # 300 records: HNSW finds the exact top 10 too


@getattr(pytest.mark, MARKER)
def test_recall_bench_on_both_backends_fuses_alike(weaviate_server: LiveWeaviate, tmp_path: Path) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([tiny_conversation()]))
    env = {**os.environ, **weaviate_server.env()}
    report = figures(
        "recall.py", "--data", str(data), "--embedders", "hashing", "--backends", "sqlite,weaviate", env=env
    )
    for backend in ("sqlite", "weaviate"):
        assert report[backend]["keyword/hashing"] == {"recall@5": 0.5, "recall@10": 0.5, "recall@25": 0.5}
        assert report[backend]["fusion-gap/hashing"]["max"] < 1e-6  # the server fuses as the client does
