"""Every use Cairn makes of Prefect beyond its public API, in one place, each with why.

Checked against Prefect 3.8.8 (`requirements.lock`); `tests/unit/project/test_layout.py` fails if another
module reaches for these names. When Prefect changes, this is the file to read.

- `run_flow` (`prefect.flow_engine`): runs a deployment's flow run in this process, so `cairn run`
  with a server stays in the foreground and the UI can still retry and review the run.
- A flow run context's `task_run_dynamic_keys`: how Prefect numbers the task runs of a flow run
  (see `fresh_task_run_keys`).
- A flow run context's `result_store`: where the runs it starts persist their results (see
  `results_in`); and `ResultStore.exists`, to ask whether a call's result was kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import uuid4

from prefect.context import FlowRunContext
from prefect.filesystems import LocalFileSystem
from prefect.flow_engine import run_flow
from prefect.results import ResultStore

from cairn.core import CallKey
from cairn.flows.prefect.result_data import upgrade_record

__all__ = ["fresh_task_run_keys", "has_cached_result", "results_in", "run_flow"]


class _FreshKeys(dict[str, str | int]):
    """Task-run keys counting from a number unique to this process (see `fresh_task_run_keys`)."""

    def __init__(self, start: int) -> None:
        super().__init__()
        self.start = start

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str) and not dict.__contains__(self, key):
            self[key] = self.start  # Prefect asks before its first call of a task, then counts on
        return True


def fresh_task_run_keys() -> None:
    """Make every task run and subflow this process starts in the current flow run a new one.

    Prefect knows a flow run's task runs (and subflows) by call order: the n-th call of a task.
    A continued run (Retry, `cairn resume`, a submitted review form) skips what the history holds,
    so its n-th call is another call, and Prefect would hand back the earlier one's result: the
    continued iteration 2 got iteration 1's finished subflow. With keys unique to the process each
    call is a new run; what finished is still reused, through its cache key (shown Cached)."""
    context = FlowRunContext.get()
    if context is not None:
        context.task_run_dynamic_keys = _FreshKeys(uuid4().int % 10**9 * 1000)


def has_cached_result(workspace: str | Path, key: CallKey) -> bool:
    """Whether Prefect persisted a result under the call's key in the workspace's `results/`: a
    call that has one is never run again (its task run reads it back), whatever else happened.
    A record an older Cairn pickled is rewritten as data first (this may run before the flow)."""
    results = Path(workspace).expanduser().resolve() / "results"
    upgrade_record(results / "cairn" / str(key))
    storage = LocalFileSystem(basepath=str(results))
    return ResultStore(result_storage=storage).exists(f"cairn/{key}")


@contextmanager
def results_in(results: Path) -> Iterator[None]:
    """The runs started inside persist their results under `results`. A flow run's result store is
    fixed when it starts and its children inherit it, so the current context's store is replaced."""
    context = FlowRunContext.get()
    if context is None:
        raise RuntimeError("results_in needs a flow run (it configures the runs it starts)")
    store = context.result_store.model_copy(update={"result_storage": LocalFileSystem(basepath=str(results))})
    with context.model_copy(update={"result_store": store}):
        yield
