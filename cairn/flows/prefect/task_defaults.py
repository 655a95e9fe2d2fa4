"""The one place that holds the defaults of Cairn's Prefect tasks (`cairn.flows.prefect.tasks`).

Every one of them takes a `CallKey` as its first parameter, and persists its result as data
(`cairn.flows.prefect.result_data`: JSON under a type tag of Cairn's, not a pickle). Its cache
key is built from the `CallKey` alone (task id / iteration / call index / kind), never from the
run id or the live clients passed beside it, so a new run of the same task — `cairn resume`, a
retry from the UI — finds the results of calls that already finished and does not run them again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from prefect import Task, task
from prefect.settings import (
    PREFECT_FLOWS_HEARTBEAT_FREQUENCY,
    temporary_settings,
)

from cairn.core import CallKey
from cairn.flows.prefect.internals import results_in
from cairn.flows.prefect.result_data import SERIALIZER, upgrade_task_results

P = ParamSpec("P")
R = TypeVar("R")


def call_cache_key(context: Any, parameters: dict[str, Any]) -> str | None:
    key = parameters.get("key")
    return f"cairn/{key}" if isinstance(key, CallKey) else None


def prefect_task(
    *, name: str, retries: int = 0, tags: tuple[str, ...] = ()
) -> Callable[[Callable[P, R]], Task[P, R]]:
    """`@task` with Cairn's defaults: call-key caching, persisted results, readable names."""

    def decorate(fn: Callable[P, R]) -> Task[P, R]:
        return task(
            name=name,
            cache_key_fn=call_cache_key,
            persist_result=True,
            result_serializer=SERIALIZER,
            retries=retries,
            retry_delay_seconds=0.5,
            tags=list(tags),
        )(fn)

    return decorate


@contextmanager
def task_run_settings(workspace: str | Path, task_id: str) -> Iterator[None]:
    """Inside a task's flow run: how the runs it starts (iterations, calls) persist and beat.

    - Results go to the workspace's `results/`, however the flow run was started (CLI, Python,
      a worker). Prefect's default is one folder per machine (`~/.prefect/storage`) and a call's
      cache key names the task, not the workspace: two workspaces holding a task of the same id
      would read each other's results. A flow run's result store is fixed when it starts and its
      children inherit it, so the store of the current flow run context is replaced.
    - The results an older Cairn pickled for the task's calls are rewritten as data first
      (`upgrade_task_results`), so that Prefect, looking a call up, reads no pickle.
    - Heartbeats are off for the iteration subflows. A flow run joins its heartbeat thread on
      exit, and that thread sleeps in 1-second steps: about 1 s of every iteration. The parent
      keeps its own, so crash detection (and Cairn's task lock) still covers the whole task.

    >>> with task_run_settings("ws", "alder-creek-3f9a"):  # doctest: +SKIP
    ...     bfs_iteration(config, task_id, 1)
    """
    results = Path(workspace).expanduser().resolve() / "results"
    upgrade_task_results(results, task_id)
    with results_in(results), temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


@contextmanager
def iteration_settings() -> Iterator[None]:
    """Heartbeats off for the flow runs started inside (see `task_run_settings`)."""
    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield
