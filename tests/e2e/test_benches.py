"""The benches that start real processes (the CLI, MCP servers, Prefect servers and flow runs) run
at a tiny size and print one JSON object, so none rots unnoticed (the others: `tests/unit/
test_benches.py`)."""

from __future__ import annotations

import pytest

from tests.unit.test_benches import figures

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
    assert task["complete"] and task["correct"]  # the offline model solves it


def test_orchestration_bench_on_servers() -> None:
    report = figures("orchestration.py", "--iterations", "3", "--modes", "server", "--rounds", "1")
    assert set(report) == {"server", "server_deployment", "deployment_over_cairn"}
    for row in (report["server"], report["server_deployment"]):
        assert row["iteration_ms"] > row["tool_call_ms"] > 0
    assert report["deployment_over_cairn"] > 0
