"""The vocabulary lives on the floor, `cairn.core`, only: the 0.3 paths that 0.4 kept for it are gone
since 0.5, and what 0.1-0.3 pickled under them (`cairn.memory.models.CallCost`) still loads, as the
floor's classes, through the old-names unpickler."""

from __future__ import annotations

import base64
import importlib
import tarfile
from pathlib import Path

import pytest
from prefect.filesystems import LocalFileSystem
from prefect.results import ResultStore

from cairn._legacy import MOVED_TO_CORE, current_module, load_old_pickle
from cairn.core import CallCost, Claim, PartCheck, Verdict
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.prefect.result_data import upgrade_record

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_TO_CORE.items()))
def test_a_0_3_path_no_longer_imports_and_old_pickles_find_the_floor_for_it(old: str, new: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    assert current_module(old) == new
    importlib.import_module(new)


def _results(archive: str, into: Path) -> Path:
    with tarfile.open(DATA / archive) as packed:
        packed.extractall(into, filter="data")
    return into / "ws" / "results"


def test_results_0_2_pickled_with_the_old_model_path_load_as_the_floors_classes(tmp_path: Path) -> None:
    results = _results("workspace-0.2.tar.gz", tmp_path)
    # Read once through the old-names unpickler and rewritten as data, as a resume does first.
    assert sum(upgrade_record(path) for path in results.rglob("*") if path.is_file()) > 0
    store = ResultStore(result_storage=LocalFileSystem(basepath=str(results)))
    plan = store.read("cairn/finished-task/2/0/plan").result  # its cost: `cairn.memory.models.CallCost`
    assert type(plan.cost) is CallCost and plan.cost.tokens >= 0


@pytest.mark.parametrize(
    ("archive", "key"),
    [
        ("legacy-workspace-0.1.tar.gz", "55498156abc84f6f92d90e305a366fc2"),  # `memory.models.Verdict`
        ("workspace-0.2.tar.gz", "780963550fc84ea8a5e833e80ed9328e"),  # `cairn.memory.models.Verdict`
        ("workspace-0.3.tar.gz", "1c91cf84540d49f8b40c8a941c994a3e"),
    ],
)
def test_a_flows_pickled_result_holding_the_old_model_path_loads_as_the_floors_classes(
    archive: str, key: str, tmp_path: Path
) -> None:
    """A task's flow-run result: a `TaskResult` holding its verdict, claims and part checks, each
    named at `cairn.memory.models` (0.1: `memory.models`); Prefect kept it as a bare pickle."""
    blob = base64.decodebytes((_results(archive, tmp_path) / key).read_bytes())
    result = load_old_pickle(blob)
    assert type(result) is TaskResult and type(result.verdict) is Verdict and result.verdict.complete
    assert all(type(claim) is Claim for claim in result.verdict.claims)
    assert all(type(part) is PartCheck for part in result.verdict.parts)
    # Fields added since the pickle was written (0.1's verdict had no claims) take their defaults.
    for model in (result, result.verdict):
        assert set(type(model).model_fields) <= set(model.__dict__), type(model).__name__
