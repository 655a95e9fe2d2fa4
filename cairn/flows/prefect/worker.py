"""`cairn worker start|stop`: a Prefect process worker that runs Cairn's deployments on this machine.

`start` creates the work pool when it is missing (type `process`, Prefect's default job template),
then starts `prefect worker start --pool NAME --type process` in the background against the server
`cairn server start` runs (or `PREFECT_API_URL`), and records its pid in
`CAIRN_HOME/worker-{pool}.json`; `stop` ends that process group. The worker starts each flow run
as a subprocess of its own, so several runs of a pool execute at once (`--limit` caps them).

>>> info = start_worker(cairn_home(), "cairn-local", "http://127.0.0.1:4200/api")  # doctest: +SKIP
>>> info.pid  # doctest: +SKIP
12345
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from pydantic import BaseModel

from cairn.core import CairnError
from cairn.flows.server.server import alive, read_info, stop_process_group

DEFAULT_POOL = "cairn-local"


class WorkerInfo(BaseModel):
    pid: int
    pool: str
    api_url: str
    log: str


class WorkerError(CairnError):
    """No server to work for, or the worker did not start."""


def worker_path(home: Path, pool: str) -> Path:
    return home / f"worker-{pool}.json"


def read_worker(home: Path, pool: str) -> WorkerInfo | None:
    """The recorded worker of `pool` if its process is still alive, else None."""
    try:
        info = WorkerInfo.model_validate_json(worker_path(home, pool).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if alive(info.pid) else None


def resolve_api_url(home: Path, env: dict[str, str] | None = None) -> str:
    """`PREFECT_API_URL` when set, else the API of the server `cairn server start` runs."""
    env = dict(os.environ) if env is None else env
    if env.get("PREFECT_API_URL"):
        return env["PREFECT_API_URL"]
    server = read_info(home)
    if server is None:
        raise WorkerError("a worker needs a Prefect server: `cairn server start` (or set PREFECT_API_URL)")
    return server.api_url


def ensure_pool(api_url: str, pool: str) -> bool:
    """Create the process work pool `pool` unless it exists; returns True when it was created."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound
    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect.workers.process import ProcessWorker

    # Settings are read when Prefect is imported; the URL may come from server.json, not the env.
    with temporary_settings(updates={PREFECT_API_URL: api_url}), get_client(sync_client=True) as client:
        try:
            client.read_work_pool(pool)
            return False
        except ObjectNotFound:
            pass
        template = ProcessWorker.get_default_base_job_template()  # what `prefect work-pool create` uses
        try:
            client.create_work_pool(WorkPoolCreate(name=pool, type="process", base_job_template=template))
        except ObjectAlreadyExists:  # another `cairn worker start` won the race: same outcome
            return False
        return True


def start_worker(
    home: Path, pool: str, api_url: str, limit: int | None = None, env: dict[str, str] | None = None
) -> WorkerInfo:
    """Start a process worker for `pool` in the background (one per pool per CAIRN_HOME)."""
    running = read_worker(home, pool)
    if running is not None:
        return running
    ensure_pool(api_url, pool)
    home.mkdir(parents=True, exist_ok=True)
    log = home / f"worker-{pool}.log"
    prefect = str(Path(sys.executable).parent / "prefect")
    command = [prefect, "worker", "start", "--pool", pool, "--type", "process"]
    if limit is not None:
        command += ["--limit", str(limit)]
    child_env = {**(dict(os.environ) if env is None else env), "PREFECT_API_URL": api_url}
    with open(log, "ab") as out:
        # A session of its own: `stop` ends the worker and the flow-run processes it started together.
        proc = subprocess.Popen(
            command,
            env=child_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    info = WorkerInfo(pid=proc.pid, pool=pool, api_url=api_url, log=str(log))
    worker_path(home, pool).write_text(info.model_dump_json(), encoding="utf-8")
    time.sleep(0.5)
    if proc.poll() is not None:
        raise WorkerError(f"prefect worker exited with code {proc.returncode}; see {log}")
    return info


def stop_worker(home: Path, pool: str, timeout: float = 20.0) -> WorkerInfo | None:
    """Stop the recorded worker of `pool` (its whole process group); returns what was stopped."""
    info = read_worker(home, pool)
    worker_path(home, pool).unlink(missing_ok=True)
    if info is None:
        return None
    stop_process_group(info.pid, timeout)  # on SIGTERM the worker cancels what it runs, then exits
    return info
