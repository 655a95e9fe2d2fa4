"""Who is running a task, and what to do when that process is gone.

One process at a time runs a task: `run_task` holds an exclusive `flock` on
`WORKSPACE/locks/{task_id}.lock` for the whole run (`cairn run` and `cairn resume` take it before
Prefect starts, so a second one is refused in one line at once; the flow's own claim in the same
process then shares theirs). The kernel releases it when the process dies,
even by SIGKILL, so the lock is also Cairn's liveness signal:

- a second process (a `cairn resume` racing a UI retry, two workers) waits a few seconds, then
  refuses with `TaskBusy` naming the holder: no call ever runs twice at the same time;
- a process that takes the lock knows every RUNNING flow run of the task is stale and marks it
  Crashed (`mark_stale_runs`), so `cairn resume` works at once after a kill;
- with a Prefect server, a tiny watchdog process blocks on the same lock and, when the runner dies
  without writing `done`, marks its flow runs Crashed within a second or two, so the UI offers a
  retry without anyone doing anything (Prefect's own heartbeat automation needs about 90 s).

>>> with TaskLock(Path("ws"), "my-task", flow_run_id="1b2c...") as lock:  # doctest: +SKIP
...     ...  # run the task; lock.done() on a clean exit
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
import uuid
from contextvars import ContextVar, Token
from pathlib import Path
from types import TracebackType
from typing import Any

from cairn.errors import CairnError
from cairn.flows.prefect.deployment import log_crash
from cairn.memory.log.workspace import check_task_id


class TaskBusy(CairnError):
    """Another live process holds the task."""


# The claims held by this call chain (a context variable: Prefect carries it into the threads it
# runs a flow in; an unrelated thread of the process does not see it and is refused like a stranger).
_HELD: ContextVar[dict[Path, TaskLock]] = ContextVar("cairn_task_claims", default={})  # noqa: B039


class TaskLock:
    """An exclusive, crash-safe claim on one task (see the module docstring)."""

    def __init__(self, workspace: Path, task_id: str, flow_run_id: str = "", wait_s: float = 5.0) -> None:
        # The id names a file: only a slug may, so the lock stays inside the workspace.
        self.path = Path(workspace).absolute() / "locks" / f"{check_task_id(task_id)}.lock"
        self.task_id = task_id
        self.flow_run_id = flow_run_id
        self.wait_s = wait_s
        self.token = uuid.uuid4().hex
        self._fd: int | None = None
        self._outer: TaskLock | None = None
        self._claims: Token[dict[Path, TaskLock]] | None = None

    @property
    def joined(self) -> bool:
        """Whether this process claimed the task before (the CLI, which checked it could go on)."""
        return self._outer is not None

    def __enter__(self) -> TaskLock:
        outer = _HELD.get().get(self.path)
        if outer is not None:  # this process claimed the task already (the CLI, before Prefect started)
            self._outer, self.token = outer, outer.token
            outer.flow_run_id = self.flow_run_id or outer.flow_run_id
            outer._write(status="running")
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.wait_s
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                holder = read_holder(self.path)
                os.close(fd)
                run = holder.get("flow_run_id")
                raise TaskBusy(
                    f"task {self.task_id} is being run by process {holder.get('pid', '?')}"
                    + (f" (flow run {run})" if run else "")
                    + "; wait for it to finish, or stop it first"
                )
            time.sleep(0.1)
        self._fd = fd
        self._write(status="running")
        self._claims = _HELD.set({**_HELD.get(), self.path: self})
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Any exit Python sees (return, exception, Ctrl-C) is reported by Prefect itself; only a
        # process that vanished leaves "running" behind for the watchdog.
        if self._outer is not None:
            return  # the outer claim lets go
        self._write(status="done")
        if self._claims is not None:
            _HELD.reset(self._claims)
            self._claims = None
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def _write(self, status: str) -> None:
        assert self._fd is not None
        body = {"pid": os.getpid(), "flow_run_id": self.flow_run_id, "token": self.token, "status": status}
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, json.dumps(body).encode(), 0)

    def watch(self, api_url: str) -> None:
        """Start the watchdog for this holder (a detached process that outlives a SIGKILL of ours)."""
        cmd = [sys.executable, "-m", "cairn.flows.prefect.liveness", str(self.path), self.token, api_url]
        subprocess.Popen(
            cmd,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def read_holder(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


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


def _watch(path: Path, token: str, api_url: str) -> None:
    """Block until the runner lets go of the lock; if it died mid-run, mark its runs Crashed."""
    fd = os.open(path, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)  # returns when the runner exits or dies
    holder = read_holder(path)
    fcntl.flock(fd, fcntl.LOCK_UN)  # let a resume start at once; it marks stale runs itself too
    os.close(fd)
    if holder.get("token") != token or holder.get("status") != "running":
        return  # a clean exit, or another runner took over (and did the marking)
    os.environ["PREFECT_API_URL"] = api_url
    task_id = path.stem
    pid = holder.get("pid")
    reason = (
        f"the process running task {task_id} (pid {pid}) died; Retry in the UI or `cairn resume {task_id}` "
        "continues it"
    )
    if holder.get("flow_run_id"):
        mark_stale_runs(task_id, keep=set(), reason=reason, runner=str(holder["flow_run_id"]))

        log_crash(str(holder["flow_run_id"]), task_id, pid, str(path.parent.parent))


if __name__ == "__main__":  # pragma: no cover - run by TaskLock.watch in its own process
    _watch(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
