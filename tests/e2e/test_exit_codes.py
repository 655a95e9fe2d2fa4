"""An incomplete task exits 8 from `cairn run` and from `cairn resume`, and `--json` says so (issue 35,
item 1): a cron job can tell "done, answer unverified" from "done" (0) and from "failed" (1).

The run is the local model's recorded run on `incident-lead` (tests/data/real-model/README.md),
which ends `incomplete` at its iteration cap: its answer names a lead it cannot tie to the incident.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.memory.log.workspace import Workspace
from tests.conftest import ROOT, cairn

pytestmark = pytest.mark.e2e
CASSETTE = ROOT / "tests" / "data" / "real-model" / "incident-lead.cassette.jsonl"
DOCS = ROOT / "bench" / "agent_tasks" / "billing-owner" / "docs"
GOAL = "Which team owns the service whose latency budget was exceeded on March 21, and who leads it?"


def test_an_incomplete_task_exits_8_from_run_and_resume_and_json_agrees(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    ws, task = tmp_path / "ws", "incident-lead"
    options = ["--workspace", str(ws), "--model", f"replay:{CASSETTE}?match=kind", "--json"]
    run = cairn(
        ["run", GOAL, "--source", str(DOCS), "--task-id", task, "--max-iterations", "4", *options], cli_env
    )
    assert run.returncode == 8, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["status"] == "incomplete" and result["exit_code"] == 8
    assert result["stop_reason"] == "iteration cap of 4 reached" and result["unmet"]
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(f"cairn: error: task {task} ended incomplete (iteration cap of 4 reached")
    assert f"cairn show {task} --workspace {ws}" in last and "Traceback" not in run.stderr

    # Nothing is left under the cap: the resume ends the same way, with the same code.
    resumed = cairn(["resume", task, "--workspace", str(ws), "--json"], cli_env)
    assert resumed.returncode == 8, resumed.stderr[-3000:]
    assert json.loads(resumed.stdout)["exit_code"] == 8
    assert Workspace(ws).task(task).state().status == "incomplete"
