"""Every task on a server is a deployment run, executed in the foreground by `cairn run`.

Prefect offers Retry, and can suspend a run for a person's input, only for runs of a deployment.
So with a server, Cairn registers the deployment `cairn/task` (flow `cairn`, entrypoint
`cairn.flows.prefect.flow:run_task`, work pool `cairn-local`), creates the task's flow run from it
(named `cairn-{task_id}`, tagged `task:{task_id}`) in a Pending state, which no worker picks up,
and runs it in this process (`run_flow`): the terminal shows what it always did. When the run is
retried in the UI, or a review form is submitted, a worker for the pool runs the same flow run.

`cairn resume` continues the task's last flow run when the server holds it and it can go on;
otherwise it creates a new one tagged `resumed-from:{previous run id}`.

>>> task_run_name("alder-creek-3f9a")
'cairn-alder-creek-3f9a'
"""

from __future__ import annotations

import os
from typing import Any
from uuid import UUID

from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import DeploymentUpdate
from prefect.client.schemas.objects import FlowRun, StateType
from prefect.client.schemas.sorting import DeploymentSort
from prefect.settings import PREFECT_API_URL, temporary_settings
from prefect.states import Pending

from cairn._legacy import current_entrypoint
from cairn.flows.prefect.worker import DEFAULT_POOL, ensure_pool
from cairn.flows.runtime import QUIET

FLOW_NAME = "cairn"
DEPLOYMENT_NAME = "task"
ENTRYPOINT = "cairn.flows.prefect.flow:run_task"
# Cairn's flows a deployment can name; `cairn migrate` re-points older names to these only.
ENTRYPOINTS = {ENTRYPOINT, "cairn.flows.prefect.serve:scheduled_task"}
# A run in one of these states can be continued as it is (the same flow run id).
CONTINUABLE = {
    StateType.CRASHED,
    StateType.FAILED,
    StateType.CANCELLED,
    StateType.PAUSED,
    StateType.SCHEDULED,
}


def task_run_name(task_id: str) -> str:
    return f"cairn-{task_id}"


def ensure_deployment(api_url: str, pool: str = DEFAULT_POOL) -> UUID:
    """Create or update the deployment `cairn/task` in `pool` (created too when missing)."""
    ensure_pool(api_url, pool)
    with get_client(sync_client=True) as client:
        flow_id = client.create_flow_from_name(FLOW_NAME)
        return client.create_deployment(  # an upsert by flow and name
            flow_id=flow_id,
            name=DEPLOYMENT_NAME,
            entrypoint=ENTRYPOINT,
            work_pool_name=pool,
            path=os.getcwd(),
            tags=["cairn"],
            description="Cairn tasks: `cairn run` creates each run; Retry and review forms run here again.",
            enforce_parameter_schema=False,
            # Any worker of the pool runs Cairn quietly offline, whatever its own environment.
            job_variables={"env": {**QUIET, "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true"}},
        )


def create_task_run(
    deployment_id: UUID, task_id: str, parameters: dict[str, Any], tags: list[str]
) -> FlowRun:
    """The task's flow run, Pending: this process runs it; no worker picks it up."""
    with get_client(sync_client=True) as client:
        return client.create_flow_run_from_deployment(
            deployment_id,
            parameters=parameters,
            state=Pending(message="run in the foreground by `cairn run`"),
            name=task_run_name(task_id),
            tags=[f"task:{task_id}", *tags],
        )


def latest_task_run(task_id: str) -> FlowRun | None:
    """The task's newest `cairn-{task_id}` flow run on the server, if any."""
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName
    from prefect.client.schemas.sorting import FlowRunSort

    flow_filter = FlowRunFilter(name=FlowRunFilterName(any_=[task_run_name(task_id)]))
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=flow_filter, sort=FlowRunSort.EXPECTED_START_TIME_DESC, limit=1
        )
    return runs[0] if runs else None


def read_run(flow_run_id: str) -> FlowRun | None:
    from prefect.exceptions import ObjectNotFound

    try:
        with get_client(sync_client=True) as client:
            return client.read_flow_run(UUID(flow_run_id))
    except (ObjectNotFound, ValueError):
        return None


def continuable(run: FlowRun | None) -> bool:
    """A deployment run that stopped short (crashed, failed, cancelled, suspended, awaiting retry)."""
    return bool(run and run.deployment_id and run.state and run.state.type in CONTINUABLE)


def reopen(run: FlowRun) -> FlowRun:
    """Put a stopped run back to Pending so this process can run it again (same id)."""
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(run.id, Pending(message="continued by `cairn resume`"), force=True)
        return client.read_flow_run(run.id)


def crash_message(task_id: str, pid: object, workspace: str, retryable: bool) -> str:
    """What the run's log says when its process died.

    >>> crash_message("t1", 42, "ws", retryable=True)[:60]
    'The process running task t1 (pid 42) died. Nothing finished '
    """
    retry = (
        "press Retry on this run in the Prefect UI (a worker continues this same flow run from its "
        "first unfinished call), or run "
        if retryable
        else "run "
    )
    return (
        f"The process running task {task_id} (pid {pid}) died. Nothing finished is lost: "
        f"{retry}`cairn resume {task_id} --workspace {workspace}`."
    )


def log_crash(flow_run_id: str, task_id: str, pid: object, workspace: str) -> None:
    """An ERROR line on the dead run's Logs tab, saying how to continue it."""
    import logging

    from prefect.client.schemas.actions import LogCreate
    from prefect.types import DateTime

    run = read_run(flow_run_id)
    if run is None:
        return
    message = crash_message(task_id, pid, workspace, retryable=run.deployment_id is not None)
    line = LogCreate(
        name="cairn.liveness",
        level=logging.ERROR,
        message=message,
        timestamp=DateTime.now("UTC"),
        flow_run_id=run.id,
    )
    with get_client(sync_client=True) as client:
        client.create_logs([line])


def task_flow_run_url(task_id: str) -> str | None:
    """The UI page of the task's latest `cairn-{task_id}` flow run, or None if the server has none."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName
    from prefect.client.schemas.sorting import FlowRunSort
    from prefect.settings import PREFECT_UI_URL

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[f"cairn-{task_id}"])),
            sort=FlowRunSort.START_TIME_DESC,
            limit=1,
        )
    base = (PREFECT_UI_URL.value() or "").rstrip("/")
    return f"{base}/runs/flow-run/{runs[0].id}" if runs and base else None


def migrate_entrypoints(api_url: str) -> list[tuple[str, str, str]]:
    """Point every deployment on the server that names a Cairn flow by an older module (0.2's
    `cairn.flows.serve:scheduled_task`, 0.1's `flows/serve.py:scheduled_task`) at today's; returns
    (deployment, old entrypoint, new entrypoint) for each one changed. Anyone else's deployments
    are left alone: only an old name of one of Cairn's two flows is rewritten."""
    changed = []
    with temporary_settings(updates={PREFECT_API_URL: api_url}), get_client(sync_client=True) as client:
        for deployment in _all_deployments(client):
            old = deployment.entrypoint or ""
            new = current_entrypoint(old) if old else old
            if new != old and new in ENTRYPOINTS:
                client.update_deployment(deployment.id, DeploymentUpdate(entrypoint=new))
                changed.append((deployment.name, old, new))
    return changed


def _all_deployments(client: Any, page: int = 200) -> list[Any]:
    """Every deployment on the server, a page at a time in a stable order (the API answers 422 to
    the client's defaults: no limit, no sort)."""
    found: list[Any] = []
    while batch := client.read_deployments(limit=page, offset=len(found), sort=DeploymentSort.NAME_ASC):
        found += batch
        if len(batch) < page:
            break
    return found
