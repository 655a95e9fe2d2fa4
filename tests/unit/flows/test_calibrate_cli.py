"""`cairn calibrate` in a subprocess over eight labelled items, replaying the 1.5B's recorded
yes/no (tests/cassettes/calibrate_judge.jsonl): exit 0, the calibration stored under CAIRN_HOME,
its curve a PNG; a bad `--questions` file is one line and exit 2, before any model is asked."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.tasks.calibration import load_calibration
from cairn.tasks.calibration.store import calibration_path
from tests.unit.flows.cli_runs import cli, one_line

ROOT = Path(__file__).resolve().parents[3]
CASSETTE = ROOT / "tests" / "cassettes" / "calibrate_judge.jsonl"
SMALL = ROOT / "tests" / "data" / "calibration_small.jsonl"


def test_calibrate_replays_the_judge_and_stores_the_calibration(tmp_path: Path) -> None:
    model = f"replay:{CASSETTE}?match=kind"
    proc = cli(["calibrate", "--model", model, "--questions", str(SMALL), "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    home = tmp_path / "home"
    stored = load_calibration(model, home)
    assert stored is not None and printed["stored"] == str(calibration_path(model, home))
    assert (stored.n, stored.positives, stored.failed, stored.graded) == (8, 4, 0, True)
    assert stored.proven is None  # eight items never reach a lower bound of 0.95
    assert stored.absent is not None and stored.labelled_set.startswith(str(SMALL))
    png = Path(printed["png"])
    assert png == calibration_path(model, home).with_suffix(".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(printed["rows"]) >= 8


def test_a_bad_questions_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "Who?", "line": "Ann.", "value": "Ann", "label": "yes", "group": "g"}\n')
    line = one_line(cli(["calibrate", "--model", "cairn/offline", "--questions", str(bad)], tmp_path), 2)
    assert "bad.jsonl:1" in line and "label" in line
    missing = cli(["calibrate", "--questions", str(tmp_path / "none.jsonl")], tmp_path)
    assert "cannot read" in one_line(missing, 2)
    assert not (tmp_path / "home" / "calibration").exists()
