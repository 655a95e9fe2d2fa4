"""`cairn serve`: a served deployment on a short interval, and one of its scheduled runs executing."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cairn.memory.log.workspace import Workspace
from tests.conftest import BIN, CORPUS, ROOT, listing

pytestmark = pytest.mark.e2e
NAME = "schedule-test"


def test_a_served_schedule_runs_a_task(prefect_server: str, tmp_path: Path) -> None:
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "PREFECT_RUNNER_POLL_FREQUENCY": "1"}
    args = [
        "serve",
        "How large is the Alder Creek reservoir?",
        "--source",
        str(CORPUS),
        "--interval",
        "5",
        "--max-iterations",
        "1",
        "--name",
        NAME,
        "--workspace",
        str(tmp_path),
    ]
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [str(BIN / "cairn"), *args],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # the scheduled run's own process goes down with it
    )
    try:
        run = _wait_for_completed_run(f"cairn-scheduled/{NAME}", timeout=150)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.seek(0)
        output = log.read()
        log.close()
    assert run is not None, output[-3000:]
    assert run.state.type.value == "COMPLETED" and run.auto_scheduled
    tasks = Workspace(tmp_path).task_ids()
    assert len(tasks) >= 1 and Workspace(tmp_path).task(tasks[0]).state().iterations
    assert run.name in {f"cairn-{task}" for task in tasks}  # the scheduled run is the task's run


def _wait_for_completed_run(deployment: str, timeout: float):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = asyncio.run(_finished_runs(deployment.split("/", 1)[1]))
        if done:
            return done[0]
        time.sleep(1)
    return None


async def _finished_runs(name: str):  # type: ignore[no-untyped-def]
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName

    async with get_client() as client:
        only = DeploymentFilter(name=DeploymentFilterName(any_=[name]))
        runs = await client.read_flow_runs(deployment_filter=only, **listing("flow_runs"))
    return [r for r in runs if r.state and r.state.is_final()]
