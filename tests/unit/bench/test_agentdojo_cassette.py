"""One AgentDojo task end to end through Cairn, against the local 1.5B's recorded replies, graded by
AgentDojo's own check: banking's first task (pay the bill), its tools the suite's functions
bound to the task's environment, run in process (the loop `run_task` runs, without Prefect)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from cairn.core import RunConfig
from cairn.flows.loop.cycle import TaskResult
from tests.conftest import ROOT
from tests.model_server import ModelServer
from tests.unit.scripted import run_whole_task

sys.path.insert(0, str(ROOT / "bench"))
from agent_suites import agentdojo

CASSETTE = ROOT / "tests" / "cassettes" / "agentdojo_banking_0.jsonl"


def in_process(goal: str, config: RunConfig, task_id: str, task_type: Any, tools: Any) -> TaskResult:
    return run_whole_task(config, task_id, goal, task_type=task_type, tools=tools)


def test_the_bill_is_paid_as_agentdojo_checks_it_from_the_recorded_replies(tmp_path: Path) -> None:
    suite = agentdojo.load_suite("banking")
    task = suite.get_user_task_by_id("user_task_0")
    cairn = agentdojo.CairnAgent(f"replay:{CASSETTE}?match=kind", tmp_path, "banking", runner=in_process)
    cairn.task_name = "user-task-0"
    utility, _ = suite.run_task_with_pipeline(cairn, task, None, {})
    assert utility, cairn.last  # AgentDojo's own check: a payment of 98.70 to the bill's IBAN
    assert cairn.last.calls[-1].startswith('send_money({"amount": 98.7,')  # typed as the tool takes it
    assert not cairn.last.refused and not cairn.last.error
    # The replay's model was never calibrated: its calls made, Cairn does not call the task complete.
    assert cairn.last.complete is False and cairn.last.stop.startswith("acted: 6 of 6 calls")


def test_the_figures_count_a_complete_that_agentdojo_fails() -> None:
    def row(complete: bool | None, utility: bool) -> dict[str, Any]:
        side = {"utility": utility, "attack_succeeded": None, "tokens": 1, "seconds": 1.0}
        return side | {"calls": [], "refused": [], "error": "", "stop": "", "complete": complete}

    rows = [
        {"injection_task": None, "cairn": row(True, False), "reference": row(None, True)},
        {"injection_task": None, "cairn": row(True, True), "reference": row(None, False)},
    ]
    figures = agentdojo.figures(rows)
    assert (figures["cairn"]["complete"], figures["cairn"]["false_complete"]) == (2, 1)
    assert (figures["reference"]["complete"], figures["reference"]["false_complete"]) == (0, 0)


def test_an_address_the_plan_made_up_is_read_from_the_letter_as_agentdojo_checks_it(tmp_path: Path) -> None:
    suite = agentdojo.load_suite("banking")
    task = suite.get_user_task_by_id("user_task_13")
    replay = f"replay:{CASSETTE.with_name('agentdojo_banking_13.jsonl')}?match=kind"
    cairn = agentdojo.CairnAgent(replay, tmp_path, "banking", runner=in_process)
    cairn.task_name = "user-task-13"
    utility, _ = suite.run_task_with_pipeline(cairn, task, None, {})
    assert utility, cairn.last  # the street and city of address-change.txt, not the plan's guesses
    assert (
        'update_user_info({"city": "New York, NY 10001", "street": "Dalton Street 123"})' in cairn.last.calls
    )


def test_the_reference_side_alone_is_kept_and_read_back_whatever_the_seed(tmp_path: Path) -> None:
    kept = tmp_path / "reference.json"
    fields = {"model": agentdojo.SCRIPTED, "attack": None, "seed": 0, "max_iterations": None}
    fields |= {"record": None, "no_baseline": False, "reference_only": True, "reference": kept}
    args = argparse.Namespace(**fields)
    row = agentdojo.run_one("banking", "user_task_0", None, args, tmp_path)
    assert "cairn" not in row and row["reference"]["utility"]  # the obeying script pays the bill
    (key,) = json.loads(kept.read_text(encoding="utf-8"))
    assert key == f"{agentdojo.SCRIPTED}/{agentdojo.BENCHMARK}/banking/user_task_0/None/None"
    rows = {key: row["reference"] | {"seconds": 1234.0}}
    kept.write_text(json.dumps(rows), encoding="utf-8")
    other_seed = argparse.Namespace(**fields | {"seed": 7})
    again = agentdojo.run_one("banking", "user_task_0", None, other_seed, tmp_path)
    assert again["reference"]["seconds"] == 1234.0  # read back, not run again


def test_the_reference_past_the_task_time_sends_nothing_more_and_fails(
    monkeypatch: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = agentdojo.load_suite("banking")
    task = suite.get_user_task_by_id("user_task_0")
    with ModelServer() as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.url)
        ended = agentdojo._reference(suite, task, None, {}, None, "openai/m", seconds=60.0)
        assert ended["error"] == "" and len(server.requests) == 1  # "ok": an answer with no call
        stopped = agentdojo._reference(suite, task, None, {}, None, "openai/m", seconds=0.0)
        assert len(server.requests) == 1  # no request once the time is up
    assert stopped["utility"] is False and stopped["error"] == "OverTime: not ended within 0 s"
    said = capsys.readouterr()
    assert said.out == "" and "[debug] error" in said.err  # stdout is the bench's `--json` alone


def test_cairn_past_the_task_time_fails_as_the_reference_does() -> None:
    side = {"utility": True, "seconds": 1300.0, "error": ""}
    capped = argparse.Namespace(task_seconds=1200.0)
    assert agentdojo.over_time(side, capped) == side | {
        "utility": False,
        "error": "OverTime: not ended within 1200 s",
    }
    assert agentdojo.over_time(side, argparse.Namespace(task_seconds=None)) == side
