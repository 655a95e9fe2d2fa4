"""A run that stops when it is told to, and when its Prefect server goes away (issue 35).

`cairn run` and `cairn resume` keep the main thread for this and run the task's flow in another
(`Guard.run`). Before, the flow ran in the main thread: Prefect turned SIGTERM into a crash report
to a server that no longer answered, and Python waits at exit for every thread, a model call of
twenty minutes among them; a run whose temporary server had been killed went on for six minutes
logging `ConnectionRefusedError`, then ignored SIGTERM for 45 s and SIGINT for 15 s. Now, in every
state (preflight, server start, a model or tool call, the flow's teardown):

- SIGINT (exit 130) and SIGTERM (exit 143) print one line with the way to resume and end the
  process at once;
- a server that went away (`Server.look`: the temporary server's process exited, or nothing
  accepts a connection for `GONE_AFTER_S`) stops the run with one line naming the task, the
  server, who started it and how to resume (exit 75, sysexits' "try again later").

The task is saved whenever this happens: its history is appended and fsync'd event by event, so
the process first waits (`QUIESCE_S` at most) for an append under way and then leaves; `cairn
resume` continues from the first unfinished call, settling a call cut off as after any crash.

>>> Guard("ws", "t").signal_line(signal.SIGTERM)
'interrupted (SIGTERM) before task t was created: nothing to resume'
"""

from __future__ import annotations

import contextvars
import fcntl
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import NoReturn, TypeVar

from cairn.flows.cli.server_watch import Server

T = TypeVar("T")
EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}  # 128 + the signal, as a shell reports it
SERVER_GONE = 75  # sysexits' EX_TEMPFAIL: the task is fine, try again once a server runs
GONE_AFTER_S = 3.0  # a server refusing connections this long is gone (a busy one answers late)
QUIESCE_S = 2.0  # how long a stop waits for an append to the history under way


@dataclass
class Guard:
    """Stops the command in one line; `task_id` is filled in once the run's task is known."""

    workspace: str
    task_id: str | None = None

    @contextmanager
    def signals(self) -> Iterator[Guard]:
        """SIGINT and SIGTERM stop the process for as long as the command runs."""
        handlers = {sig: signal.signal(sig, self._on_signal) for sig in EXIT_CODES}
        try:
            yield self
        finally:
            for sig, before in handlers.items():
                signal.signal(sig, before)

    def run(self, work: Callable[[], T], server: Server | None) -> T:
        """`work()` in a thread of its own (with this thread's context: the task's claim), while
        this thread watches the server; returns what it returns, raises what it raises."""
        done: Future[T] = Future()
        context = contextvars.copy_context()

        def target() -> None:
            try:
                done.set_result(context.run(work))
            except BaseException as exc:  # handed to the main thread below
                done.set_exception(exc)

        threading.Thread(target=target, name="cairn-run", daemon=True).start()
        gone_since: float | None = None
        # `wait`, not `result(timeout=)`: the work may itself raise TimeoutError, which that would hide.
        while not wait([done], timeout=server.poll_s if server else 1.0).done:
            if server is None:
                continue
            state = server.look()  # a busy server neither starts nor ends the count
            if state == "up":
                gone_since = None
            elif state == "gone" and gone_since is None:
                gone_since = time.monotonic()
            if gone_since is not None and (server.dead() or time.monotonic() - gone_since >= GONE_AFTER_S):
                self.stop(f"error: {self.gone_line(server)}", SERVER_GONE)
        return done.result()

    def gone_line(self, server: Server) -> str:
        resume = f"cairn resume {self.task_id} --workspace {self.workspace}"
        return (
            f"task {self.task_id} stopped: {server.described()} went away; the task is saved: "
            f"{server.resume_hint(resume)}"
        )

    def signal_line(self, sig: int) -> str:
        name = signal.Signals(sig).name
        if self.task_id is None:
            return f"interrupted ({name}) before the task was created: nothing to resume"
        if not (Path(self.workspace) / "tasks" / self.task_id / "history.jsonl").is_file():
            return f"interrupted ({name}) before task {self.task_id} was created: nothing to resume"
        return (
            f"interrupted ({name}): task {self.task_id} is saved; continue with: "
            f"cairn resume {self.task_id} --workspace {self.workspace}"
        )

    def _on_signal(self, sig: int, frame: FrameType | None) -> None:
        self.stop(self.signal_line(sig), EXIT_CODES[signal.Signals(sig)])

    def stop(self, line: str, code: int) -> NoReturn:
        """One line on stderr, then out at once: no thread, no server and no model call is waited
        for (a temporary server dies with this process, `cairn.flows.server.ephemeral`)."""
        with suppress(OSError):
            self._quiesce()
        with suppress(Exception):
            sys.stdout.flush()
        os.write(2, f"cairn: {line}\n".encode("utf-8", "backslashreplace"))  # no lock a thread may hold
        os._exit(code)

    def _quiesce(self) -> None:
        """Wait, briefly, until no thread is appending to the task's history (an append holds its
        `flock`); an append cut off would only leave a torn last line, which the next one cuts."""
        if self.task_id is None:
            return
        path = Path(self.workspace) / "tasks" / self.task_id / "history.jsonl"
        fd = os.open(path, os.O_RDONLY)
        deadline = time.monotonic() + QUIESCE_S
        while time.monotonic() < deadline:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return  # held until the process ends: no append starts after this
            except BlockingIOError:
                time.sleep(0.02)
