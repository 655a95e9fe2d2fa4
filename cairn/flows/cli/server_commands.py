"""What `cairn server`, `cairn worker`, `cairn ui`, `cairn serve` and `cairn migrate` do, once their
options are parsed.

Errors are raised (`ServerError`, `WorkerError`, `UsageError`) and printed by the CLI's handler.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cairn.core import NotFound, RunConfig
from cairn.flows.cli.arguments import check_workspace
from cairn.flows.console import emit
from cairn.flows.runtime import QUIET, prepare
from cairn.flows.server.server import ServerError, start_server, status_payload, stop_server
from cairn.flows.settings import cairn_home
from cairn.memory.log.workspace import Workspace


def server_command(
    action: str,
    port: int = 4200,
    host: str = "127.0.0.1",
    database_url: str | None = None,
    as_json: bool = False,
    worker: bool = True,
) -> None:
    from cairn.flows.prefect.worker import DEFAULT_POOL, start_worker, stop_worker

    home = cairn_home()
    if action == "start":
        info = start_server(home, host=host, port=port, database_url=database_url)
        payload: dict[str, object] = {"running": True, **json.loads(info.model_dump_json())}
        text = f"Prefect server running (pid {info.pid}, {info.database})\nUI: {info.ui_url}"
        if worker:  # Retry in the UI and submitted review forms need something to run them
            running = start_worker(home, DEFAULT_POOL, info.api_url, env=local_worker_env(home, info.ui_url))
            payload["worker"] = running.model_dump()
            text += f"\nworker for pool {DEFAULT_POOL} running (pid {running.pid}; log {running.log})"
    elif action == "stop":
        gone = stop_worker(home, DEFAULT_POOL)
        stopped = stop_server(home)
        payload = {"running": False, "stopped": stopped is not None, "worker_stopped": gone is not None}
        text = f"stopped the server (pid {stopped.pid})" if stopped else "no server was running"
    else:
        payload = status_payload(home)
        text = (
            f"running (pid {payload['pid']}, healthy: {payload['healthy']})\nUI: {payload['ui_url']}"
            if payload["running"]
            else "no server running (`cairn server start` starts one)"
        )
    _answer(payload, text, as_json)


def worker_command(action: str, pool: str, limit: int | None = None, as_json: bool = False) -> None:
    from cairn.flows.prefect.worker import resolve_api_url, start_worker, stop_worker

    home = cairn_home()
    if action == "start":
        info = start_worker(home, pool, resolve_api_url(home), limit=limit)
        payload: dict[str, object] = {"running": True, **info.model_dump()}
        text = f"worker for pool {pool} running (pid {info.pid}, server {info.api_url})\nlog: {info.log}"
    else:
        stopped = stop_worker(home, pool)
        payload = {"running": False, "stopped": stopped is not None, "pool": pool}
        text = (
            f"stopped the worker of pool {pool} (pid {stopped.pid})"
            if stopped
            else f"no worker was running for pool {pool}"
        )
    _answer(payload, text, as_json)


def local_worker_env(home: Path, ui_url: str) -> dict[str, str]:
    """The environment of the worker `cairn server start` starts: Cairn's quiet settings, the
    server's Prefect home, and a short poll so a Retry starts within seconds."""
    import os

    return {
        **os.environ,
        **QUIET,
        "PREFECT_HOME": str(home / "prefect"),
        "PREFECT_UI_URL": ui_url,
        "PREFECT_WORKER_QUERY_SECONDS": "2",
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
    }


def _answer(payload: dict[str, object], text: str, as_json: bool) -> None:
    if as_json:
        emit(payload)
    else:
        print(text)


def ui_command(config: RunConfig, task_id: str, open_browser: bool) -> None:

    workspace = check_workspace(Path(config.workspace), write=False)
    Workspace(workspace).task(task_id)  # a bad id or no such task: one line, before Prefect
    where = prepare(workspace)
    if "ephemeral" in where:
        raise ServerError(
            "no Prefect server is running: start one with `cairn server start`, then run or resume the task"
        )
    import httpx  # Prefect's HTTP client

    from cairn.flows.prefect.deployment import task_flow_run_url

    try:
        url = task_flow_run_url(task_id)
    except (OSError, httpx.TransportError) as exc:
        raise ServerError(f"cannot reach the Prefect server ({where}): {exc}") from None
    if url is None:
        raise NotFound(f"the server has no flow run for task {task_id!r}")
    print(url)
    if open_browser:
        import webbrowser

        webbrowser.open(url)


def serve_command(
    config: RunConfig,
    goal: str,
    sources: list[str],
    cron: str | None,
    interval: float | None,
    name: str | None,
    model: str | None,
    max_iterations: int | None,
) -> None:

    where = prepare(Path(config.workspace))  # before Prefect's import: it reads PREFECT_API_URL then
    if "ephemeral" in where:
        raise ServerError("`cairn serve` needs a Prefect server: `cairn server start` (or PREFECT_API_URL)")
    from cairn.flows.prefect.serve import deployment_name, serve_task

    print(f"serving {deployment_name(goal)} · {where} · Ctrl-C to stop", flush=True)
    schedule = {"cron": cron, "interval": interval, "name": name}
    serve_task(goal, sources, config.workspace, model, max_iterations, **schedule)  # type: ignore[arg-type]


def migrate_command(config: RunConfig, as_json: bool = False) -> None:
    """Once, after an upgrade: the workspace's results an older Cairn pickled become data, and the
    server's deployments that name a Cairn flow by an older module name today's."""
    workspace = Path(config.workspace)
    where = prepare(workspace)  # before Prefect's import: it reads PREFECT_API_URL then
    from cairn.flows.prefect.deployment import migrate_entrypoints
    from cairn.flows.prefect.result_data import upgrade_task_results

    folder = workspace / "results" / "cairn"
    tasks = sorted(path.name for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []
    results = sum(upgrade_task_results(workspace / "results", task_id) for task_id in tasks)
    changed = migrate_entrypoints(os.environ["PREFECT_API_URL"])
    payload: dict[str, object] = {
        "results": results,
        "deployments": [{"name": name, "from": old, "to": new} for name, old, new in changed],
    }
    lines = [f"{results} pickled result(s) rewritten as data in {workspace}"]
    lines += [f"deployment {name}: {old} -> {new}" for name, old, new in changed]
    lines.append(f"{len(changed)} deployment(s) re-pointed ({where})")
    _answer(payload, "\n".join(lines), as_json)
