"""Scheduled tasks: a deployment-friendly flow and `cairn serve` (one machine, `flow.serve`).

`run_task` takes a `RunConfig`; a deployment's parameters are plain JSON a person types into
`prefect.yaml` or the UI. `scheduled_task` takes those (goal, sources, workspace, model, ...) and
builds the `RunConfig` at run time, as the CLI does. Each run is a new task whose id comes from
its flow run id, and the scheduled run *is* the task's run: named `cairn-{task_id}`, it runs the
task loop itself (not a second flow run inside it), so Retry and review forms work on it as on a
`cairn run`. For work pools and workers see `docs/scheduling.md`.

>>> serve_task("Summarise new notes", sources=["notes"], workspace="ws", interval=3600)  # doctest: +SKIP
"""

# No `from __future__ import annotations`: Prefect validates flow parameters from the annotations.
import re
from pathlib import Path

from prefect import flow

from cairn.core import UsageError
from cairn.flows.loop.request import TaskRequest
from cairn.flows.prefect.flow import TaskResult, _run_name, _run_suffix, run_request
from cairn.flows.prefect.result_data import SERIALIZER
from cairn.flows.runtime import prepare
from cairn.flows.settings import Settings


@flow(name="cairn-scheduled", flow_run_name=_run_name, log_prints=False, result_serializer=SERIALIZER)
def scheduled_task(
    goal: str,
    sources: list[str] | None = None,
    workspace: str = "./cairn-workspace",
    model: str | None = None,
    max_iterations: int | None = None,
) -> TaskResult:
    """Run `goal` as a new Cairn task in this flow run (`cairn-{task_id}`)."""
    prepare(Path(workspace).expanduser())  # a worker's process did not come through the CLI
    config = Settings(workspace=Path(workspace)).run_config(model=model, max_iterations=max_iterations)
    return run_request(TaskRequest.new(goal, config, suffix=_run_suffix(), sources=sources or ()))


def deployment_name(goal: str) -> str:
    """A readable deployment name from the goal.

    >>> deployment_name("How many days of water?")
    'cairn-how-many-days-of-water'
    """
    words = re.findall(r"[a-z0-9]+", goal.lower())[:5]
    return "cairn-" + ("-".join(words) or "task")


def serve_task(
    goal: str,
    sources: list[str],
    workspace: str,
    model: str | None = None,
    max_iterations: int | None = None,
    cron: str | None = None,
    interval: float | None = None,
    name: str | None = None,
) -> None:
    """Create (or update) a deployment of `scheduled_task` with this schedule and serve it until
    interrupted: each scheduled run executes in a subprocess of this one."""
    if (cron is None) == (interval is None):
        raise UsageError("give exactly one of --cron and --interval")
    parameters = {
        "goal": goal,
        "sources": sources,
        "workspace": workspace,
        "model": model,
        "max_iterations": max_iterations,
    }
    scheduled_task.serve(
        name=name or deployment_name(goal),
        cron=cron,
        interval=interval,
        tags=["cairn"],
        limit=1,  # one run at a time on this machine: a slow run delays the next, never piles up
        parameters={k: v for k, v in parameters.items() if v is not None},
        description=f"Cairn task on a schedule: {goal}",
    )
