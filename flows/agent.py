"""The task loop: `run_task` is the parent flow run (`cairn-{task_id}`), each BFS iteration its
own subflow run, validation after each iteration that produced evidence, and the loop policy
deciding when to stop.

Durability: the run holds the task's lock (`cairn.flows.liveness`), so one process runs a task at a
time and runs left RUNNING by a killed process are marked Crashed. Where to continue comes from
`history.jsonl`: finished iterations are never called again, an unfinished one continues from its
first unfinished call, and the call results Prefect persisted under the workspace's `results/`
cover a call whose tool finished but whose record was not yet written.

>>> result = run_task("How big is the reservoir?", config=RunConfig(workspace="ws"))  # doctest: +SKIP
>>> result.complete  # doctest: +SKIP
True
"""

# No `from __future__ import annotations` here: Prefect builds run_task's parameter model from its
# annotations, and a worker that loads the flow from its entrypoint cannot resolve them as strings.
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prefect import flow, tags
from prefect.runtime import flow_run
from prefect.settings import PREFECT_API_URL

from cairn.flows.artifacts import TaskArtifacts
from cairn.flows.durable import PrefectExecutor, bfs_iteration
from cairn.flows.ephemeral import owns
from cairn.flows.liveness import TaskLock, mark_stale_runs
from cairn.flows.loop import TaskResult, run_loop
from cairn.flows.start import start_task
from cairn.flows.task_tools import record_tools
from cairn.flows.uncertain import check_before_run
from cairn.memory.models import IterationMode, TaskType
from cairn.memory.tool_config import ToolsConfig
from cairn.tasks._prefect import task_run_settings
from cairn.tasks.deps import RunConfig

__all__ = ["TaskResult", "run_task"]


def _run_name() -> str:
    params = flow_run.parameters
    return f"cairn-{params.get('task_id') or _derived_id(params.get('goal', ''))}"


def _derived_id(goal: str) -> str:
    from cairn.memory.workspace import new_task_id

    run_id = str(flow_run.id or "")
    return new_task_id(goal, suffix=run_id.replace("-", "")[:4] or None)


# validate_parameters=False: callers pass a RunConfig instance; deployments go through
# cairn.flows.serve.scheduled_task (plain JSON parameters), and a worker process could not resolve
# the RunConfig annotation when Prefect built its parameter model.
@flow(name="cairn", flow_run_name=_run_name, log_prints=False, validate_parameters=False)
def run_task(
    goal: str,
    config: RunConfig,
    task_id: str | None = None,
    sources: list[str] | None = None,
    task_type: TaskType | None = None,
    related: list[str] | None = None,
    tools: ToolsConfig | None = None,
) -> TaskResult:
    """Run a task (or resume it, when `task_id` names one the workspace holds) to its end.
    `tools`: Python tools and MCP servers beyond the built-ins (None: what the task has)."""
    task_id = task_id or _derived_id(goal)
    executor = PrefectExecutor(config)
    with _claim(config, task_id), tags(f"task:{task_id}"), task_run_settings(config.workspace):
        paths = [Path(s) for s in sources or []]
        session = start_task(config, task_id, goal, paths, task_type, related, executor)
        record_tools(session, tools)
        check_before_run(config, session.state)  # uncertain calls wait for a person's decision

        def iterate(n: int, mode: IterationMode, recovery: bool) -> None:
            bfs_iteration(config, task_id, n, mode=mode, recovery=recovery)

        with tags(f"type:{session.state.task_type}"):
            return run_loop(session, iterate, TaskArtifacts(task_id))


@contextmanager
def _claim(config: RunConfig, task_id: str) -> Iterator[None]:
    """Hold the task for this run: refuse a second runner, retire runs a dead one left RUNNING."""
    run_id = str(flow_run.id or "")
    with TaskLock(Path(config.workspace), task_id, flow_run_id=run_id) as lock:
        reason = f"superseded: task {task_id} was continued by flow run {run_id}; its previous runner died"
        mark_stale_runs(task_id, keep={run_id}, reason=reason)
        api = PREFECT_API_URL.value()
        if api and not owns(api):  # an ephemeral server dies with this process: the next run marks the rest
            lock.watch(api)
        yield
