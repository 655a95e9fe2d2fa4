"""What earlier releases wrote still loads: 0.1's top-level names, 0.2's flat module names, the
results 0.2 pickled and the deployment entrypoints it registered."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from prefect.filesystems import LocalFileSystem
from prefect.results import ResultStore

from cairn._legacy import MOVED_IN_0_3
from cairn.tasks.messages.schemas import Candidate, DetectTaskTypeOutput, Plan
from cairn.tasks.tools.base import ToolOutput

ROOT = Path(__file__).resolve().parents[2]
WORKSPACE_0_2 = ROOT / "tests" / "data" / "workspace-0.2.tar.gz"


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=240)


def test_the_0_1_import_names_are_aliases_where_nothing_else_has_them(tmp_path: Path) -> None:
    """Results pickled by Cairn 0.1 name `tasks.tools.base.ToolOutput`: those names still load."""
    code = (
        "import cairn\n"
        "import tasks.tools.base, memory.models, cairn.memory.models, flows.agent\n"
        "same = memory.models.Evidence is cairn.memory.models.Evidence\n"
        "print(tasks.tools.base.ToolOutput.__module__, same, flows.agent.__name__)\n"
    )
    proc = _python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["cairn.tasks.tools.base", "True", "cairn.flows.prefect.flow"]


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_IN_0_3.items()))
def test_every_0_2_module_name_is_the_module_that_moved(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


@pytest.mark.parametrize(
    ("package", "names"),
    [
        ("cairn.flows.cli", ["app", "main"]),
        ("cairn.flows.loop", ["run_loop", "TaskResult", "Publisher", "Reviewer", "finish"]),
        ("cairn.flows.server", ["start_server", "stop_server", "ServerInfo", "read_info"]),
        ("cairn.memory.store", ["MemoryStore", "SearchQuery", "SearchFilter", "StoreError", "parse_query"]),
        ("cairn.memory.context", ["MemoryContextProvider", "Context", "new_messages"]),
    ],
)
def test_a_0_2_module_that_became_a_package_keeps_its_names(package: str, names: list[str]) -> None:
    module = importlib.import_module(package)
    assert [name for name in names if not hasattr(module, name)] == []


@pytest.fixture(scope="module")
def results_0_2(tmp_path_factory: pytest.TempPathFactory) -> ResultStore:
    folder = tmp_path_factory.mktemp("ws-0.2")
    with tarfile.open(WORKSPACE_0_2) as archive:
        archive.extractall(folder, filter="data")
    return ResultStore(result_storage=LocalFileSystem(basepath=str(folder / "ws" / "results")))


def test_results_0_2_pickled_under_moved_modules_load_as_todays_classes(results_0_2: ResultStore) -> None:
    """0.2 pickled `cairn.tasks.schemas.Plan`; it is `cairn.tasks.messages.schemas.Plan` now."""
    plan = results_0_2.read("cairn/finished-task/2/0/plan").result
    assert isinstance(plan.output, Plan)
    assert all(isinstance(candidate, Candidate) for candidate in plan.output.candidates)
    detected = results_0_2.read("cairn/killed-task/0/0/detect_task_type").result
    assert isinstance(detected.output, DetectTaskTypeOutput)
    assert detected.output.task_type == "simple_question"  # what the offline model said of the question
    tool = results_0_2.read("cairn/killed-task/1/2/tool").result
    assert isinstance(tool, ToolOutput) and tool.outcome == "success" and tool.text


@pytest.mark.parametrize(
    "entrypoint",
    [
        "cairn.flows.serve:scheduled_task",  # registered by 0.2 (deployments/prefect.yaml)
        "cairn.flows.prefect.serve:scheduled_task",  # registered today
        "cairn/flows/prefect/serve.py:scheduled_task",  # a file in the checkout
    ],
)
def test_deployment_entrypoints_old_and_new_load_the_scheduled_flow(entrypoint: str) -> None:
    code = (
        "from prefect.flows import load_flow_from_entrypoint\n"
        f"print(load_flow_from_entrypoint({entrypoint!r}, use_placeholder_flow=False).name)\n"
    )
    proc = _python(code, ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "cairn-scheduled"


def test_the_0_2_task_flow_entrypoint_loads_the_task_flow() -> None:
    code = (
        "from prefect.flows import load_flow_from_entrypoint\n"
        "print(load_flow_from_entrypoint('cairn.flows.agent:run_task', use_placeholder_flow=False).name)\n"
    )
    proc = _python(code, ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "cairn"
