"""One strategy per kind of work: chosen once from the task's type and goal, recorded in its
history, shown by `cairn show --json`, and the only thing that decides an iteration's calls."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest

from cairn.core import StrategyName, TaskCreated, TaskType, UserMessage
from cairn.memory.log.state import replay
from cairn.memory.log.workspace import Workspace
from tests.conftest import BIN, CORPUS, ROOT
from tests.unit.offline_run import QUESTION, config_for
from tests.unit.scripted import run_whole_task

SERVICES = {
    "billing.md": "# Billing\n\nThe billing service is owned by Team Falcon.\n",
    "search.md": "# Search\n\nThe search service is owned by Team Osprey.\n",
}
# name -> (task type, goal, whether it reads the services folder or the demo corpus)
KINDS: dict[StrategyName, tuple[TaskType, str, str]] = {
    "question": ("simple_question", QUESTION, "corpus"),
    "coverage": ("research_task", "For every service, list the team that owns it.", "services"),
    "coding": ("coding_task", "Write add(a, b) in add.py, returning a + b.\n\n>>> add(1, 2)\n3\n", "none"),
    "general": ("research_task", "Summarise what the files say about the reservoir.", "corpus"),
}


def _show(workspace: Path, task_id: str) -> dict[str, object]:
    shown: dict[str, object] = json.loads(_cairn_show(workspace, task_id, "--json"))
    return shown


def _cairn_show(workspace: Path, task_id: str, *options: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    args = [str(BIN / "cairn"), "show", task_id, "--workspace", str(workspace), *options]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("src") / "services"
    folder.mkdir()
    for name, text in SERVICES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_work_records_its_strategy_and_show_names_it(
    kind: StrategyName, services: Path, tmp_path: Path
) -> None:
    task_type, goal, reads = KINDS[kind]
    sources = {"corpus": [CORPUS], "services": [services], "none": []}[reads]
    config = config_for(tmp_path / "ws", max_iterations=2)
    result = run_whole_task(config, kind, goal, sources, task_type=task_type)
    assert result.strategy == kind
    created = json.loads((tmp_path / "ws" / "tasks" / kind / "history.jsonl").read_text().splitlines()[0])
    assert created["event"]["type"] == "task_created" and created["event"]["strategy"] == kind
    assert _show(tmp_path / "ws", kind)["strategy"] == kind


def test_a_task_created_before_strategies_were_recorded_gets_one_from_its_type_and_goal(
    tmp_path: Path,
) -> None:
    repo = Workspace(tmp_path / "ws").create_task(
        TaskCreated(task_id="old", goal="For each dataset, who is its steward?", task_type="simple_question")
    )
    repo.append(UserMessage(text="For each dataset, who is its steward?", role="goal"))
    assert replay(repo.history.read().events).strategy is None  # nothing recorded: chosen on read
    assert _show(tmp_path / "ws", "old")["strategy"] == "coverage"
    said = " ".join(_cairn_show(tmp_path / "ws", "old").split())  # as a person reads it
    assert "strategy: coverage, complete when every source is read and each item's every field" in said


def test_one_place_in_cairn_records_a_plan() -> None:
    """Every strategy returns its calls; the loop records them (`cairn.flows.loop.iteration.plan`)."""
    made = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "cairn").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and _names(node.func, "PlanRecorded")
    ]
    assert len(made) == 1 and made[0].startswith("cairn/flows/loop/iteration.py"), made


def _names(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Name) and func.id == name
