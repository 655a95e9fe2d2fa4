"""End to end on a real Prefect server: an offline research task over the example corpus."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.memory.log.workspace import Workspace
from tests.conftest import BIN, ROOT
from tests.e2e.conftest import PlantedRun

pytestmark = pytest.mark.e2e
CORPUS = ROOT / "examples" / "corpus"


@pytest.fixture(scope="module")
def finished(planted_run: PlantedRun) -> tuple[Path, dict[str, object]]:
    """The session's one research run (tests/e2e/conftest.py), seen as a plain user would."""
    return planted_run.workspace, planted_run.result


def test_run_completes_with_a_cited_report(finished: tuple[Path, dict[str, object]]) -> None:
    _, result = finished
    assert result["status"] == "complete" and result["complete"] is True
    assert {"task_id", "iterations", "workspace", "report_path", "verdict"} <= set(result)
    report = Path(str(result["report_path"])).read_text(encoding="utf-8")
    # The answer as the lines prove it: Cairn's arithmetic over the two figures the files state,
    # each operand's line quoted (before, a report that stated only the daily use, citing two
    # corpus files, passed for an answer to "how many days").
    # The deliverable reads as an answer: the question, then what the lines prove.
    first = report.splitlines()[0]
    assert first.endswith("consumption? 150 days (1,260,000 cubic metres / 8,400 cubic metres = 150)."), (
        report
    )
    proof = report.split("## Proof")[1].splitlines()
    quotes = [line for line in proof if line.startswith("> source:corpus/")]
    assert any("1,260,000" in q for q in quotes) and any("8,400" in q for q in quotes), quotes
    assert len(quotes) == len(set(quotes))  # a line holding both operands is quoted once


def test_history_replays_to_the_final_state(finished: tuple[Path, dict[str, object]]) -> None:
    ws, result = finished
    repo = Workspace(ws).task(str(result["task_id"]))
    state = repo.state()
    assert state.status == "complete"
    assert len(state.iterations) == result["iterations"]
    assert state.verdict is not None and state.verdict.model_dump() == result["verdict"]
    assert repo.history.verify().ok
    deliverable = Path(str(result["report_path"])).name
    assert any(deliverable in line for line in repo.log())  # artifacts are committed


def test_show_json_lists_calls_evidence_and_verdict(finished: tuple[Path, dict[str, object]]) -> None:
    ws, result = finished
    proc = subprocess.run(
        [str(BIN / "cairn"), "show", str(result["task_id"]), "--workspace", str(ws), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    view = json.loads(proc.stdout)
    calls = [c for it in view["iterations"] for c in it["tool_calls"]]
    assert calls and all({"insights", "learning", "relevance"} <= set(c) for c in calls)
    assert any(c["insights"] for c in calls if c["tool"] == "read_file")
    assert {e["type"] for e in view["evidence"]} >= {"file_creation", "synthesis", "validation"}
    assert view["verdict"]["complete"] is True


def test_every_iteration_is_a_subflow_and_every_call_a_task_run(
    finished: tuple[Path, dict[str, object]], prefect_server: str
) -> None:
    _, result = finished
    flows, tasks = asyncio.run(_runs_tagged(f"task:{result['task_id']}"))
    names = sorted(f.name for f in flows)
    iterations = int(str(result["iterations"]))
    assert f"cairn-{result['task_id']}" in names
    assert [n for n in names if n.startswith("iteration-")] == sorted(
        f"iteration-{i}" for i in range(1, iterations + 1)
    )
    parent = next(f for f in flows if f.name == f"cairn-{result['task_id']}")
    subflows = [f for f in flows if f.name.startswith("iteration-")]
    assert all(f.parent_task_run_id is not None for f in subflows)
    assert all(f.id != parent.id for f in subflows)
    tool_runs = [t.name for t in tasks if any(tag.startswith("tool:") for tag in t.tags)]
    assert any(n.startswith("read_file-source:") for n in tool_runs), tool_runs
    assert "answer" in tool_runs, tool_runs  # the call that writes the deliverable


async def _runs_tagged(tag: str):  # type: ignore[no-untyped-def]
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterName,
        FlowRunFilterTags,
        TaskRunFilter,
        TaskRunFilterTags,
    )
    from prefect.client.schemas.sorting import FlowRunSort, TaskRunSort

    task_id = tag.split(":", 1)[1]
    async with get_client() as client:
        parent = await client.read_flow_runs(
            flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[f"cairn-{task_id}"])),
            limit=10,
            sort=FlowRunSort.START_TIME_ASC,
        )
        # Filtered on the server: the session's server holds hundreds of other tests' runs, and
        # a client-side filter over the first page missed these once the page filled up.
        tagged = await client.read_flow_runs(
            flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[tag])),
            limit=200,
            sort=FlowRunSort.START_TIME_ASC,
        )
        flows = parent + [f for f in tagged if f.name != f"cairn-{task_id}"]
        tasks = await client.read_task_runs(
            task_run_filter=TaskRunFilter(tags=TaskRunFilterTags(all_=[tag])),
            limit=200,
            sort=TaskRunSort.EXPECTED_START_TIME_ASC,
        )
    return flows, tasks


def test_cli_error_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cairn.flows", "show", "no-such-task", "--workspace", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert proc.stderr.strip().count("\n") == 0 and "no task" in proc.stderr
