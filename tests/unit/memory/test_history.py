"""history.jsonl: append-only, hash-chained, survives a torn last line, reports tampering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.core import TaskCreated, UserMessage
from cairn.memory.log.history import HistoryError, HistoryLog
from cairn.memory.log.state import replay


def _log(tmp_path: Path, n: int = 3) -> HistoryLog:
    log = HistoryLog(tmp_path / "history.jsonl")
    log.append(TaskCreated(task_id="t1", goal="g", task_type="general_task"))
    for i in range(n - 1):
        log.append(UserMessage(text=f"message {i} — ünïcode ✓", role="feedback"))
    return log


def test_events_round_trip_in_order(tmp_path: Path) -> None:
    log = _log(tmp_path, 4)
    read = log.read()
    assert [e.seq for e in read.envelopes] == [1, 2, 3, 4]
    assert read.torn_tail is None
    assert replay(read.events).feedback == [
        "message 0 — ünïcode ✓",
        "message 1 — ünïcode ✓",
        "message 2 — ünïcode ✓",
    ]


def test_torn_last_line_is_reported_and_everything_before_kept(tmp_path: Path) -> None:
    log = _log(tmp_path, 3)
    with open(log.path, "ab") as handle:
        handle.write(b'{"seq": 4, "ts": 1.0, "prev": "ab')  # a crash mid-append
    read = HistoryLog(log.path).read()
    assert len(read.envelopes) == 3
    assert read.torn_tail and "torn" in read.torn_tail


def test_append_after_a_torn_tail_repairs_the_log(tmp_path: Path) -> None:
    log = _log(tmp_path, 2)
    with open(log.path, "ab") as handle:
        handle.write(b"garbage without newline")
    fresh = HistoryLog(log.path)
    fresh.append(UserMessage(text="after crash"))
    read = fresh.read()
    assert read.torn_tail is None
    assert [e.seq for e in read.envelopes] == [1, 2, 3]
    assert fresh.verify().ok


def test_corrupt_complete_last_line_is_dropped_not_raised(tmp_path: Path) -> None:
    log = _log(tmp_path, 2)
    with open(log.path, "ab") as handle:
        handle.write(b"{not json}\n")
    read = HistoryLog(log.path).read()
    assert len(read.envelopes) == 2 and read.torn_tail and "corrupt last line 3" in read.torn_tail


def test_corruption_in_the_middle_is_an_error(tmp_path: Path) -> None:
    log = _log(tmp_path, 3)
    lines = log.path.read_text(encoding="utf-8").splitlines()
    lines[1] = "{broken"
    log.path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(HistoryError, match="line 2"):
        HistoryLog(log.path).read()


def test_tampering_in_the_middle_is_detected_by_verify(tmp_path: Path) -> None:
    log = _log(tmp_path, 3)
    lines = log.path.read_text(encoding="utf-8").splitlines()
    doc = json.loads(lines[1])
    doc["event"]["text"] = "something the user never said"
    lines[1] = json.dumps(doc)
    log.path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = HistoryLog(log.path).verify()
    assert not report.ok
    assert any("line 2" in p and "hash" in p for p in report.problems)


def test_deleting_a_line_breaks_the_chain(tmp_path: Path) -> None:
    log = _log(tmp_path, 3)
    lines = log.path.read_text(encoding="utf-8").splitlines()
    log.path.write_text("\n".join([lines[0], lines[2]]) + "\n", encoding="utf-8")
    report = HistoryLog(log.path).verify()
    assert not report.ok and any("chain broken" in p for p in report.problems)


def test_two_processes_appending_keep_one_unbroken_chain(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "history.jsonl"
    script = (
        "import sys; from pathlib import Path\n"
        "from cairn.memory.log.history import HistoryLog; from cairn.core import UserMessage\n"
        "log = HistoryLog(Path(sys.argv[1]))\n"
        "for i in range(150): log.append(UserMessage(text=f'{sys.argv[2]}-{i}'))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), name]) for name in ("a", "b")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    log = HistoryLog(path)
    report = log.verify()
    assert report.ok, report.problems
    assert report.lines == 300 and [e.seq for e in log.read().envelopes] == list(range(1, 301))
