"""A source file whose name is not UTF-8, through Prefect: the run finishes and so does a resume.

Before, such a name crashed the run in event hashing, each attempt's Prefect retry ran the
iteration's calls again, and every `cairn resume` crashed the same way. Here the CLI runs the
offline research task against the session's Prefect server, over the example corpus plus one such
file named to look relevant (so the agent finds it in the source index and reads it); the task run
that reads it is named with the byte escaped (`\\xe9`), since Prefect's API takes valid text only.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cairn.core import ToolCallRecorded
from cairn.memory.log.workspace import Workspace
from tests.conftest import CORPUS, QUESTION_FILE, cairn, listing

pytestmark = pytest.mark.e2e
NAME = b"alder-creek-reservoir-capacity-days-\xe9.md"


def test_a_name_that_is_not_utf8_runs_and_resumes_through_prefect(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    source = tmp_path / "corpus"
    shutil.copytree(CORPUS, source)
    (Path(os.fsdecode(bytes(source))) / os.fsdecode(NAME)).write_bytes(
        b"# Alder Creek reservoir\n\nThe Alder Creek reservoir holds 1,260,000 cubic metres.\n"
    )
    ws = Path(cli_env["CAIRN_WORKSPACE"])
    question = QUESTION_FILE.read_text(encoding="utf-8").strip()
    first = cairn(["run", question, "--source", str(source), "--task-id", "odd-name"], cli_env)
    assert first.returncode == 0, first.stderr[-3000:]
    again = cairn(["resume", "odd-name"], cli_env)
    assert again.returncode == 0, again.stderr[-3000:]
    repo = Workspace(ws).task("odd-name")
    assert repo.history.verify().ok
    calls = [e.call for e in repo.read().events if isinstance(e, ToolCallRecorded)]
    # The planner knows the file from the source index, by its escaped name; the path resolver
    # maps `\\xe9` back to the byte and reaches the real file. (The exact name kept in the log, as
    # `list_directory` reports it, is `tests/unit/flows/test_names_from_outside.py`'s.)
    read = [c for c in calls if c.tool == "read_file" and "\\xe9" in str(c.params["path"])]
    assert read and read[0].outcome == "success" and "1,260,000" in read[0].raw_output
    assert "read_file-source:corpus/alder-creek-reservoir-capacity-days-\\xe9.md" in task_run_names()


def task_run_names() -> set[str]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

    named = TaskRunFilter(name=TaskRunFilterName(like_="capacity-days"))
    with get_client(sync_client=True) as client:
        return {run.name for run in client.read_task_runs(task_run_filter=named, **listing("task_runs"))}
