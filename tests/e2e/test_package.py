"""Cairn as users install it: a wheel in a fresh virtualenv, run from a folder full of look-alikes;
and workspaces written by Cairn 0.1 (before the `cairn` namespace) and 0.2 (before the sub-packages)
read and resumed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from cairn.memory.log.workspace import Workspace
from tests.conftest import BIN, CORPUS, ROOT

pytestmark = pytest.mark.e2e
LEGACY = ROOT / "tests" / "data" / "legacy-workspace-0.1.tar.gz"
LEGACY_CORPUS = Path("/tmp/cairn-legacy-fixture/corpus")  # the source path its history records
WORKSPACE_0_2 = ROOT / "tests" / "data" / "workspace-0.2.tar.gz"  # how it was made: tests/data/README.md
CORPUS_0_2 = Path("/tmp/cairn-0.2-fixture/corpus")
# The run times 0.2 measured for the calls it persisted before the kill: a loaded result keeps them.
LOADED_0_2 = {
    "call-1-2": 0.0002379930010647513,
    "call-1-3": 0.00021160399774089456,
    "call-1-4": 0.00024457299878122285,
    "call-1-5": 0.0002799050016619731,
    "call-1-6": 0.00021945499975117855,
}


def _run(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        ROOT,
        dict(os.environ),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return next(out.glob("cairn_agents-*.whl"))


def test_the_wheel_holds_one_namespace_with_its_data(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.startswith("cairn_agents-")}
    assert tops == {"cairn"}
    for data in ("cairn/py.typed", "cairn/validators/research_task.json", "cairn/examples/QUESTION"):
        assert data in names
    assert "cairn/examples/corpus/reservoir.md" in names


def test_the_wheel_runs_the_demo_in_a_fresh_venv_beside_look_alikes(
    wheel: Path, tmp_path: Path, prefect_server: str
) -> None:
    """A folder with its own `tasks.py` (Invoke), `memory.py` and `flows/` (Prefect), as users have."""
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)], tmp_path, dict(os.environ)).returncode == 0
    install = _run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)], tmp_path, dict(os.environ))
    assert install.returncode == 0, install.stderr[-3000:]
    project = tmp_path / "project"
    (project / "flows").mkdir(parents=True)
    (project / "tasks.py").write_text("from invoke import task\n", encoding="utf-8")
    (project / "memory.py").write_text(
        "raise ImportError('the user memory.py was imported')\n", encoding="utf-8"
    )
    (project / "flows" / "__init__.py").write_text("raise ImportError('the user flows/ was imported')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CAIRN_WORKSPACE", "VIRTUAL_ENV")}
    env.update({"CAIRN_HOME": str(tmp_path / "home"), "PREFECT_API_URL": prefect_server})
    proc = _run([str(venv / "bin" / "cairn"), "demo", "--workspace", "ws", "--json"], project, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["complete"] is True
    answer = Path(result["report_path"]).read_text(encoding="utf-8")
    assert "150" in answer and Path(result["report_path"]).is_relative_to(project / "ws")


def _legacy_workspace(tmp_path: Path, archive_path: Path = LEGACY, corpus: Path = LEGACY_CORPUS) -> Path:
    with tarfile.open(archive_path) as archive:
        archive.extractall(tmp_path, filter="data")
    if not corpus.is_dir():
        shutil.copytree(CORPUS, corpus)
    return tmp_path / "ws"


def _show_and_resume(ws: Path, prefect_server: str, cwd: Path) -> dict[str, Any]:
    """`cairn show finished-task` says complete, `cairn resume killed-task` completes it; its calls."""
    env = {**os.environ, "PREFECT_API_URL": prefect_server}
    cairn = str(BIN / "cairn")
    shown = _run([cairn, "show", "finished-task", "--workspace", str(ws), "--json"], cwd, env)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert json.loads(shown.stdout)["status"] == "complete"
    resumed = _run([cairn, "resume", "killed-task", "--workspace", str(ws), "--json"], cwd, env)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert json.loads(resumed.stdout)["complete"] is True
    return {c.call_id: c for c in Workspace(ws).task("killed-task").state().calls}


def test_a_workspace_made_by_cairn_0_1_is_shown_and_resumed(prefect_server: str, tmp_path: Path) -> None:
    """Its killed task resumes from the result 0.1 pickled for call 1/2 (`tasks.tools.base.ToolOutput`)."""
    calls = _show_and_resume(_legacy_workspace(tmp_path), prefect_server, tmp_path)
    # The cached 0.1 result carries no run time (the field came later): it was loaded, not re-run.
    assert calls["call-1-2"].execution_time == 0.0
    assert all(c.execution_time > 0 for cid, c in calls.items() if cid not in ("call-1-1", "call-1-2"))


def test_a_workspace_made_by_cairn_0_2_is_shown_and_resumed(prefect_server: str, tmp_path: Path) -> None:
    """0.2 pickled call 1/2-1/6 under its module names; resume loads them instead of running them."""
    ws = _legacy_workspace(tmp_path, WORKSPACE_0_2, CORPUS_0_2)
    calls = _show_and_resume(ws, prefect_server, tmp_path)
    assert {call: calls[call].execution_time for call in LOADED_0_2} == LOADED_0_2
