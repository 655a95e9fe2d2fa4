"""Opening a task: create it (task type, goal, the goal's constraint) or reopen it to resume."""

from __future__ import annotations

from pathlib import Path

from cairn.flows.executor import Executor
from cairn.flows.reopen import ready_to_continue
from cairn.flows.rules import constraint_event
from cairn.flows.session import Session, open_session
from cairn.memory.errors import NotFound, UsageError
from cairn.memory.events import ConstraintExtracted, TaskCreated, UserMessage
from cairn.memory.models import TaskType
from cairn.tasks.call_key import CallKey
from cairn.tasks.deps import Deps, RunConfig, deps_for
from cairn.tasks.schemas import (
    DetectTaskTypeInput,
    DetectTaskTypeOutput,
    ExtractConstraintInput,
    ExtractConstraintOutput,
)


def start_task(
    config: RunConfig,
    task_id: str,
    goal: str,
    sources: list[Path],
    task_type: TaskType | None,
    related: list[str] | None,
    executor: Executor,
) -> Session:
    """`related`: earlier tasks whose evidence and memories this task's searches include (labelled)."""
    deps = deps_for(config)
    if task_id in deps.workspace.task_ids():  # resume: the log says where we are
        ready_to_continue(deps.workspace.task(task_id), config.accept_tampered)
        return open_session(config, task_id)
    related_ids = check_related(deps, related or [])  # before any model call: a typo fails fast
    detected = task_type or detect_task_type(executor, task_id, goal)
    created = TaskCreated(
        task_id=task_id,
        goal=goal,
        task_type=detected,
        sources=name_sources(sources),
        model=config.model,
        max_iterations=config.max_iterations,
        related=related_ids,
    )
    deps.workspace.create_task(created)
    session = open_session(config, task_id)
    session.recorder.record(UserMessage(text=goal, role="goal"))
    session.recorder.record(extract_constraint(executor, task_id, goal, index=0))
    return session


def check_related(deps: Deps, related: list[str]) -> list[str]:
    """Related task ids, each once; an unknown id is refused (a typo would silently search nothing)."""
    known = set(deps.workspace.task_ids())
    for task_id in related:
        if task_id not in known:
            raise NotFound(f"related task {task_id!r} does not exist in this workspace")
    return list(dict.fromkeys(related))


def name_sources(sources: list[Path]) -> dict[str, str]:
    """Name each source directory by its folder name, made unique; refuse what is not a directory."""
    named: dict[str, str] = {}
    for source in sources:
        path = source.expanduser().resolve()
        if not path.is_dir():
            raise UsageError(f"source is not a directory: {source}")
        name, n = path.name or "source", 2
        while name in named:
            name, n = f"{path.name}-{n}", n + 1
        named[name] = str(path)
    return named


def detect_task_type(executor: Executor, task_id: str, goal: str) -> TaskType:
    key = CallKey(task_id=task_id, iteration=0, index=0, kind="detect_task_type")
    result = executor.ask(key, "detect_task_type", DetectTaskTypeInput(goal=goal), "detect-task-type")
    out = result.output if result.ok and isinstance(result.output, DetectTaskTypeOutput) else None
    return out.task_type if out else "general_task"


def extract_constraint(executor: Executor, task_id: str, message: str, index: int) -> ConstraintExtracted:
    """Only people make rules: this runs on user messages (the goal, feedback), never tool output."""
    key = CallKey(task_id=task_id, iteration=0, index=index, kind="extract_constraint")
    payload = ExtractConstraintInput(message=message)
    result = executor.ask(key, "extract_constraint", payload, f"extract-constraint-{index}")
    out = result.output if result.ok and isinstance(result.output, ExtractConstraintOutput) else None
    return constraint_event(out, message)
