"""`bench/long_task.py` end to end at a tiny size, with the offline model: a real Prefect run on a
corpus of 12 services and one HumanEval problem as a task, its JSON carrying the scores and Cairn's
own time, whatever the reports delivered (the bench's parts are tested in
`tests/unit/bench/test_long_task_parts.py`)."""

from __future__ import annotations

import pytest

from tests.unit.bench.test_fast_benches import figures

pytestmark = pytest.mark.e2e


def test_long_task_bench_offline() -> None:
    report = figures("long_task.py", "--n", "12", "--max-iterations", "2", "--humaneval", "1")
    (run,) = report["corpus"]
    assert run["n"] == 12 and run["score"]["truth"] == 12
    assert run["run"]["error"] is None and run["run"]["status"]
    assert run["run"]["iterations"] >= 1 and run["run"]["own"]["last"] >= 1
    score = run["score"]
    assert score["right"] + score["wrong"] + score["unverified"] == score["delivered"]
    assert score["unverified_right"] <= score["unverified"]
    assert score["right"] + score["missing"] <= 12
    coding = report["humaneval"]
    assert coding["k"] == 1 and coding["baseline"] is None  # the offline model has no baseline
    (problem,) = coding["cairn"]["problems"]
    assert problem["task_id"] == "HumanEval/0" and isinstance(problem["passed"], bool)
