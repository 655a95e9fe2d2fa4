"""What Prefect does with a task's claim (`cairn.flows.loop.claim`) when its runner is gone.

The claim's `flock` is released by the kernel when the process dies, even by SIGKILL, so it is
Cairn's liveness signal:

- a second process (a `cairn resume` racing a UI retry, two workers) waits a few seconds, then
  refuses with `TaskBusy` naming the holder: no call ever runs twice at the same time;
- a process that takes the lock knows every RUNNING flow run of the task is stale and marks it
  Crashed (`mark_stale_runs`), so `cairn resume` works at once after a kill;
- with a Prefect server, a tiny watchdog process (`watch`: this module as a program)
  blocks on the same lock and, when the runner dies without writing `done`, marks its flow runs
  Crashed within a second or two, so the UI offers a retry without anyone doing anything
  (Prefect's own heartbeat automation needs about 90 s). It is started with `PREFECT_API_URL`
  set, so Prefect, imported with this module, talks to the runner's server.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import uuid
from pathlib import Path

from cairn.flows.loop.claim import TaskBusy, TaskLock, read_holder
from cairn.flows.prefect.deployment import log_crash

# The claim's names too: 0.2 had them here.
__all__ = ["TaskBusy", "TaskLock", "mark_stale_runs", "read_holder", "watch"]


def mark_stale_runs(task_id: str, keep: set[str], reason: str, runner: str | None = None) -> list[str]:
    """Mark the task's RUNNING/PENDING flow runs Crashed, except those in `keep`; returns their ids.

    Without `runner`: every such run of the task (the parent `cairn-{id}` and subflows tagged
    `task:{id}`); only call it while holding the task's lock. With `runner`: that flow run and its
    subflows only (the watchdog, which must never touch a resume that started meanwhile).
    """
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterId,
        FlowRunFilterName,
        FlowRunFilterParentFlowRunId,
        FlowRunFilterState,
        FlowRunFilterStateType,
        FlowRunFilterTags,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.client.schemas.sorting import FlowRunSort
    from prefect.states import Crashed

    live = FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.RUNNING, StateType.PENDING]))
    if runner:
        ids = [uuid.UUID(runner)]
        filters = [
            FlowRunFilter(id=FlowRunFilterId(any_=ids), state=live),
            FlowRunFilter(parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=ids), state=live),
        ]
    else:
        filters = [
            FlowRunFilter(name=FlowRunFilterName(any_=[f"cairn-{task_id}"]), state=live),
            FlowRunFilter(tags=FlowRunFilterTags(all_=[f"task:{task_id}"]), state=live),
        ]
    with get_client(sync_client=True) as client:
        found = {
            str(run.id): run
            for flow_filter in filters
            for run in client.read_flow_runs(flow_run_filter=flow_filter, sort=FlowRunSort.ID_DESC, limit=200)
            if str(run.id) not in keep
        }
        # Subflows first: once the parent reads Crashed (what a watcher waits for), its children do too.
        stale = sorted(found.values(), key=lambda run: run.parent_task_run_id is None)
        for run in stale:
            client.set_flow_run_state(run.id, Crashed(message=reason), force=True)
    return [str(run.id) for run in stale]


def watch(lock: TaskLock, api_url: str) -> None:
    """Start the watchdog for this holder of `lock` (a detached process that outlives a SIGKILL of
    ours). The program is this module, named by reference (`watch.__module__`), so the arrow from
    the claim's holder to the watchdog is an import the layering test sees."""
    cmd = [sys.executable, "-m", watch.__module__, str(lock.path), lock.token, api_url]
    subprocess.Popen(
        cmd,
        env={**os.environ, "PREFECT_API_URL": api_url},  # set before the watchdog imports Prefect
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _watch(path: Path, token: str) -> None:
    """Block until the runner lets go of the lock; if it died mid-run, mark its runs Crashed."""
    fd = os.open(path, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # returns when the runner exits or dies
    holder = read_holder(path)
    fcntl.flock(fd, fcntl.LOCK_UN)  # let a resume start at once; it marks stale runs itself too
    os.close(fd)
    if holder.get("token") != token or holder.get("status") != "running":
        return  # a clean exit, or another runner took over (and did the marking)
    task_id = path.stem
    pid = holder.get("pid")
    reason = (
        f"the process running task {task_id} (pid {pid}) died; Retry in the UI or `cairn resume {task_id}` "
        "continues it"
    )
    if holder.get("flow_run_id"):
        mark_stale_runs(task_id, keep=set(), reason=reason, runner=str(holder["flow_run_id"]))

        log_crash(str(holder["flow_run_id"]), task_id, pid, str(path.parent.parent))


if __name__ == "__main__":  # pragma: no cover - run by `watch` in its own process
    _watch(Path(sys.argv[1]), sys.argv[2])  # sys.argv[3], the API URL, is in PREFECT_API_URL
