"""Whole offline tasks in this process (`tests/unit/scripted.py: run_whole_task` with the offline
model and the real tools over real source folders), and unfinished ones."""

from __future__ import annotations

from pathlib import Path

from cairn.core import RunConfig
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.loop.iteration import run_iteration
from cairn.flows.loop.request import TaskRequest
from cairn.flows.loop.start import start_task
from cairn.flows.steps.executor import InProcessExecutor
from cairn.flows.steps.session import open_session
from cairn.tasks.model.llm import ModelClient
from tests.conftest import QUESTION_FILE
from tests.unit.scripted import run_whole_task

QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()


def config_for(workspace: Path, **overrides: object) -> RunConfig:
    return RunConfig.model_validate({"workspace": str(workspace), "max_iterations": 8, **overrides})


def run_offline(config: RunConfig, task_id: str, sources: list[Path]) -> TaskResult:
    """Create (or continue) the task and run it to its end, as `run_task` would."""
    return run_whole_task(config, task_id, QUESTION, sources)


def start_offline(config: RunConfig, task_id: str, sources: list[Path], iterations: int) -> None:
    """Create the task and run its first `iterations` iterations only (an unfinished task)."""
    executor = InProcessExecutor(ModelClient(config.model))
    start_task(
        TaskRequest.new(QUESTION, config, task_id=task_id, sources=[str(s) for s in sources]), executor
    )
    for n in range(1, iterations + 1):
        run_iteration(open_session(config, task_id), n, "fast", False, executor)
