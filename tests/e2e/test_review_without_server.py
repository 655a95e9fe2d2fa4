"""A review point without a Prefect server (issue 25): `cairn run` on its temporary server cannot
wait for a form that nobody could open once it exits, so the task stops, resumable, with one line
saying how to give feedback and go on (exit 7), and `--json` names no server. `cairn feedback`,
then `cairn resume`, continue it: the review is recorded as given at the command line, and the
feedback reaches the next iteration. With a server, the run suspends as before
(`tests/e2e/test_ui_control_room.py`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cairn.core import IterationStarted, ReviewDecided
from cairn.memory.log.workspace import Workspace
from tests.conftest import CORPUS, QUESTION_FILE, cairn

pytestmark = pytest.mark.e2e
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()
FEEDBACK = "Cite reservoir.md for the capacity."


def test_without_a_server_a_review_point_stops_the_task_and_says_how_to_go_on(tmp_path: Path) -> None:
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "CAIRN_HOME": str(tmp_path / "cairn")}
    env.pop("PREFECT_API_URL", None)
    ws, task = tmp_path / "ws", "review-cli"
    args = ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(ws), "--task-id", task]
    stopped = cairn([*args, "--review", "every", "--json"], env)

    assert stopped.returncode == 7, stopped.stderr[-3000:]
    waiting = json.loads(stopped.stdout)
    assert waiting["status"] == "awaiting_review" and waiting["iteration"] == 1
    assert waiting["url"] is None and "http" not in stopped.stdout  # no server that died with the run
    last = stopped.stderr.strip().splitlines()[-1]
    assert last.startswith("cairn: task review-cli waits for your review of iteration 1")
    assert f'cairn feedback {task} "..." --workspace {ws}' in last and f"cairn resume {task}" in last
    assert "open this run in the Prefect UI" not in stopped.stderr
    assert Workspace(ws).task(task).state().stop_reason.startswith("awaiting_review")  # type: ignore[union-attr]

    given = cairn(["feedback", task, FEEDBACK, "--workspace", str(ws)], env)
    assert given.returncode == 0, given.stderr[-2000:]
    resumed = cairn(["resume", task, "--workspace", str(ws), "--json"], env)
    assert resumed.returncode == 0, resumed.stderr[-3000:]  # the offline model finishes in iteration 2
    assert json.loads(resumed.stdout)["complete"] is True

    events = Workspace(ws).task(task).read().events
    reviews = [e for e in events if isinstance(e, ReviewDecided)]
    assert reviews == [ReviewDecided(iteration=1, decision="continue", reviewer="cli")]
    second = next(e for e in events if isinstance(e, IterationStarted) and e.iteration == 2)
    assert FEEDBACK in second.feedback
