"""`cairn verify` and `cairn show` on damaged logs: the CLI in a subprocess, no Prefect needed.

A changed line in the middle is tampering (exit 1, the line named); a torn last line is what a
crash while appending leaves (reported by both commands, everything before it kept).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cairn.core import TaskCreated, UserMessage
from cairn.memory.log.workspace import Workspace
from tests.conftest import BIN

TASK = "dam-history-0001"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A task with five events: created, the goal, three feedback messages."""
    ws = tmp_path / "ws"
    repo = Workspace(ws).create_task(
        TaskCreated(task_id=TASK, goal="Who built the dam?", task_type="research_task")
    )
    repo.append(UserMessage(text="Who built the dam?", role="goal"))
    for i in range(3):
        repo.append(UserMessage(text=f"feedback number {i}", role="feedback"))
    return ws


def cairn(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    return subprocess.run([str(BIN / "cairn"), *args], capture_output=True, text=True, timeout=120, env=env)


def history(ws: Path) -> Path:
    return ws / "tasks" / TASK / "history.jsonl"


def verify(ws: Path) -> tuple[int, dict[str, object]]:
    proc = cairn("verify", TASK, "--workspace", str(ws), "--json")
    return proc.returncode, json.loads(proc.stdout)


def test_an_intact_log_verifies(workspace: Path) -> None:
    code, report = verify(workspace)
    assert code == 0
    assert report == {"task_id": TASK, "ok": True, "lines": 5, "problems": [], "torn_tail": None}


def test_a_changed_middle_line_is_tampering_and_named(workspace: Path) -> None:
    path = history(workspace)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace("feedback number 0", "feedback number 9")  # still valid JSON
    path.write_text("".join(lines), encoding="utf-8")
    code, report = verify(workspace)
    assert code == 1 and report["ok"] is False
    assert report["problems"] == ["line 3: content changed (hash mismatch)"]
    human = cairn("verify", TASK, "--workspace", str(workspace))
    assert human.returncode == 1 and "TAMPERED" in human.stdout and "line 3" in human.stdout


def test_removed_and_reordered_lines_break_the_chain(workspace: Path) -> None:
    path = history(workspace)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join([lines[0], lines[1], lines[3], lines[2], lines[4]]), encoding="utf-8")
    code, report = verify(workspace)
    assert code == 1
    assert any(p.startswith("line 3: chain broken") for p in report["problems"])  # type: ignore[attr-defined]
    path.write_text("".join([lines[0], lines[1], lines[3], lines[4]]), encoding="utf-8")
    code, report = verify(workspace)
    assert code == 1 and report["problems"] == ["line 3: chain broken (prev hash does not match line before)"]


def test_garbage_in_the_middle_fails_show_in_one_line_and_verify_names_it(workspace: Path) -> None:
    path = history(workspace)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = '{"seq": 2, "oops\n'
    path.write_text("".join(lines), encoding="utf-8")
    show = cairn("show", TASK, "--workspace", str(workspace), "--json")
    assert show.returncode != 0
    assert show.stderr.strip().count("\n") == 0 and "line 2" in show.stderr and "cairn verify" in show.stderr
    code, report = verify(workspace)
    assert code == 1 and report["problems"][0].startswith("line 2: unreadable event")  # type: ignore[index]


def test_a_torn_last_line_is_reported_by_show_and_verify(workspace: Path) -> None:
    path = history(workspace)
    data = path.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[: last_start + (len(data) - last_start) // 2])  # cut the last line mid-way
    show = cairn("show", TASK, "--workspace", str(workspace), "--json")
    assert show.returncode == 0, show.stderr
    view = json.loads(show.stdout)
    assert "torn last line" in view["history_warning"]
    assert view["goal"] == "Who built the dam?"
    code, report = verify(workspace)
    assert code == 0, report  # a crash's torn tail is no tampering: everything before it chains
    assert report["ok"] is True and report["problems"] == []
    assert "torn last line" in str(report["torn_tail"])
    human = cairn("verify", TASK, "--workspace", str(workspace))
    assert "torn last line" in human.stdout and "intact" in human.stdout


def test_verify_of_an_unknown_task_is_a_one_line_error(tmp_path: Path) -> None:
    proc = cairn("verify", "no-such-task", "--workspace", str(tmp_path))
    assert proc.returncode != 0
    assert proc.stderr.strip().count("\n") == 0 and "no task" in proc.stderr
