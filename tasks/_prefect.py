"""The one place that holds Cairn's Prefect task defaults.

Every Cairn task takes a `CallKey` as its first parameter. Its cache key is built from that alone
(task id / iteration / call index / kind), never from the run id or the live clients passed beside
it, so a new run of the same task — `cairn resume`, a retry from the UI — finds the results of
calls that already finished and does not run them again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from prefect import Task, task
from prefect.settings import (
    PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
    PREFECT_RESULTS_LOCAL_STORAGE_PATH,
    temporary_settings,
)
from pydantic import BaseModel, ConfigDict

P = ParamSpec("P")
R = TypeVar("R")


class CallKey(BaseModel):
    """Identity of one call within a task: what makes a result reusable across runs."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    iteration: int
    index: int
    kind: str  # "tool", "plan", "compress", "synthesize", ...

    def __str__(self) -> str:
        return f"{self.task_id}/{self.iteration}/{self.index}/{self.kind}"


def call_cache_key(context: Any, parameters: dict[str, Any]) -> str | None:
    key = parameters.get("key")
    return f"cairn/{key}" if isinstance(key, CallKey) else None


def cairn_task(
    *, name: str, retries: int = 0, tags: tuple[str, ...] = ()
) -> Callable[[Callable[P, R]], Task[P, R]]:
    """`@task` with Cairn's defaults: call-key caching, persisted results, readable names."""

    def decorate(fn: Callable[P, R]) -> Task[P, R]:
        return task(
            name=name,
            cache_key_fn=call_cache_key,
            persist_result=True,
            retries=retries,
            retry_delay_seconds=0.5,
            tags=list(tags),
        )(fn)

    return decorate


@contextmanager
def iteration_settings(results: Path) -> Iterator[None]:
    """Prefect settings for the runs a task's parent flow starts: its iterations and their calls.

    - Results go to the workspace's `results/`, so a new process (resume, UI retry) finds them.
    - Heartbeats are off for the iteration subflows. A flow run joins its heartbeat thread on exit,
      and that thread sleeps in 1-second steps: about 1 s of every iteration. The parent flow run
      started its own heartbeat before entering this block and keeps it, so crash detection (and
      Cairn's task lock, `flows/liveness.py`) still covers the whole task.

    >>> with iteration_settings(Path("ws/results")):  # doctest: +SKIP
    ...     bfs_iteration(config, task_id, 1)
    """
    updates = {PREFECT_RESULTS_LOCAL_STORAGE_PATH: results, PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}
    with temporary_settings(updates=updates):
        yield
