"""`cairn server start|stop|status`: one local Prefect server for every Cairn command on the machine.

The server's pid and URLs live in `CAIRN_HOME/server.json` (default `~/.cairn`); its SQLite
database and logs live beside it, or it uses PostgreSQL when given `--database-url`
(`CAIRN_PREFECT_DATABASE_URL`). `cairn run` reads the file before Prefect is imported
(`cairn.flows.runtime.prepare`) and sends its runs there; without a live server it runs ephemerally.

>>> info = start_server(cairn_home(), port=4200)  # doctest: +SKIP
>>> info.ui_url  # doctest: +SKIP
'http://127.0.0.1:4200'
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from pydantic import BaseModel

from cairn.core import CairnError

# Server-side settings Cairn applies (also to the ephemeral server a run starts): the task-run
# recorder and event persister write in batches instead of one transaction per event, so the
# API's own writes (a new subflow's task run) meet SQLite's write lock less often; every meeting
# costs a 503 and a 2-second client back-off. See docs/orchestration.md.
SERVER_TUNING = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "200",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "2",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_BATCH_SIZE": "500",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_FLUSH_INTERVAL": "3",
}


class ServerInfo(BaseModel):
    pid: int
    api_url: str
    ui_url: str
    database: str  # "sqlite:PATH" or the PostgreSQL URL without its password
    log: str


class ServerError(CairnError):
    """The server could not be started, or is not running."""


def info_path(home: Path) -> Path:
    return home / "server.json"


def read_info(home: Path) -> ServerInfo | None:
    """The recorded server if its process is still alive, else None."""
    try:
        info = ServerInfo.model_validate_json(info_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if alive(info.pid) else None


def healthy(api_url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=timeout) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def wait_until_healthy(api_url: str, timeout: float = 90.0, poll: float = 0.3) -> None:
    """Poll `/health` until the server answers 200 (it can answer 503 for a few seconds at start).

    >>> wait_until_healthy("http://127.0.0.1:1/api", timeout=0.1)
    Traceback (most recent call last):
    cairn.flows.server.server.ServerError: Prefect server at http://127.0.0.1:1/api not healthy after 0s
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if healthy(api_url):
            return
        time.sleep(poll)
    raise ServerError(f"Prefect server at {api_url} not healthy after {timeout:.0f}s")


def start_server(
    home: Path,
    host: str = "127.0.0.1",
    port: int = 4200,
    database_url: str | None = None,
    timeout: float = 120.0,
) -> ServerInfo:
    """Start `prefect server start` in the background and wait until `/api/health` answers."""
    running = read_info(home)
    if running is not None:
        return running
    home.mkdir(parents=True, exist_ok=True)
    api_url, ui_url = f"http://{host}:{port}/api", f"http://{host}:{port}"
    env = {
        **os.environ,
        **SERVER_TUNING,
        "PREFECT_HOME": str(home / "prefect"),
        "PREFECT_UI_ENABLED": "true",
        "PREFECT_UI_API_URL": api_url,
    }  # the UI page calls this, not port 4200 (FIELD-NOTES)
    env.pop("PREFECT_API_URL", None)
    if database_url:
        env["PREFECT_SERVER_DATABASE_CONNECTION_URL"] = database_url
    log = home / "server.log"
    prefect = str(Path(sys.executable).parent / "prefect")
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [prefect, "server", "start", "--host", host, "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    info = ServerInfo(
        pid=proc.pid,
        api_url=api_url,
        ui_url=ui_url,
        log=str(log),
        database=_redact_url(database_url) if database_url else f"sqlite:{home / 'prefect'}",
    )
    info_path(home).write_text(info.model_dump_json(), encoding="utf-8")
    _wait_healthy(proc, info, timeout)
    return info


def _wait_healthy(proc: subprocess.Popen[bytes], info: ServerInfo, timeout: float) -> None:
    # Right after start the API can answer 503 for a few seconds: poll until it says healthy.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerError(f"prefect server exited with code {proc.returncode}; see {info.log}")
        if healthy(info.api_url):
            return
        time.sleep(0.5)
    raise ServerError(f"prefect server not healthy after {timeout:.0f}s; see {info.log}")


def stop_server(home: Path, timeout: float = 20.0) -> ServerInfo | None:
    """Stop the recorded server (its whole process group); returns what was stopped."""
    info = read_info(home)
    info_path(home).unlink(missing_ok=True)
    if info is None:
        return None
    stop_process_group(info.pid, timeout)
    return info


def stop_process_group(pid: int, timeout: float) -> None:
    """SIGTERM a process group, then SIGKILL it if its leader outlives `timeout` seconds."""
    os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if alive(pid):
        os.killpg(pid, signal.SIGKILL)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours is dead too
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return True


def _redact_url(url: str) -> str:
    head, sep, tail = url.rpartition("@")
    if not sep or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, creds = head.partition("//")
    return f"{scheme}//{creds.split(':', 1)[0]}:***@{tail}"


def status_payload(home: Path) -> dict[str, object]:
    info = read_info(home)
    if info is None:
        return {"running": False, "home": str(home)}
    return {"running": True, "healthy": healthy(info.api_url), **json.loads(info.model_dump_json())}
