"""One runner per task: an exclusive, crash-safe claim on `WORKSPACE/locks/{task_id}.lock`.

`run_task` holds an exclusive `flock` on the file for the whole run (`cairn run` and `cairn resume`
take it before Prefect starts, so a second one is refused in one line at once, and hand it to the
flow: `held` finds it by its token, and the flow records its run in it with `TaskLock.runs`). The
kernel releases it when the process dies, even by SIGKILL, so the lock is also Cairn's liveness
signal: what Prefect does with it (stale runs marked Crashed, the watchdog process it starts) is
`cairn.flows.prefect.liveness`, which imports this module: the arrow points from Prefect's room to
the loop, never back. A file lock and nothing else: importing it imports no Prefect, so the CLI
claims a task before Prefect is set up.

>>> with TaskLock(Path("ws"), "my-task", flow_run_id="1b2c...") as lock:  # doctest: +SKIP
...     ...  # run the task
"""

from __future__ import annotations

import fcntl
import json
import os
import time
import uuid
from contextvars import ContextVar, Token
from pathlib import Path
from types import TracebackType
from typing import Any

from cairn.core import CairnError
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
            outer.runs(self.flow_run_id)
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

    def runs(self, flow_run_id: str) -> None:
        """Name the flow run that runs the task under this claim (the watchdog marks it)."""
        self.flow_run_id = flow_run_id or self.flow_run_id
        self._write(status="running")

    def _write(self, status: str) -> None:
        assert self._fd is not None
        body = {"pid": os.getpid(), "flow_run_id": self.flow_run_id, "token": self.token, "status": status}
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, json.dumps(body).encode(), 0)


def held(workspace: Path, task_id: str, token: str) -> TaskLock | None:
    """This call chain's claim on the task, if it holds one whose token is `token`."""
    path = Path(workspace).absolute() / "locks" / f"{check_task_id(task_id)}.lock"
    claim = _HELD.get().get(path)
    return claim if claim is not None and claim.token == token else None


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
