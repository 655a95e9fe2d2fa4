"""What moved to `cairn.core` is the same object at its old path, so what named the old path loads:
code not converted yet, and task results 0.2 pickled (`cairn.memory.models.CallCost`)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from prefect.filesystems import LocalFileSystem
from prefect.results import ResultStore

from cairn.core import CallCost, RunConfig, Verdict
from cairn.flows.prefect.result_data import upgrade_record
from tests.unit.project.test_layout import MOVED_TO_CORE

ROOT = Path(__file__).resolve().parents[3]
WORKSPACE_0_2 = ROOT / "tests" / "data" / "workspace-0.2.tar.gz"
OLD_PATHS = sorted({*MOVED_TO_CORE, "cairn/memory/models.py"})


@pytest.mark.parametrize("where", OLD_PATHS)
def test_an_old_path_re_exports_the_floors_objects(where: str) -> None:
    old = importlib.import_module(where.removesuffix(".py").replace("/", "."))
    stem = Path(where).stem
    new = importlib.import_module("cairn.core" if stem == "models" else f"cairn.core.{stem}")
    assert old.__all__
    assert [name for name in old.__all__ if getattr(old, name) is not getattr(new, name)] == []


@pytest.mark.parametrize("where", OLD_PATHS)
def test_an_old_path_warns_its_importer_of_the_new_one(where: str) -> None:
    """In a fresh process: a module warns once, when first imported."""
    module = where.removesuffix(".py").replace("/", ".")
    code = f"import warnings; warnings.simplefilter('error'); import {module}"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert found.returncode == 1 and f"{module} moved to cairn.core" in found.stderr


def test_cairns_own_modules_import_no_old_path() -> None:
    modules = "cairn.flows.cli.app, cairn.flows.prefect.flow, cairn.flows.prefect.serve"
    quiet = f"import warnings; warnings.simplefilter('error'); import {modules}"
    assert subprocess.run([sys.executable, "-c", quiet], cwd=ROOT).returncode == 0


def test_run_config_keeps_its_0_3_path() -> None:
    assert importlib.import_module("cairn.tasks.deps").RunConfig is RunConfig


def test_results_0_2_pickled_with_the_old_model_path_load_as_the_floors_classes(tmp_path: Path) -> None:
    with tarfile.open(WORKSPACE_0_2) as archive:
        archive.extractall(tmp_path, filter="data")
    results = tmp_path / "ws" / "results"
    # Read once through the old-names unpickler and rewritten as data, as a resume does first.
    assert sum(upgrade_record(path) for path in results.rglob("*") if path.is_file()) > 0
    store = ResultStore(result_storage=LocalFileSystem(basepath=str(results)))
    plan = store.read("cairn/finished-task/2/0/plan").result  # its cost: `cairn.memory.models.CallCost`
    assert type(plan.cost) is CallCost and plan.cost.tokens >= 0
    # the flow's result, a `TaskResult` holding its `cairn.memory.models.Verdict`
    verdict = store.read("780963550fc84ea8a5e833e80ed9328e").result.verdict
    assert type(verdict) is Verdict and verdict.complete
