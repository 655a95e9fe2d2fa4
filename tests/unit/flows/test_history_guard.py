"""A task that cannot go on says so in one line, and its log gains nothing.

An edited earlier line of `history.jsonl`, junk in the middle of it, a damaged or deleted `.git`,
another process holding the task: each is met before Prefect starts. The tasks are real offline
runs made in this process; the commands run as the CLI (`tests/unit/flows/cli_runs.py`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from cairn.core import UserMessage
from cairn.flows.loop.claim import TaskLock
from cairn.flows.loop.reopen import ready_to_continue
from cairn.memory.log.history import GENESIS, HistoryTampered
from cairn.memory.log.workspace import Workspace
from tests.conftest import BIN, CORPUS
from tests.unit.flows.cli_runs import cli_env, cli_here, one_line
from tests.unit.offline_run import config_for, run_offline, start_offline

TASK = "guarded"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("finished")
    result = run_offline(config_for(ws), TASK, [CORPUS])
    assert result.status == "complete"
    return ws


@pytest.fixture
def ws(finished: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ws"
    shutil.copytree(finished, copy, symlinks=True)
    return copy


def history(ws: Path) -> Path:
    return ws / "tasks" / TASK / "history.jsonl"


def edit_line(path: Path, number: int, old: bytes, new: bytes) -> None:
    lines = path.read_bytes().split(b"\n")
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    path.write_bytes(b"\n".join(lines))


def test_a_line_written_before_a_field_was_added_is_not_tampering(ws: Path) -> None:
    """A log written by an older Cairn lacks fields added since; its lines hash as written."""
    path = history(ws)
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    first = lines[0]["event"]
    assert first["type"] == "task_created" and "max_usd" in first
    del first["max_usd"]  # as Cairn 0.1 wrote it: the budget fields came later
    prev = GENESIS
    for line in lines:  # re-chain as that version did, over the data written
        body = json.dumps(line["event"], sort_keys=True, ensure_ascii=False)
        line["prev"], line["hash"] = prev, hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()
        prev = line["hash"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert Workspace(ws).task(TASK).history.verify().problems == []
    edit_line(path, 4, b"How many days", b"How few days")
    assert Workspace(ws).task(TASK).history.verify().problems == ["line 4: content changed (hash mismatch)"]


def test_resume_and_reindex_refuse_an_edited_earlier_line_and_name_it(ws: Path, tmp_path: Path) -> None:
    edit_line(history(ws), 4, b"How many days", b"How few days")
    before = history(ws).read_bytes()
    for command in ("resume", "reindex"):
        line = one_line(cli_here([command, TASK, "-w", str(ws)], tmp_path), 3, "line 4", "--accept-tampered")
        assert f"cairn {command} {TASK} --accept-tampered" in line
    assert history(ws).read_bytes() == before
    assert not (ws / "results").exists(), "a refused resume started Prefect"


def test_with_accept_tampered_reindex_and_the_flow_go_on_and_show_warns(ws: Path, tmp_path: Path) -> None:
    edit_line(history(ws), 4, b"How many days", b"How few days")
    done = cli_here(["reindex", TASK, "-w", str(ws), "--accept-tampered"], tmp_path)
    assert done.returncode == 0, done.stderr
    repo = Workspace(ws).task(TASK)
    with pytest.raises(HistoryTampered, match="line 4"):
        ready_to_continue(repo, accept_tampered=False)
    assert ready_to_continue(repo, accept_tampered=True).status == "complete"  # what `start_task` does
    shown = cli_here(["show", TASK, "-w", str(ws)], tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "warning: the history was changed: line 4" in " ".join(shown.stdout.split())
    as_json = cli_here(["show", TASK, "-w", str(ws), "--json"], tmp_path)
    assert '"history_problems": ["line 4: content changed (hash mismatch)"]' in as_json.stdout


def test_a_torn_last_line_is_not_tampering_and_the_next_append_repairs_it(ws: Path, tmp_path: Path) -> None:
    with history(ws).open("ab") as handle:
        handle.write(b'{"seq": 99, "ts": 1.0, "prev": "ab')  # a crash while appending
    repo = Workspace(ws).task(TASK)
    assert repo.history.tampering() == []
    ready_to_continue(repo, accept_tampered=False)
    done = cli_here(["reindex", TASK, "-w", str(ws)], tmp_path)
    assert done.returncode == 0, done.stderr
    repo.append(UserMessage(text="after the crash"))
    assert repo.history.verify().ok and repo.read().torn_tail is None


def test_junk_in_the_middle_is_one_line_for_resume_and_reindex(ws: Path, tmp_path: Path) -> None:
    lines = history(ws).read_bytes().split(b"\n")
    history(ws).write_bytes(b"\n".join([*lines[:4], b"}{ not json", *lines[4:]]))
    before = history(ws).read_bytes()
    for command in ("resume", "reindex"):
        one_line(cli_here([command, TASK, "-w", str(ws)], tmp_path), 3, "line 5")
    assert history(ws).read_bytes() == before


def test_a_damaged_git_is_refused_with_the_way_out_and_the_log_is_untouched(ws: Path, tmp_path: Path) -> None:
    git = ws / "tasks" / TASK / ".git"
    shutil.rmtree(git / "objects")
    (git / "objects").mkdir()
    before = history(ws).read_bytes()
    one_line(
        cli_here(["resume", TASK, "-w", str(ws)], tmp_path), 1, "git repository", "aside", "cairn resume"
    )
    assert history(ws).read_bytes() == before


def test_a_deleted_git_is_rebuilt_from_the_history_and_the_task_goes_on(tmp_path: Path) -> None:
    config = config_for(tmp_path / "ws")
    start_offline(config, TASK, [CORPUS], iterations=2)
    root = tmp_path / "ws" / "tasks" / TASK
    outputs = sorted(p.name for p in (root / "outputs").iterdir())
    shutil.rmtree(root / ".git")
    result = run_offline(config, TASK, [CORPUS])  # start_task finds the task and rebuilds .git
    assert result.status == "complete"
    log = subprocess.run(["git", "-C", str(root), "log", "--format=%s"], capture_output=True, text=True)
    assert "repository rebuilt from history.jsonl" in log.stdout
    assert log.stdout.startswith("Task finished"), log.stdout  # later commits land in the new one
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True).stdout
    state = Workspace(tmp_path / "ws").task(TASK).state()
    assert all(f"artifacts/{name}" in tracked.split() for name in state.files), tracked
    assert sorted(p.name for p in (root / "outputs").iterdir())[: len(outputs)] == outputs  # kept
    started = Counter(e.iteration for e in state_events(tmp_path / "ws", "iteration_started"))
    assert set(started.values()) == {1}, started  # no iteration started twice


def test_a_task_another_process_runs_is_refused_in_one_line_before_prefect(ws: Path, tmp_path: Path) -> None:
    """The losing one of two concurrent resumes (or a run naming the task) answers `TaskBusy`."""
    before = history(ws).read_bytes()
    with TaskLock(ws, TASK, flow_run_id="the-winner"):  # the winner, in this process
        losers = [
            subprocess.Popen(
                [str(BIN / "cairn"), *args, "-w", str(ws)],
                stderr=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=cli_env(tmp_path),
            )
            for args in (["resume", TASK], ["run", "again", "--task-id", TASK])
        ]
        answers = [subprocess.CompletedProcess(p.args, p.wait(60), *p.communicate()) for p in losers]
    for answer in answers:
        one_line(answer, 1, f"task {TASK} is being run by process", "the-winner")
    assert history(ws).read_bytes() == before


def state_events(ws: Path, kind: str) -> list[object]:
    return [e for e in Workspace(ws).task(TASK).read().events if getattr(e, "type", "") == kind]
