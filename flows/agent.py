"""The task loop: `run_task` is the parent flow run (`cairn-{task_id}`), each BFS iteration its
own subflow run, validation after each iteration that produced evidence, and the loop policy
deciding when to stop.

Durability: the run holds the task's lock (`flows.liveness`), so one process runs a task at a
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
from pydantic import BaseModel

from flows.artifacts import TaskArtifacts
from flows.iteration import bfs_iteration
from flows.liveness import TaskLock, mark_stale_runs
from flows.loops import decide
from flows.session import learner_for
from flows.start import start_task
from memory.events import EvidenceRecorded, TaskFinished, ValidationRecorded
from memory.levels import apply_promotions
from memory.models import Evidence, TaskType, Verdict
from memory.state import TaskState
from tasks._prefect import iteration_settings
from tasks.deps import RunConfig
from tasks.validate import has_tests, validate


class TaskResult(BaseModel):
    task_id: str
    status: str
    complete: bool
    iterations: int
    workspace: str
    report_path: str | None
    stop_reason: str | None
    verdict: Verdict | None


def _run_name() -> str:
    params = flow_run.parameters
    return f"cairn-{params.get('task_id') or _derived_id(params.get('goal', ''))}"


def _derived_id(goal: str) -> str:
    from memory.workspace import new_task_id

    run_id = str(flow_run.id or "")
    return new_task_id(goal, suffix=run_id.replace("-", "")[:4] or None)


# validate_parameters=False: callers pass a RunConfig instance; deployments go through
# flows.serve.scheduled_task (plain JSON parameters), and a worker process could not resolve
# the RunConfig annotation when Prefect built its parameter model.
@flow(name="cairn", flow_run_name=_run_name, log_prints=False, validate_parameters=False)
def run_task(
    goal: str,
    config: RunConfig,
    task_id: str | None = None,
    sources: list[str] | None = None,
    task_type: TaskType | None = None,
    related: list[str] | None = None,
) -> TaskResult:
    task_id = task_id or _derived_id(goal)
    artifacts = TaskArtifacts(task_id)
    results = Path(config.workspace) / "results"  # per workspace, so resume finds its cached calls
    with _claim(config, task_id), tags(f"task:{task_id}"), iteration_settings(results):
        session = start_task(config, task_id, goal, [Path(s) for s in sources or []], task_type, related)
        with tags(f"type:{session.state.task_type}"):
            _catch_up(session, config, artifacts)
            decision = decide(session.state)
            while decision.stop is None:
                n = len(session.state.iterations) + 1
                bfs_iteration(config, task_id, n, mode=decision.mode, recovery=decision.recovery)
                state = session.recorder.refresh()
                if _has_new_evidence(state):
                    _validate(session, state, config, n)
                artifacts.publish_iteration(session.state, session.state.iterations[-1])
                decision = decide(session.state)
        result = _finish(session, config, decision.stop)
        artifacts.publish_progress(session.state)
    return result


@contextmanager
def _claim(config: RunConfig, task_id: str) -> Iterator[None]:
    """Hold the task for this run: refuse a second runner, retire runs a dead one left RUNNING."""
    run_id = str(flow_run.id or "")
    with TaskLock(Path(config.workspace), task_id, flow_run_id=run_id) as lock:
        reason = f"superseded: task {task_id} was continued by flow run {run_id}; its previous runner died"
        mark_stale_runs(task_id, keep={run_id}, reason=reason)
        api = PREFECT_API_URL.value()
        if api:  # ephemeral mode: the server dies with this process, the next run marks the rest
            lock.watch(api)
        yield


def _catch_up(session, config: RunConfig, artifacts: TaskArtifacts) -> None:  # type: ignore[no-untyped-def]
    """Validate a finished iteration the previous run stopped right after (as an uninterrupted run would)."""
    state = session.state
    if state.current == 0 and state.iterations and _has_new_evidence(state):
        _validate(session, state, config, state.iterations[-1].iteration)
        artifacts.publish_iteration(session.state, session.state.iterations[-1])


def _has_new_evidence(state: TaskState) -> bool:
    last = state.verdict.iteration if state.verdict else 0
    return any(ev.iteration > last for ev in state.evidence)


def _validate(session, state: TaskState, config: RunConfig, iteration: int) -> Verdict:  # type: ignore[no-untyped-def]
    suites = Path(config.validators_dir) if config.validators_dir else None
    verdict = validate(
        state.task_type,
        state.evidence,
        has_tests=has_tests(state.files),
        suites_dir=suites,
        iteration=iteration,
    )
    verdict = verdict.model_copy(update={"validation_id": f"validation-{iteration}", "iteration": iteration})
    evidence = Evidence(
        type="validation",
        content=verdict.rationale[:500],
        confidence=verdict.confidence,
        source=verdict.validation_id,
        iteration=iteration,
    )
    session.recorder.record(ValidationRecorded(verdict=verdict), EvidenceRecorded(evidence=[evidence]))
    return verdict


def _finish(session, config: RunConfig, reason: str | None) -> TaskResult:  # type: ignore[no-untyped-def]
    state = session.state
    complete = bool(state.verdict and state.verdict.complete)
    report = _report_path(state, session.recorder.repo.artifacts)
    if state.status == "running" or state.stop_reason != reason:
        status = "complete" if complete else "stopped"
        session.recorder.record(TaskFinished(status=status, stop_reason=reason or "", report_path=report))
        # The episode's end: memories the task used move toward its outcome (TD(lambda)).
        updates = learner_for(session.deps, state).end_episode(1.0 if complete else 0.0)
        apply_promotions(session.deps.store, updates)
        session.recorder.repo.commit([session.recorder.repo.history.path], f"Task finished: {reason}")
    state = session.state
    return TaskResult(
        task_id=state.task_id,
        status=state.status,
        complete=complete,
        iterations=len(state.iterations),
        workspace=str(session.deps.workspace.root),
        report_path=report,
        stop_reason=state.stop_reason,
        verdict=state.verdict,
    )


def _report_path(state: TaskState, artifacts: Path) -> str | None:
    """The last documentation file that cites sources (the report or answer), else the last file."""
    docs = [e.metadata.file_path for e in state.evidence if e.type == "synthesis" and e.metadata.file_path]
    files = docs or [f.path for f in sorted(state.files.values(), key=lambda f: f.modified_at)]
    return str(artifacts / files[-1]) if files else None
