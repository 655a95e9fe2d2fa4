"""A long task killed in the middle, then resumed: it goes on from the sources it had not read, reads
none twice, and the partial report it had committed is there the whole time.

Thirty one-service notes are read three per iteration (`CAIRN_READ_BATCH=3`); the process is
SIGKILLed when the tenth result reaches iteration 4 (`tests/e2e/faults.py`), and `cairn resume`
finishes the task on the session's Prefect server."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from cairn.memory.log.workspace import Workspace
from tests.e2e.test_resume import _wait_crashed, with_faults

pytestmark = pytest.mark.e2e
TASK = "long-killed"
GOAL = (
    "Summarise, for every service described in the corpus, the team that owns it and its p95 latency budget."
)
BIRDS = ["Wren", "Kite", "Lark", "Rook", "Finch"]


@pytest.fixture(scope="module")
def killed(prefect_server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    corpus = tmp_path_factory.mktemp("long") / "notes"
    corpus.mkdir()
    for n in range(30):
        team, budget = f"Team {BIRDS[n % 5]}", 100 + 5 * n
        text = f"The svc{n:02d} service is owned by {team}. Its p95 latency budget is {budget} ms.\n"
        (corpus / f"svc{n:02d}.md").write_text(text, encoding="utf-8")
    ws = tmp_path_factory.mktemp("long-ws")
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "CAIRN_READ_BATCH": "3"}
    args = ["run", GOAL, "--source", str(corpus), "--workspace", str(ws), "--task-id", TASK]
    first = with_faults(["--kill-after-results", "10"], args, env)
    report = Workspace(ws).task(TASK).artifacts / "report.md"
    partial = report.read_text(encoding="utf-8") if report.is_file() else ""
    _wait_crashed(TASK)
    resumed = with_faults([], ["resume", TASK, "--workspace", str(ws), "--json"], env)
    return {"ws": ws, "first": first, "partial": partial, "resumed": resumed}


def test_the_kill_left_a_committed_partial_report_that_says_how_far_it_got(killed: dict[str, object]) -> None:
    first = killed["first"]
    assert isinstance(first, subprocess.CompletedProcess) and first.returncode == -9, first.stderr[-2000:]
    partial = str(killed["partial"])
    assert "Coverage: 9 of 30 sources read; 9 service items found, " in partial
    assert partial.count("| svc") == 9


def test_resume_reads_on_from_the_unread_sources_and_reads_none_twice(killed: dict[str, object]) -> None:
    resumed = killed["resumed"]
    # Every row is read and given; the offline verifier proves no field (a prose line's `owned by`
    # for the goal's `owns`), so the task ends `covered` with every field Unverified (exit 8).
    assert isinstance(resumed, subprocess.CompletedProcess) and resumed.returncode == 8, resumed.stderr[
        -2000:
    ]
    repo = Workspace(Path(str(killed["ws"]))).task(TASK)
    state = repo.state()
    assert state.status == "incomplete" and str(state.stop_reason).startswith("covered")
    reads = Counter(str(c.params["path"]) for c in state.calls if c.tool == "read_file")
    assert len(reads) == 30 and set(reads.values()) == {1}
    report = (repo.artifacts / "report.md").read_text(encoding="utf-8")
    assert "Coverage: 30 of 30 sources read; 30 service items found, " in report
    rows = [
        f"| svc{n:02d} | Unverified: Team {BIRDS[n % 5]} | Unverified: {100 + 5 * n} ms |" for n in range(30)
    ]
    assert all(row in report for row in rows)
    log = subprocess.run(
        ["git", "log", "--format=%s", "--", "artifacts/report.md"],
        cwd=repo.root,
        capture_output=True,
        text=True,
    )
    assert log.stdout.count("write_file report.md") == 10  # one committed report per iteration
