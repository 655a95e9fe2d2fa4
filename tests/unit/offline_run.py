"""Whole offline tasks in this process: `start_task` and `run_loop` with the in-process executor
and the real tools, over real source folders (no Prefect engine)."""

from __future__ import annotations

from pathlib import Path

from cairn.flows.executor import InProcessExecutor
from cairn.flows.iteration import run_iteration
from cairn.flows.loop import NoArtifacts, TaskResult, run_loop
from cairn.flows.session import open_session
from cairn.flows.start import start_task
from cairn.tasks.deps import RunConfig
from cairn.tasks.llm import ModelClient
from tests.conftest import QUESTION_FILE

QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()


def config_for(workspace: Path, **overrides: object) -> RunConfig:
    return RunConfig.model_validate({"workspace": str(workspace), "max_iterations": 8, **overrides})


def run_offline(config: RunConfig, task_id: str, sources: list[Path], goal: str = QUESTION) -> TaskResult:
    """Create (or continue) the task and run it to its end, as `run_task` would."""
    executor = InProcessExecutor(ModelClient(config.model))
    session = start_task(config, task_id, goal, sources, None, None, executor)

    def iterate(n: int, mode: str, recovery: bool) -> None:
        run_iteration(open_session(config, task_id), n, mode, recovery, executor)  # type: ignore[arg-type]

    return run_loop(session, iterate, NoArtifacts())


def start_offline(config: RunConfig, task_id: str, sources: list[Path], iterations: int) -> None:
    """Create the task and run its first `iterations` iterations only (an unfinished task)."""
    executor = InProcessExecutor(ModelClient(config.model))
    start_task(config, task_id, QUESTION, sources, None, None, executor)
    for n in range(1, iterations + 1):
        run_iteration(open_session(config, task_id), n, "fast", False, executor)
