"""The task loop: `run_task` is the parent flow run (`cairn-{task_id}`), each BFS iteration its
own subflow run, validation after each iteration that produced evidence, and the loop policy
deciding when to stop.

Durability: the run holds the task's lock (`cairn.flows.prefect.liveness`), so one process runs a task at a
time and runs left RUNNING by a killed process are marked Crashed. Where to continue comes from
`history.jsonl`: finished iterations are never called again, an unfinished one continues from its
first unfinished call, and the call results Prefect persisted under the workspace's `results/`
cover a call whose tool finished but whose record was not yet written. The same holds whoever
runs it: `cairn run` in the foreground, a worker after Retry in the UI or a submitted review form
(`cairn.flows.prefect.deployment`), or a Python caller.

>>> result = run_task("How big is the reservoir?", config=RunConfig(workspace="ws"))  # doctest: +SKIP
>>> result.complete  # doctest: +SKIP
True
"""

# No `from __future__ import annotations` here: Prefect builds run_task's parameter model from its
# annotations, and a worker that loads the flow from its entrypoint cannot resolve them as strings.
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, tags
from prefect.client.orchestration import get_client
from prefect.runtime import flow_run
from prefect.settings import PREFECT_API_URL
from prefect.utilities.annotations import quote

from cairn.core import IterationMode, RunConfig, TaskType, ToolsConfig
from cairn.flows.loop.claim import TaskLock, held
from cairn.flows.loop.cycle import TaskResult, has_new_evidence, run_loop
from cairn.flows.loop.outcome import report_excerpt, result_markdown, totals
from cairn.flows.loop.request import Checked, TaskRequest, task_id_for
from cairn.flows.loop.start import checked_model, open_task, vouched
from cairn.flows.prefect.durable import PrefectExecutor, bfs_iteration
from cairn.flows.prefect.internals import fresh_task_run_keys, has_cached_result
from cairn.flows.prefect.liveness import mark_stale_runs, watch
from cairn.flows.prefect.result_data import SERIALIZER
from cairn.flows.prefect.review import PrefectReviewer
from cairn.flows.prefect.story import NarratingRecorder, rules_line, telling
from cairn.flows.prefect.task_defaults import task_run_settings
from cairn.flows.prefect.ui import TaskPages
from cairn.flows.runtime import protect_secrets
from cairn.flows.server.ephemeral import owns
from cairn.flows.steps.session import Session
from cairn.tasks.tools.python_tools import GivenTools
from cairn.tasks.verifier import Verifier

__all__ = ["TaskResult", "run_task"]


def _run_name() -> str:
    params = flow_run.parameters
    return f"cairn-{task_id_for(params.get('goal', ''), params.get('task_id'), _run_suffix())}"


def _run_suffix() -> str | None:
    """A task id's suffix when none was given: the flow run's own id, so its name says the task."""
    return str(flow_run.id or "").replace("-", "")[:4] or None


# validate_parameters=False: callers pass a RunConfig instance; a worker running the deployment
# passes the JSON the flow run stores, which `TaskRequest.from_parameters` turns back into one (a
# worker process could not resolve the RunConfig annotation when Prefect built its parameter model).
@flow(
    name="cairn",
    flow_run_name=_run_name,
    log_prints=False,
    validate_parameters=False,
    result_serializer=SERIALIZER,
)
def run_task(
    goal: str,
    config: RunConfig,
    task_id: str | None = None,
    sources: list[str] | None = None,
    task_type: TaskType | None = None,
    related: list[str] | None = None,
    tools: ToolsConfig | GivenTools | None = None,
    checked: Checked | None = None,
    verifier: Verifier | None = None,
) -> TaskResult:
    """Run a task (or resume it, when `task_id` names one the workspace holds) to its end.
    `tools`: Python tools and MCP servers beyond the built-ins (None: what the task has), as a
    `ToolsConfig` or as a list of plain functions and `module:function` names.
    `checked`: given by `cairn run` and `cairn resume` only (see `TaskRequest.checked`).
    `verifier`: who judges each answer's parts (`cairn.tasks.verifier`; None: Cairn's own judge)."""
    parameters = {"goal": goal, "config": config, "task_id": task_id, "sources": sources}
    parameters |= {"task_type": task_type, "related": related, "tools": tools, "checked": checked}
    parameters |= {"verifier": verifier}
    return run_request(TaskRequest.from_parameters(parameters, suffix=_run_suffix()))


def run_request(request: TaskRequest) -> TaskResult:
    """The task's run inside the current flow run (`run_task`'s, or a scheduled deployment's)."""
    protect_secrets()  # a worker's process did not come through the CLI
    fresh_task_run_keys()  # a continued run must not be handed the previous attempt's calls
    task_id = request.task_id
    logger = get_run_logger()
    settings = task_run_settings(request.config.workspace, task_id)
    with _claim(request) as lock, tags(f"task:{task_id}"), settings:
        _say_where_from(logger)
        request = checked_model(request, lock)  # the preflight, unless the command made it
        config = request.config
        executor = PrefectExecutor(config)
        # a run no command checked is checked here: calls only a person can settle wait for one
        session = open_task(request, executor, lock, partial(has_cached_result, config.workspace))
        _say_checks(logger, vouched(request, lock))
        if (probe := config.model_probe) is not None:
            speed = f"{probe.tokens_per_s:g} tokens/s" if probe.tokens_per_s else "speed unknown"
            logger.info("Model %s: replies asked for as %s (%s)", probe.model, probe.reason, speed)
        session.recorder = NarratingRecorder(session.recorder, logger.info)
        state = session.state
        logger.info("Task %s: %s; %s", task_id, state.task_type, rules_line(state))
        _tag_parent([f"task:{task_id}", f"type:{state.task_type}"])
        with tags(f"type:{state.task_type}"), telling(logger):
            return _loop(session, executor, logger)


def _say_checks(logger: Any, by_command: bool) -> None:
    """Who checked that the run can go on: the command that started it, or this run itself."""
    who = "the command that started it" if by_command else "this run (no command started it)"
    logger.info("Checked before the run (model, history, interrupted calls) by %s", who)


def _loop(session: Session, executor: PrefectExecutor, logger: Any) -> TaskResult:
    pages = TaskPages(session.task_id)
    config, task_id = session.config, session.task_id
    reviewer = PrefectReviewer(config.review, executor, logger)

    previous: list[Any] = []  # the last iteration's state: the graph draws iterations as a chain

    def iterate(n: int, mode: IterationMode, recovery: bool) -> None:
        state = bfs_iteration(
            quote(config), task_id, n, mode=mode, recovery=recovery, return_state=True, wait_for=previous[-1:]
        )
        previous.append(state)
        pages.iteration_run(n, state.state_details.flow_run_id)
        state.result()  # raises what the iteration raised, as a plain call would
        if has_new_evidence(session.recorder.refresh()):
            logger.info("Validating iteration %d's evidence against the %s suite", n, session.state.task_type)

    try:
        result = run_loop(session, iterate, pages, reviewer)
    except Exception as exc:
        logger.error(
            "Task %s failed: %s. Nothing finished is lost: continue with `cairn resume %s "
            "--workspace %s`, or press Retry on this run in the Prefect UI (a worker continues it).",
            task_id,
            exc,
            task_id,
            config.workspace,
        )
        raise
    _publish_result(session, pages)
    return result


def _publish_result(session: Session, pages: TaskPages) -> None:
    state = session.state
    history = session.recorder.repo.read().envelopes
    started = history[0].ts if history else time.time()
    report = report_excerpt(Path(state.report_path) if state.report_path else None)
    run = totals(state, started=started, finished=time.time())
    pages.publish_result(result_markdown(state, run, report, session.artifacts))


def _say_where_from(logger: Any) -> None:
    """A resumed task's new flow run names the run it continues (its tag `resumed-from:ID`)."""
    for tag in flow_run.tags or []:
        if tag.startswith("resumed-from:"):
            logger.info("Continues the task from flow run %s (which stopped early)", tag.split(":", 1)[1])


def _tag_parent(wanted: list[str]) -> None:
    """Tags on the parent run itself (`with tags` reaches only the runs started inside it)."""
    have = list(flow_run.tags or [])
    missing = [t for t in wanted if t not in have]
    run_id = flow_run.id
    if not missing or not run_id or not PREFECT_API_URL.value():
        return
    with get_client(sync_client=True) as client:
        client.update_flow_run(run_id, tags=[*have, *missing])


@contextmanager
def _claim(request: TaskRequest) -> Iterator[TaskLock]:
    """Hold the task for this run: the claim of the command that started it (`request.checked`),
    else its own (a second runner is refused); runs a dead runner left RUNNING are retired."""
    run_id, task_id, workspace = str(flow_run.id or ""), request.task_id, Path(request.config.workspace)
    given = held(workspace, task_id, request.checked.claim) if request.checked else None
    with nullcontext(given) if given is not None else TaskLock(workspace, task_id) as lock:
        lock.runs(run_id)
        reason = f"superseded: task {task_id} was continued by flow run {run_id}; its previous runner died"
        mark_stale_runs(task_id, keep={run_id}, reason=reason)
        api = PREFECT_API_URL.value()
        if api and not owns(api):  # an ephemeral server dies with this process: the next run marks the rest
            watch(lock, api)
        yield lock
