"""Run one command as a contained subprocess: scrubbed environment, rlimits, a deadline, capped output.

The agent writes code and runs it on the user's machine, where the user's API keys live in the
environment. So a child gets only allow-listed variables (never one whose name looks secret), its
own session and process group (so the group can be killed whole, background children included),
CPU, address-space and file-size limits, and a wall-clock deadline. Output is read as it arrives and only the
first `output_cap_bytes` of each stream are kept, so 50 MB of output costs no more RAM than the cap.

>>> r = run_sandboxed(["echo", "hi"], cwd=Path("."), timeout_s=5, cpu_s=5, address_space_mb=256,
...                   output_cap_bytes=1000)
>>> (r.exit_code, r.stdout, r.timed_out)
(0, 'hi\\n', False)

Not a jail: the child can read any file the user can. The file tools are jailed by `paths`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import resource
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from cairn.core import Frozen

MB = 1024 * 1024
DEFAULT_ALLOW: frozenset[str] = frozenset(
    {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM", "SYSTEMROOT", "PYTHONIOENCODING"}
)
# Name fragments that mark a variable as secret; such a variable never reaches a child.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.IGNORECASE)
EXIT_NOT_STARTED = 127  # what a shell reports for a command it cannot run
_GRACE_S = 0.2  # after the main process exits, how long a background child may hold the pipes open
_POLL_S = 0.05  # how often a quiet child is checked for having exited
_PIPE_BYTES = MB  # a larger pipe means fewer wake-ups: 50 MB of output is 50 reads, not 800
_NO_ENV: Mapping[str, str] = MappingProxyType({})


class ProcessResult(Frozen):
    """What a sandboxed command did. `exit_code` is negative when a signal ended it."""

    argv: list[str]
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    output_truncated: bool = False
    bytes_dropped: int = 0  # over both streams
    duration_s: float = 0.0
    killed_signal: int | None = None


def run_sandboxed(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout_s: float,
    cpu_s: int,
    address_space_mb: int,
    output_cap_bytes: int,
    env_allow: Collection[str] = DEFAULT_ALLOW,
    extra_env: Mapping[str, str] = _NO_ENV,
    max_file_mb: int = 256,
    parent_env: Mapping[str, str] | None = None,
) -> ProcessResult:
    """Run `argv` in `cwd` under limits; never raises for a command that fails or cannot start.

    `extra_env` is passed as given (for `PYTHONPATH`, say) but may not hold a secret-looking name.
    `parent_env` defaults to this process's environment; only allow-listed names are copied.
    """
    with tempfile.TemporaryDirectory(prefix="cairn-home-") as home:
        env = build_env(os.environ if parent_env is None else parent_env, env_allow, extra_env, home)
        limits = _rlimits(cpu_s, address_space_mb, max_file_mb)
        return _run(list(argv), cwd, env, limits, timeout_s, output_cap_bytes)


def build_env(
    parent: Mapping[str, str], allow: Collection[str], extra: Mapping[str, str], home: str
) -> dict[str, str]:
    """The child's whole environment: allow-listed, non-secret names, a private HOME and TMPDIR.

    >>> build_env({"PATH": "/bin", "OPENAI_API_KEY": "sk-x", "USER": "me"}, DEFAULT_ALLOW, {}, "/h")
    {'PATH': '/bin', 'HOME': '/h', 'TMPDIR': '/h'}
    """
    secret = [name for name in extra if SECRET_NAME.search(name)]
    if secret:
        raise ValueError(f"refusing to pass secret-looking variables to a subprocess: {secret}")
    env = {name: value for name, value in parent.items() if name in allow and not SECRET_NAME.search(name)}
    env.update(HOME=home, TMPDIR=home)  # a private, throw-away home: no dotfiles, no user config
    env.update(extra)
    return env


def _rlimits(cpu_s: int, address_space_mb: int, max_file_mb: int) -> Callable[[], None]:
    """The function the child runs between fork and exec to limit itself.

    Limits are worked out here, in the parent, so the child only makes `setrlimit` calls (little
    can go wrong between fork and exec). Each is clamped to the current hard limit, which an
    unprivileged process cannot raise. No RLIMIT_NPROC: it counts every process of the user, not of
    this child, so it would break the user's other work (and root ignores it); the process group
    kill covers runaway children instead.
    """
    limits = [
        _clamped(resource.RLIMIT_CPU, cpu_s, cpu_s + 1),  # SIGXCPU at the soft limit, SIGKILL at the hard
        _clamped(resource.RLIMIT_AS, address_space_mb * MB, address_space_mb * MB),
        _clamped(resource.RLIMIT_FSIZE, max_file_mb * MB, max_file_mb * MB),
        (resource.RLIMIT_CORE, (0, 0)),
    ]

    def apply() -> None:
        for kind, pair in limits:
            resource.setrlimit(kind, pair)

    return apply


def _clamped(kind: int, soft: int, hard: int) -> tuple[int, tuple[int, int]]:
    _, current = resource.getrlimit(kind)
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    return kind, (soft, hard)


def _run(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    limits: Callable[[], None],
    timeout_s: float,
    cap: int,
) -> ProcessResult:
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: one killpg reaches every descendant
            preexec_fn=limits,  # only setrlimit calls: safe enough even with threads running
            close_fds=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return ProcessResult(argv=argv, exit_code=EXIT_NOT_STARTED, stdout="", stderr=f"cannot start: {exc}")
    with proc:  # on exit: pipes closed, the child reaped
        try:
            out, err, timed_out = _collect(proc, started + timeout_s, cap)
        finally:
            _kill_group(proc.pid)  # always: a background child must not outlive its command
    return _result(argv, proc.returncode, out, err, timed_out, time.monotonic() - started)


class CappedOutput:
    """The first `cap` bytes of a stream, and a count of the bytes dropped after them."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[bytes] = []
        self.kept = 0
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        keep = chunk[: max(self.cap - self.kept, 0)]
        if keep:
            self.parts.append(keep)
            self.kept += len(keep)
        self.dropped += len(chunk) - len(keep)

    def text(self) -> str:
        return b"".join(self.parts).decode("utf-8", "replace")


def _collect(
    proc: subprocess.Popen[bytes], deadline: float, cap: int
) -> tuple[CappedOutput, CappedOutput, bool]:
    """Read both pipes until they close or the deadline; report whether the deadline hit first."""
    assert proc.stdout is not None and proc.stderr is not None
    out, err = CappedOutput(cap), CappedOutput(cap)
    streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    closed = _drain(streams, deadline, proc.pid)
    exited = _exit_by(proc.pid, deadline) if closed else _has_exited(proc.pid)
    return out, err, not exited


def _exit_by(pid: int, deadline: float) -> bool:
    """Wait (until the deadline) for a command whose pipes closed to exit: `echo` closes them just
    before it exits, and the group's kill after this reported it as killed (-9) one run in two."""
    while not _has_exited(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.002)
    return True


def _drain(streams: dict[int, CappedOutput], deadline: float, pid: int) -> bool:
    """Read every pipe to its end; False if stopped by the deadline.

    A background child that inherited the pipes keeps them open after the command itself exits; so
    once the command has exited, the pipes get only `_GRACE_S` more before the group is killed.
    """
    with selectors.DefaultSelector() as selector:
        for fd in streams:
            _widen_pipe(fd)
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            now = time.monotonic()
            if now >= deadline:
                return False
            if _has_exited(pid):
                deadline = min(deadline, now + _GRACE_S)
            for key, _ in selector.select(timeout=min(deadline - now, _POLL_S)):
                chunk = os.read(key.fd, _PIPE_BYTES)
                if chunk:
                    streams[key.fd].add(chunk)
                else:
                    selector.unregister(key.fd)
    return True


def _widen_pipe(fd: int) -> None:
    # Not Linux, or over the user's pipe quota: the default size only costs speed.
    with contextlib.suppress(AttributeError, OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


def _has_exited(pid: int) -> bool:
    """True once `pid` has exited, without reaping it: while it is a zombie its pid (and so its
    process group id) cannot be reused, so the final killpg cannot hit a stranger's group."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is already empty
        os.killpg(pgid, signal.SIGKILL)


def _result(
    argv: list[str], code: int, out: CappedOutput, err: CappedOutput, timed_out: bool, seconds: float
) -> ProcessResult:
    return ProcessResult(
        argv=argv,
        exit_code=code,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
        output_truncated=out.dropped + err.dropped > 0,
        bytes_dropped=out.dropped + err.dropped,
        duration_s=round(seconds, 3),
        killed_signal=-code if code < 0 else None,
    )
