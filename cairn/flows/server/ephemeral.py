"""The temporary Prefect server of a `cairn run` or `cairn resume` that finds no server running.

Prefect's own ephemeral mode starts `uvicorn ... prefect.server.api.server` as a plain child and
stops it from an `atexit` hook, so a SIGKILL or SIGTERM of the command left it running under init
for good. Cairn starts that same server itself (same app factory, same flags, same database under
`PREFECT_HOME`) and points `PREFECT_API_URL` at it, so Prefect never starts its own:

- the child asks the kernel for SIGTERM when its parent dies (`PR_SET_PDEATHSIG`, Linux), set by a
  few lines of Python that then exec uvicorn, so it holds through the exec; if the parent died
  before that, the child exits at once. The parent is the main thread of the command, which
  lives as long as the process (the signal follows the thread that forked, not the process).
- a clean exit stops it too (`atexit`: SIGTERM, then SIGKILL after 5 s).
- it may take long to start on a loaded machine (migrations, imports): Cairn waits
  `CAIRN_SERVER_START_TIMEOUT` seconds (default 120, Prefect's own limit is 20) and then fails
  in one line that says what to do.

>>> server = start_ephemeral(timeout=120)  # doctest: +SKIP
>>> server.api_url  # doctest: +SKIP
'http://127.0.0.1:41234/api'
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.core import CairnError

START_TIMEOUT_S = 120.0
PORT_IN_USE = 3  # uvicorn's exit status when it cannot bind

# Run by the child before it becomes the server: die with the parent, even one killed by SIGKILL.
_DIE_WITH_PARENT = """\
import ctypes, os, signal, sys
if sys.platform.startswith("linux"):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    sys.exit(0)  # the parent died before the request took effect
os.execv(sys.argv[2], sys.argv[2:])
"""


def dying_with_this_process(command: list[str]) -> list[str]:
    """`command` (an absolute program path first) wrapped so that, started with `Popen` from the
    main thread, the child gets SIGTERM when this process ends, however it ends."""
    return [sys.executable, "-c", _DIE_WITH_PARENT, str(os.getpid()), *command]


class ServerStartError(CairnError):
    """The temporary Prefect server did not come up."""


@dataclass
class EphemeralServer:
    process: subprocess.Popen[bytes]
    api_url: str

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


_owned: list[EphemeralServer] = []


def owns(api_url: str) -> bool:
    """Whether `api_url` is a server this process started (it dies with us: no watchdog needed)."""
    return owned(api_url) is not None


def owned(api_url: str) -> EphemeralServer | None:
    """The server this process started at `api_url`, if it did."""
    return next((server for server in _owned if server.api_url == api_url), None)


def configured_api_url(env: Mapping[str, str], cwd: Path) -> str | None:
    """A Prefect API URL set where Prefect itself would find it without `PREFECT_API_URL` in the
    environment: a `.env`, `prefect.toml` or `pyproject.toml` in `cwd`, or the active profile.
    Cairn then starts no server of its own and leaves the choice to Prefect (read here, because
    importing Prefect to ask it takes seconds and freezes its settings before `prepare` is done).

    >>> configured_api_url({"PREFECT_HOME": "/nonexistent"}, Path("/nonexistent")) is None
    True
    """
    dotenv = _read(cwd / ".env")
    for line in dotenv.splitlines():
        name, _, value = line.strip().partition("=")
        if name.strip() == "PREFECT_API_URL" and value.strip():
            return value.strip().strip("'\"")
    for path, keys in (
        (cwd / "prefect.toml", ("api",)),
        (cwd / "pyproject.toml", ("tool", "prefect", "api")),
    ):
        table: Any = _toml(path)
        for key in keys:
            table = table.get(key) if isinstance(table, dict) else None
        url = table.get("url") if isinstance(table, dict) else None
        if isinstance(url, str) and url:
            return url
    home = Path(env.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    profiles = _toml(Path(env.get("PREFECT_PROFILES_PATH") or home / "profiles.toml").expanduser())
    active = env.get("PREFECT_PROFILE") or profiles.get("active")
    profile = profiles.get("profiles", {}).get(active) if isinstance(active, str) else None
    url = profile.get("PREFECT_API_URL") if isinstance(profile, dict) else None
    return url if isinstance(url, str) and url else None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError:
        return {}


def start_ephemeral(timeout: float = START_TIMEOUT_S, log: Path | None = None) -> EphemeralServer:
    """Start the server, wait until it answers, and return it (see the module docstring)."""
    deadline = time.monotonic() + timeout
    while True:
        port = _free_port()
        process = _spawn(port, log)
        server = EphemeralServer(process, f"http://127.0.0.1:{port}/api")
        _owned.append(server)
        atexit.register(server.stop)
        status = _wait(server, deadline)
        if status is None:
            return server
        if status != PORT_IN_USE:
            raise ServerStartError(_failure(server, status, timeout, log))


def _spawn(port: int, log: Path | None) -> subprocess.Popen[bytes]:
    spec = importlib.util.find_spec("prefect")
    app_dir = str(Path(spec.origin).parent.parent) if spec and spec.origin else "."
    uvicorn = ["-m", "uvicorn", "--app-dir", app_dir, "--factory", "prefect.server.api.server:create_app"]
    flags = ["--host", "127.0.0.1", "--port", str(port), "--log-level", "error", "--lifespan", "on"]
    env = {
        **os.environ,
        "PREFECT_UI_ENABLED": "0",
        "PREFECT__SERVER_EPHEMERAL": "1",
        "PREFECT__SERVER_FINAL": "1",
    }
    env.pop("PREFECT_API_URL", None)
    output = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    try:
        return subprocess.Popen(
            dying_with_this_process([sys.executable, *uvicorn, *flags]),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
        )
    finally:
        if log:
            output.close()  # type: ignore[union-attr]


def _wait(server: EphemeralServer, deadline: float) -> int | None:
    """None once the server answers; its exit status if it died; -1 past the deadline."""
    while time.monotonic() < deadline:
        status = server.process.poll()
        if status is not None:
            return status
        if _healthy(server.api_url):
            return None
        time.sleep(0.2)
    server.stop()
    return -1


def _healthy(api_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _failure(server: EphemeralServer, status: int, timeout: float, log: Path | None) -> str:
    where = f" (its log: {log})" if log else ""
    if status == -1:
        return (
            f"the temporary Prefect server did not answer within {timeout:g} s{where}; the machine "
            "may be busy: start one with `cairn server start` (runs then use it), or raise "
            "CAIRN_SERVER_START_TIMEOUT"
        )
    return f"the temporary Prefect server exited with status {status} while starting{where}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
