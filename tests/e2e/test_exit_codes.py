"""An incomplete task exits 8 from `cairn run` and from `cairn resume`, and `--json` says so (issue 35,
item 1): a cron job can tell "done, answer unverified" from "done" (0) and from "failed" (1).

The run is the offline demo question with an iteration cap of 1: the first iteration reads the
corpus and answers nothing yet, so the loop stops it `incomplete` at its cap.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.memory.log.workspace import Workspace
from tests.conftest import CORPUS, QUESTION_FILE, cairn

pytestmark = pytest.mark.e2e
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()


def test_an_incomplete_task_exits_8_from_run_and_resume_and_json_agrees(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    ws, task = tmp_path / "ws", "capped"
    args = ["run", QUESTION, "--source", str(CORPUS), "--task-id", task, "--workspace", str(ws)]
    run = cairn([*args, "--max-iterations", "1", "--json"], cli_env)
    assert run.returncode == 8, run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["status"] == "incomplete" and result["exit_code"] == 8
    assert result["stop_reason"] == "iteration cap of 1 reached" and not result["complete"]
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(f"cairn: task {task} ended incomplete (iteration cap of 1 reached")
    assert f"cairn show {task} --workspace {ws}" in last and "Traceback" not in run.stderr

    # Nothing is left under the cap: the resume ends the same way, with the same code.
    resumed = cairn(["resume", task, "--workspace", str(ws), "--json"], cli_env)
    assert resumed.returncode == 8, resumed.stderr[-3000:]
    assert json.loads(resumed.stdout)["exit_code"] == 8
    assert Workspace(ws).task(task).state().status == "incomplete"
