"""The local real model's recorded answers to questions no file answers (tests/data/real-model/
README.md), replayed: the model gave each its near neighbour's value. Recorded before the model was
asked to judge answers, the replay is judged by the offline verifier: none is proven, each ends
incomplete after one answer, the model's value shown as its own and marked unverified."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from cairn.core import RunConfig
from cairn.flows.loop.policy import UNVERIFIED
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
        ("teams-search-gateway-lead", "Priya Nandakumar"),  # its first answer (the loop asks once now)
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
    assert result.status == "incomplete" and str(result.stop_reason).startswith(UNVERIFIED)
    report = Path(str(result.report_path)).read_text(encoding="utf-8")
    assert report.startswith("> **Unverified**")  # never complete, never proven
    assert neighbour in answer_body(report)  # what the model said, as it wrote it, unproven
    assert "(verified" not in report.partition("## Proof")[2]  # no part of it proven
