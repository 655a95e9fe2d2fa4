"""Cairn as users install it: a wheel in a fresh virtualenv, run from a folder full of look-alikes;
and workspaces written by Cairn 0.1 (before the `cairn` namespace), 0.2 (before the sub-packages)
and 0.3 (the last to pickle its results) read and resumed; old deployments re-pointed."""

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
WORKSPACE_0_3 = ROOT / "tests" / "data" / "workspace-0.3.tar.gz"
CORPUS_0_3 = Path("/tmp/cairn-0.3-fixture/corpus")
# The run times 0.2 measured for the calls it persisted before the kill: a loaded result keeps them.
LOADED_0_2 = {
    "call-1-2": 0.0002379930010647513,
    "call-1-3": 0.00021160399774089456,
    "call-1-4": 0.00024457299878122285,
    "call-1-5": 0.0002799050016619731,
    "call-1-6": 0.00021945499975117855,
}
# The same for 0.3 (tests/data/README.md).
LOADED_0_3 = {
    "call-1-2": 0.0003408369993849192,
    "call-1-3": 0.0002564110000093933,
    "call-1-4": 0.0006823450003139442,
    "call-1-5": 0.00020892100110359024,
    "call-1-6": 0.00033095300022978336,
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
    verifier = ("cairn/tasks/verify/data/weights.json", "cairn/tasks/verify/data/wordnet.json.gz")
    for data in (
        "cairn/py.typed",
        "cairn/validators/research_task.json",
        "cairn/examples/QUESTION",
        *verifier,
    ):
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
    finders = "import cairn, sys; print([f for f in sys.meta_path if 'cairn' in type(f).__module__])"
    shown = _run([str(venv / "bin" / "python"), "-c", finders], project, env)
    assert shown.stdout.strip() == "[]", shown.stderr[-2000:]  # `import cairn` installs no import hook
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
    # Every record of the task is data now: the old pickles rewritten, the new calls' written so.
    records = [path for path in (ws / "results" / "cairn" / "killed-task").rglob("*") if path.is_file()]
    serializers = {json.loads(path.read_bytes())["metadata"]["serializer"]["type"] for path in records}
    assert serializers == {"cairn"}
    return {c.call_id: c for c in Workspace(ws).task("killed-task").state().calls}


def test_a_workspace_made_by_cairn_0_1_is_shown_and_resumed(prefect_server: str, tmp_path: Path) -> None:
    """Its killed task resumes from the result 0.1 pickled for call 1/2 (`tasks.tools.base.ToolOutput`),
    read through the old names without any `tasks` module in the process."""
    calls = _show_and_resume(_legacy_workspace(tmp_path), prefect_server, tmp_path)
    # The cached 0.1 result carries no run time (the field came later): it was loaded, not re-run.
    assert calls["call-1-2"].execution_time == 0.0
    assert all(c.execution_time > 0 for cid, c in calls.items() if cid not in ("call-1-1", "call-1-2"))


def test_a_workspace_made_by_cairn_0_2_is_shown_and_resumed(prefect_server: str, tmp_path: Path) -> None:
    """0.2 pickled call 1/2-1/6 under its module names; resume loads them instead of running them."""
    ws = _legacy_workspace(tmp_path, WORKSPACE_0_2, CORPUS_0_2)
    calls = _show_and_resume(ws, prefect_server, tmp_path)
    assert {call: calls[call].execution_time for call in LOADED_0_2} == LOADED_0_2


def test_a_workspace_made_by_cairn_0_3_is_shown_and_resumed(prefect_server: str, tmp_path: Path) -> None:
    """0.3 pickled calls 1/2-1/6 (`cairn.tasks.tools.base.ToolOutput`); resume reads them as data."""
    ws = _legacy_workspace(tmp_path, WORKSPACE_0_3, CORPUS_0_3)
    calls = _show_and_resume(ws, prefect_server, tmp_path)
    assert {call: calls[call].execution_time for call in LOADED_0_3} == LOADED_0_3


def test_cairn_migrate_rewrites_results_and_repoints_old_deployments(
    prefect_server: str, tmp_path: Path
) -> None:
    """A 0.2 deployment (`cairn.flows.serve:scheduled_task`) and a 0.1 one (a file of the checkout)
    point at today's module after `cairn migrate`; someone else's deployment is left alone."""
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    old = {
        "from-0.2": "cairn.flows.serve:scheduled_task",
        "from-0.1": "flows/serve.py:scheduled_task",
        "theirs": "flows/etl.py:main",
    }
    with (
        temporary_settings(updates={PREFECT_API_URL: prefect_server}),
        get_client(sync_client=True) as client,
    ):
        flow_id = client.create_flow_from_name("cairn-scheduled")
        ids = {
            name: client.create_deployment(flow_id=flow_id, name=name, entrypoint=e)
            for name, e in old.items()
        }
    ws = _legacy_workspace(tmp_path, WORKSPACE_0_2, CORPUS_0_2)
    env = {**os.environ, "PREFECT_API_URL": prefect_server}
    proc = _run([str(BIN / "cairn"), "migrate", "--workspace", str(ws), "--json"], tmp_path, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["results"] == len([p for p in (ws / "results" / "cairn").rglob("*") if p.is_file()])
    with (
        temporary_settings(updates={PREFECT_API_URL: prefect_server}),
        get_client(sync_client=True) as client,
    ):
        now = {name: client.read_deployment(deployment_id).entrypoint for name, deployment_id in ids.items()}
    assert now == {
        "from-0.2": "cairn.flows.prefect.serve:scheduled_task",
        "from-0.1": "cairn.flows.prefect.serve:scheduled_task",
        "theirs": "flows/etl.py:main",
    }
    again = _run([str(BIN / "cairn"), "migrate", "--workspace", str(ws), "--json"], tmp_path, env)
    assert json.loads(again.stdout)["results"] == 0  # once
