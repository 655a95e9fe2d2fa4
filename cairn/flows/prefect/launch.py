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
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from cairn.errors import CairnError
from cairn.flows.loop.cycle import TaskResult
from cairn.memory.tool_config import ToolsConfig
from cairn.tasks.deps import RunConfig

if TYPE_CHECKING:
    from prefect.client.schemas.objects import FlowRun


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


def review_at_the_command_line(task_id: str, iteration: int, workspace: str) -> AwaitingReview:
    """What a task that stopped for a review (no server) waits for, and the commands that go on."""
    where = f"--workspace {workspace}"
    steps = [f'cairn feedback {task_id} "..." {where}', f"cairn resume {task_id} {where}"]
    return AwaitingReview(task_id=task_id, iteration=iteration, next=steps)


def launch(
    config: RunConfig,
    goal: str,
    task_id: str,
    sources: list[str],
    task_type: str | None,
    related: list[str] | None,
    tools: ToolsConfig | None = None,
    resuming: bool = False,
) -> TaskResult | AwaitingReview:
    """Run the task to its end, or until it suspends itself for a review."""
    params: dict[str, Any] = {
        "goal": goal,
        "config": config,
        "task_id": task_id,
        "sources": sources,
        "task_type": task_type,
        "related": related or None,
        "tools": tools,
    }
    api = os.environ.get("PREFECT_API_URL")
    if not api:
        from cairn.flows.prefect.flow import run_task

        result: TaskResult = run_task(**params)
        return result
    from prefect.exceptions import Pause

    from cairn.flows.prefect import deployment

    stored = {
        **params,
        "config": config.model_dump(mode="json"),
        "tools": tools.model_dump(mode="json") if tools is not None else None,
    }
    deployment_id = deployment.ensure_deployment(api)
    run = _continued(config, task_id) if resuming else None
    if run is None:
        tags = [f"resumed-from:{prior}"] if resuming and (prior := _prior_run(config, task_id)) else []
        run = deployment.create_task_run(deployment_id, task_id, stored, tags)
    try:
        done = run_in_foreground(run, params)
    except Pause:
        return AwaitingReview(task_id=task_id, flow_run_id=str(run.id), url=run_url(str(run.id)))
    assert isinstance(done, TaskResult)
    return done


def _continued(config: RunConfig, task_id: str) -> FlowRun | None:
    """The task's last flow run, reopened, when the server holds it and it stopped short."""
    from cairn.flows.prefect import deployment

    latest = deployment.latest_task_run(task_id)
    return deployment.reopen(latest) if latest is not None and deployment.continuable(latest) else None


def _prior_run(config: RunConfig, task_id: str) -> str | None:
    """The flow run that ran the task last: the server's, else the one the task's lock names."""
    from cairn.flows.prefect import deployment
    from cairn.flows.prefect.liveness import read_holder

    latest = deployment.latest_task_run(task_id)
    if latest is not None:
        return str(latest.id)
    holder = read_holder(Path(config.workspace) / "locks" / f"{task_id}.lock")
    return str(holder.get("flow_run_id") or "") or None


def run_in_foreground(flow_run: FlowRun, parameters: dict[str, Any]) -> Any:
    """Execute the deployment's flow run in this process; returns the flow's result.

    Raises `prefect.exceptions.Pause` when the run suspended itself for a review."""
    from prefect.flow_engine import run_flow

    from cairn.flows.prefect.flow import run_task

    return run_flow(run_task, flow_run=flow_run, parameters=parameters)


def run_url(flow_run_id: str) -> str | None:
    from prefect.settings import PREFECT_UI_URL

    base = (PREFECT_UI_URL.value() or "").rstrip("/")
    return f"{base}/runs/flow-run/{flow_run_id}" if base else None
