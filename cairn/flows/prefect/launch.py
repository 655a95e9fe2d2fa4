"""How `cairn run` and `cairn resume` execute a task: a deployment run with a server, else in process.

With a server (`cairn server start`, or `PREFECT_API_URL`) the task's flow run is created from
Cairn's deployment and run here, in the foreground (`cairn.flows.prefect.deployment`): the UI can then
retry it and show it a review form. `resume` continues the same flow run when the server holds it
and it stopped short; otherwise the new run is tagged `resumed-from:{previous run id}`. Without a
server, `run_task` is called as a plain flow (Prefect's ephemeral mode): the same task, no UI.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from prefect.client.schemas.objects import FlowRun
from prefect.exceptions import Pause
from prefect.settings import PREFECT_UI_URL
from pydantic import BaseModel

from cairn.core import CairnError, RunConfig
from cairn.flows.loop.claim import read_holder
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.loop.request import TaskRequest
from cairn.flows.prefect import deployment
from cairn.flows.prefect.flow import run_task
from cairn.flows.prefect.internals import run_flow


class AwaitingReview(BaseModel):
    """The task waits for a person's review: the process is done, the task is not. With a server
    the run is suspended (`flow_run_id`, the form at `url`); without one the task stopped, and
    `next` holds the commands that go on (`url` is None: the temporary server died with the run)."""

    task_id: str
    status: str = "awaiting_review"
    flow_run_id: str | None = None
    url: str | None = None
    iteration: int | None = None
    next: list[str] = []


class ReviewPending(CairnError):
    """A task stopped for a person's review with no server to hold a form; `cairn feedback`, then
    `cairn resume`, continue it."""

    exit_code = 7
    label = ""  # not an error: the task waits for a person


def review_at_the_command_line(task_id: str, iteration: int, workspace: str) -> AwaitingReview:
    """What a task that stopped for a review (no server) waits for, and the commands that go on."""
    where = f"--workspace {workspace}"
    steps = [f'cairn feedback {task_id} "..." {where}', f"cairn resume {task_id} {where}"]
    return AwaitingReview(task_id=task_id, iteration=iteration, next=steps)


def launch(request: TaskRequest, resuming: bool = False) -> TaskResult | AwaitingReview:
    """Run the task to its end, or until it suspends itself for a review."""
    api = os.environ.get("PREFECT_API_URL")
    if not api:
        result: TaskResult = run_task(**request.flow_parameters())
        return result
    config, task_id = request.config, request.task_id
    deployment_id = deployment.ensure_deployment(api)
    run = _continued(config, task_id) if resuming else None
    if run is None:
        tags = [f"resumed-from:{prior}"] if resuming and (prior := _prior_run(config, task_id)) else []
        run = deployment.create_task_run(deployment_id, task_id, request.flow_parameters(stored=True), tags)
    try:
        done = run_in_foreground(run, request.flow_parameters())
    except Pause:
        return AwaitingReview(task_id=task_id, flow_run_id=str(run.id), url=run_url(str(run.id)))
    assert isinstance(done, TaskResult)
    return done


def _continued(config: RunConfig, task_id: str) -> FlowRun | None:
    """The task's last flow run, reopened, when the server holds it and it stopped short."""
    latest = deployment.latest_task_run(task_id)
    return deployment.reopen(latest) if latest is not None and deployment.continuable(latest) else None


def _prior_run(config: RunConfig, task_id: str) -> str | None:
    """The flow run that ran the task last: the server's, else the one the task's lock names."""
    latest = deployment.latest_task_run(task_id)
    if latest is not None:
        return str(latest.id)
    holder = read_holder(Path(config.workspace) / "locks" / f"{task_id}.lock")
    return str(holder.get("flow_run_id") or "") or None


def run_in_foreground(flow_run: FlowRun, parameters: dict[str, Any]) -> Any:
    """Execute the deployment's flow run in this process; returns the flow's result.

    Raises `prefect.exceptions.Pause` when the run suspended itself for a review."""
    return run_flow(run_task, flow_run=flow_run, parameters=parameters)


def run_url(flow_run_id: str) -> str | None:
    base = (PREFECT_UI_URL.value() or "").rstrip("/")
    return f"{base}/runs/flow-run/{flow_run_id}" if base else None
