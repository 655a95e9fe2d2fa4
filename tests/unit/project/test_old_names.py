"""What earlier releases wrote still loads, with nothing installed in the user's process: the
results 0.1, 0.2 and 0.3 pickled are read once through the old module names and rewritten as data;
the deployment entrypoints they registered are re-pointed by `cairn migrate`."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from prefect.filesystems import LocalFileSystem
from prefect.results import ResultStore

from cairn._legacy import MOVED_IN_0_3, MOVED_TO_CORE, current_entrypoint, current_module, load_old_pickle
from cairn.flows.prefect.result_data import upgrade_record, upgrade_task_results
from cairn.tasks.messages.schemas import Candidate, DetectTaskTypeOutput, Plan
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools.base import ToolOutput

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=240)


def test_import_cairn_installs_no_finder_and_the_0_1_names_are_gone(tmp_path: Path) -> None:
    """A user's process: `import tasks` is theirs or nothing, never Cairn's."""
    code = (
        "import sys, cairn, cairn.flows.prefect.flow, cairn.flows.cli.app\n"
        "print([type(f).__module__ for f in sys.meta_path if type(f).__module__.startswith('cairn')])\n"
        "for name in ('tasks', 'flows', 'memory', 'tasks.tools.base', 'cairn.flows.agent'):\n"
        "    try:\n"
        "        __import__(name)\n"
        "        print('imported', name)\n"
        "    except ImportError:\n"
        "        print('missing', name)\n"
    )
    proc = _python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "[]"
    assert lines[1:] == [f"missing {name}" for name in ("tasks", "flows", "memory", "tasks.tools.base")] + [
        "missing cairn.flows.agent"
    ]


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_IN_0_3.items()))
def test_every_0_2_module_name_maps_to_a_module_that_exists(old: str, new: str) -> None:
    assert current_module(old) == MOVED_TO_CORE.get(new, new)  # the vocabulary went on to the floor
    importlib.import_module(current_module(old))


def test_a_0_1_module_name_maps_through_the_namespace_and_the_0_3_move() -> None:
    assert current_module("tasks.tools.base") == "cairn.tasks.tools.base"
    assert current_module("tasks.llm") == "cairn.tasks.model.llm"
    assert current_module("memory.models") == "cairn.core"
    assert current_module("memory.events") == "cairn.core.events"  # through 0.3's `cairn.memory.log`
    assert current_module("taskslike.x") == "taskslike.x"  # only the three packages, whole names


# The classes the vocabulary's modules held at their 0.3 paths, which 0.5 removed: a pickle of 0.1-0.3
# names them there (0.1 without `cairn.`; 0.2's `cairn.memory.events` and `.errors` moved in 0.3).
HELD_AT_0_3_PATHS = {
    "cairn.memory.models": "CallCost CheckOutcome Claim ClassDoc CodeReference Compression Coverage "
    "Evidence EvidenceMetadata FileMetadata FileReference Frozen FunctionCheck FunctionDoc "
    "IterationRecord LedgerCell LedgerRow Memory ModelCall ModelProbe ParameterDoc PartCheck "
    "PlannedCall QuotedLine ToolCall Verdict",
    "cairn.memory.log.events": "BudgetSet ConstraintExtracted ConstraintRetired CoverageRecorded "
    "Envelope EvidenceRecorded FileRecorded GoalSplit IterationCompleted IterationStarted "
    "ModelCallRecorded ModelProbed PlanRecorded ReviewDecided TaskCreated TaskFinished "
    "ToolCallRecorded ToolCallStarted ToolsConfigured UncertainCallResolved UserMessage ValidationRecorded",
    "cairn.memory.tool_config": "McpServerConfig PythonToolConfig ToolsConfig",
    "cairn.tasks.call_key": "CallKey",
    "cairn.errors": "CairnError NotFound UsageError",
    "memory.models": "CallCost Verdict",
    "cairn.memory.events": "TaskCreated",
    "cairn.memory.errors": "NotFound",
}


@pytest.mark.parametrize(
    ("module", "name"),
    [(module, name) for module, names in HELD_AT_0_3_PATHS.items() for name in names.split()],
)
def test_a_class_pickled_at_a_removed_path_loads_as_the_floors(module: str, name: str) -> None:
    found = load_old_pickle(f"c{module}\n{name}\n.".encode("ascii"))  # the pickle of the class itself
    assert found is getattr(importlib.import_module("cairn.core"), name)


def _unpack(archive: str, into: Path) -> Path:
    with tarfile.open(DATA / archive) as packed:
        packed.extractall(into, filter="data")
    return into / "ws" / "results"


def _store(results: Path) -> ResultStore:
    return ResultStore(result_storage=LocalFileSystem(basepath=str(results)))


@pytest.fixture(scope="module")
def results_0_2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _unpack("workspace-0.2.tar.gz", tmp_path_factory.mktemp("ws-0.2"))


def test_results_0_2_pickled_under_moved_modules_become_data_as_todays_classes(results_0_2: Path) -> None:
    """0.2 pickled `cairn.tasks.schemas.Plan`; it is `cairn.tasks.messages.schemas.Plan` now."""
    assert upgrade_task_results(results_0_2, "finished-task") > 0
    assert upgrade_task_results(results_0_2, "killed-task") > 0
    store = _store(results_0_2)
    plan = store.read("cairn/finished-task/2/0/plan").result
    assert isinstance(plan, LLMResult) and isinstance(plan.output, Plan)
    assert all(isinstance(candidate, Candidate) for candidate in plan.output.candidates)
    detected = store.read("cairn/killed-task/0/0/detect_task_type").result
    assert isinstance(detected.output, DetectTaskTypeOutput)
    assert detected.output.task_type == "simple_question"  # what the offline model said of the question
    tool = store.read("cairn/killed-task/1/2/tool").result
    assert isinstance(tool, ToolOutput) and tool.outcome == "success" and tool.text
    record = (results_0_2 / "cairn" / "killed-task" / "1" / "2" / "tool").read_text(encoding="ascii")
    assert json.loads(record)["metadata"]["serializer"] == {"type": "cairn"}
    assert "cairn.tasks" not in record  # data under Cairn's tag, no class path
    assert upgrade_task_results(results_0_2, "killed-task") == 0  # once


@pytest.mark.parametrize(
    ("archive", "key", "kind"),
    [
        ("legacy-workspace-0.1.tar.gz", "cairn/killed-task/1/2/tool", ToolOutput),  # `tasks.tools.base`
        ("legacy-workspace-0.1.tar.gz", "cairn/finished-task/3/3/compress", LLMResult),  # `tasks.compress`
        ("workspace-0.3.tar.gz", "cairn/killed-task/1/6/tool", ToolOutput),
        ("workspace-0.3.tar.gz", "cairn/finished-task/2/0/deliver", LLMResult),
    ],
)
def test_a_pickled_record_of_0_1_and_0_3_is_rewritten_as_data(
    archive: str, key: str, kind: type, tmp_path: Path
) -> None:
    results = _unpack(archive, tmp_path)
    assert upgrade_record(results / key) is True
    assert isinstance(_store(results).read(key).result, kind)
    assert upgrade_record(results / key) is False  # already data
    assert upgrade_record(results / "cairn" / "no-such-task" / "1" / "1" / "tool") is False


def test_an_upgrade_killed_half_way_leaves_the_record_as_it_was(tmp_path: Path) -> None:
    """The rewrite goes to a side file that then replaces the record: a kill before the replace
    leaves the pickled record and a torn side file, which the next upgrade passes over."""
    results = _unpack("workspace-0.3.tar.gz", tmp_path)
    path = results / "cairn" / "killed-task" / "1" / "2" / "tool"
    (path.parent / ".tool.upgrading").write_text('{"metadata": {"seri', encoding="ascii")
    assert upgrade_task_results(results, "killed-task") == 8  # 0/0: two model calls; calls 1-1 .. 1-6
    assert isinstance(_store(results).read("cairn/killed-task/1/2/tool").result, ToolOutput)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("cairn.flows.serve:scheduled_task", "cairn.flows.prefect.serve:scheduled_task"),  # 0.2's yaml
        ("cairn.flows.agent:run_task", "cairn.flows.prefect.flow:run_task"),  # 0.2's `cairn/task`
        ("flows/serve.py:scheduled_task", "cairn.flows.prefect.serve:scheduled_task"),  # 0.1: a file
        ("cairn.flows.prefect.serve:scheduled_task", "cairn.flows.prefect.serve:scheduled_task"),
    ],
)
def test_an_old_entrypoint_maps_to_one_that_loads(old: str, new: str) -> None:
    assert current_entrypoint(old) == new
    code = (
        "from prefect.flows import load_flow_from_entrypoint\n"
        f"print(load_flow_from_entrypoint({new!r}, use_placeholder_flow=False).name)\n"
    )
    proc = _python(code, ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] in ("cairn", "cairn-scheduled")


def test_an_old_entrypoint_itself_no_longer_loads() -> None:
    """Without an import hook the 0.2 name is gone: `cairn migrate` re-points such a deployment."""
    code = (
        "from prefect.flows import load_flow_from_entrypoint\n"
        "load_flow_from_entrypoint('cairn.flows.serve:scheduled_task', use_placeholder_flow=False)\n"
    )
    proc = _python(code, ROOT)
    assert proc.returncode != 0 and "cairn.flows.serve" in proc.stderr
