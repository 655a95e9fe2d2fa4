"""The local real model's recorded answers to questions no file answers (tests/data/real-model/
README.md), replayed: the model gave each its near neighbour's value; Cairn ends every one without
a value, saying the files read do not say it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from cairn.core import RunConfig
from cairn.flows.loop.policy import NOT_STATED
from cairn.tasks.grounding import answer_body
from tests.unit.scripted import run_whole_task

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "real-model"


@pytest.mark.parametrize(
    ("name", "neighbour"),
    [
        ("teams-kestrel-office", "Lisbon"),
        ("teams-notifications-p99", "400"),
        ("teams-osprey-lead", "Priya Nandakumar"),
        ("teams-search-gateway-lead", "Tomasz"),
    ],
)
def test_a_near_miss_the_model_answered_with_its_neighbours_value_ends_without_a_value(
    tmp_path: Path, name: str, neighbour: str
) -> None:
    task = ROOT / "bench" / "agent_tasks" / name
    spec = tomllib.loads((task / "task.toml").read_text(encoding="utf-8"))
    cassette = DATA / f"{name}.cassette.jsonl"
    config = RunConfig(workspace=str(tmp_path), model=f"replay:{cassette}?match=kind", max_iterations=12)
    result = run_whole_task(config, name, spec["goal"], [ROOT / "bench" / "agent_tasks" / "teams"])
    assert result.status == "incomplete" and str(result.stop_reason).startswith(NOT_STATED)
    report = Path(str(result.report_path)).read_text(encoding="utf-8")
    assert answer_body(report) == f"The files read do not say: {spec['goal']}"
    assert neighbour in report.split("> The model answered (not proven):")[1]  # what it said, shown as its
