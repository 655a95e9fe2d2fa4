"""The one place that holds Cairn's Prefect task defaults.

Every Cairn task takes a `CallKey` as its first parameter. Its cache key is built from that alone
(task id / iteration / call index / kind), never from the run id or the live clients passed beside
it, so a new run of the same task — `cairn resume`, a retry from the UI — finds the results of
calls that already finished and does not run them again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from prefect import Task, task
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
            fn,
            name=name,
            cache_key_fn=call_cache_key,
            persist_result=True,
            retries=retries,
            retry_delay_seconds=0.5,
            tags=list(tags),
        )

    return decorate
