"""Prefect's cost per BFS iteration and per tool call, Prefect's defaults against Cairn's settings.

An iteration here is what Cairn's is to Prefect: one subflow run, 5 tool task runs submitted at
once, from a parent flow run; the tools do nothing, and no model is called, so what is measured is
orchestration alone. Each configuration runs in a fresh process, in ephemeral mode and against a
local `prefect server start` on SQLite (a default one, and one with Cairn's server settings, as
`cairn server start` runs it). Medians; the first iteration (warm-up) is left out.

With a server a Cairn task is a deployment run executed in the foreground, its iterations chained
in the run graph (`wait_for` the previous one) with untraced arguments: the `deployment` variant
measures that shape (Cairn's settings, on the same tuned server as `cairn`, the two measured in
the order cairn, deployment, deployment, cairn, deployment, cairn, cairn, deployment).

    python bench/orchestration.py                 # a table
    python bench/orchestration.py --json          # {"ephemeral": {...}, "server": {...}} (Cairn's settings)
    python bench/orchestration.py --iterations 20
    python bench/orchestration.py --iterations 3 --modes server --rounds 1   # a smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CALLS = 5
SEQUENTIAL_CALLS = 20


def _trivial(key: object, value: int) -> int:
    return value


def worker(variant: str, iterations: int) -> dict[str, float]:
    """Runs inside the measured process; returns medians in milliseconds."""
    from prefect import flow, task
    from prefect.utilities.annotations import quote

    from cairn.core import CallKey
    from cairn.flows.prefect.internals import fresh_task_run_keys
    from cairn.flows.prefect.task_defaults import iteration_settings, prefect_task

    tuned = variant != "default"
    tool = prefect_task(name="tool")(_trivial) if tuned else task(_trivial, name="tool")
    run = uuid.uuid4().hex[:8]

    @flow(name="bench-iteration", flow_run_name="iteration-{n}", persist_result=True)
    def iteration(n: int) -> int:
        keys = [CallKey(task_id=run, iteration=n, index=i, kind="tool") for i in range(1, CALLS + 1)]
        futures = [tool.submit(key, i) for i, key in enumerate(keys)]
        return sum(f.result() for f in futures)

    previous: list[object] = []

    def chained(n: int) -> None:  # as cairn.flows.prefect.flow runs an iteration
        state = iteration(quote(n), return_state=True, wait_for=previous[-1:])
        previous.append(state)
        state.result()

    step = chained if variant == "deployment" else iteration

    @flow(name="bench-task")
    def parent() -> dict[str, float]:
        if variant == "deployment":
            fresh_task_run_keys()  # as cairn.flows.prefect.flow.run_task does
        with iteration_settings() if tuned else nullcontext():
            per_iteration = [_timed(step, n) for n in range(1, iterations + 1)][1:]
            per_call = [
                _timed(tool, CallKey(task_id=run, iteration=0, index=i, kind="tool"), i)
                for i in range(SEQUENTIAL_CALLS)
            ][1:]
        return {"iteration_ms": statistics.median(per_iteration), "tool_call_ms": statistics.median(per_call)}

    if variant != "deployment":
        return parent()
    return _as_deployment_run(parent)


def _as_deployment_run(parent):  # type: ignore[no-untyped-def]
    """Run `parent` as `cairn run` runs a task on a server: a Pending run of a deployment."""
    from prefect.client.orchestration import get_client
    from prefect.flow_engine import run_flow
    from prefect.settings import PREFECT_API_URL
    from prefect.states import Pending

    from cairn.flows.prefect.worker import ensure_pool

    ensure_pool(str(PREFECT_API_URL.value()), "bench-pool")
    with get_client(sync_client=True) as client:
        flow_id = client.create_flow_from_name("bench-task")
        deployment = client.create_deployment(
            flow_id=flow_id,
            name="bench",
            entrypoint="bench/orchestration.py:parent",
            work_pool_name="bench-pool",
        )
        run = client.create_flow_run_from_deployment(deployment, parameters={}, state=Pending())
    return run_flow(parent, flow_run=run)


def _timed(fn, *args) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    fn(*args)
    return round(1000 * (time.perf_counter() - started), 1)


def cairn_env() -> dict[str, str]:
    from cairn.flows.runtime import QUIET
    from cairn.flows.server.server import SERVER_TUNING

    return {**QUIET, **SERVER_TUNING}


def measure(variant: str, iterations: int, api_url: str | None) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "CAIRN_"))}
    home = tempfile.mkdtemp(prefix="cairn-bench-home-")
    env.update(
        {
            "PREFECT_HOME": home,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
        }
    )  # a fresh database migrates first
    if variant != "default":
        env.update(cairn_env())
    if api_url:
        env["PREFECT_API_URL"] = api_url
    cmd = [sys.executable, __file__, "--worker", variant, "--iterations", str(iterations)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {variant} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


@contextmanager
def local_server(tuned: bool) -> Iterator[str]:
    """A throwaway `prefect server start` on SQLite, with Prefect's defaults or Cairn's settings."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    home = tempfile.mkdtemp(prefix="cairn-bench-server-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(
        {"PREFECT_HOME": home, "PREFECT_UI_ENABLED": "false", "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    )
    if tuned:
        env.update(cairn_env())
    prefect = str(Path(sys.executable).parent / "prefect")
    with open(Path(home) / "server.log", "wb") as log:
        proc = subprocess.Popen(
            [prefect, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}/api"
    try:
        _wait_healthy(url)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _wait_healthy(url: str, timeout: float = 120.0) -> None:
    from cairn.flows.server.server import wait_until_healthy

    wait_until_healthy(url, timeout, poll=0.5)


def run_all(iterations: int, modes: list[str], rounds: int) -> dict[str, dict[str, dict[str, float]]]:
    figures: dict[str, dict[str, dict[str, float]]] = {mode: {} for mode in modes}
    if "ephemeral" in modes:
        for variant in ("default", "cairn"):
            figures["ephemeral"][variant] = measure(variant, iterations, None)
    if "server" in modes:
        with local_server(tuned=False) as url:
            figures["server"]["default"] = measure("default", iterations, url)
        with local_server(tuned=True) as url:
            figures["server"].update(paired(["cairn", "deployment"], iterations, url, rounds))
    return figures


def paired(variants: list[str], iterations: int, url: str, rounds: int = 2) -> dict[str, dict[str, float]]:
    """The variants on one server in the order A B B A B A A B (`rounds` 2; 1 is A B B A), each the
    mean of its medians: later runs on one server tend to be slower (212 to 313 ms per iteration
    over 12 runs of 40 once) and the machine drifts, so a fixed order bills that drift to whichever
    variant runs second (it read as +21% once); one A B B A still left +-10% of noise between runs."""
    ab, ba = [*variants], [*reversed(variants)]
    order = [*ab, *ba, *ba, *ab][: 4 * max(1, min(rounds, 2))]
    runs = [(variant, measure(variant, iterations, url)) for variant in order]
    return {
        variant: {
            figure: round(statistics.mean(row[figure] for v, row in runs if v == variant), 1)
            for figure in ("iteration_ms", "tool_call_ms")
        }
        for variant in variants
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="one JSON object: Cairn's settings only")
    parser.add_argument("--modes", default="ephemeral,server", help="comma list: ephemeral, server")
    parser.add_argument("--rounds", type=int, default=2, help="2: A B B A B A A B on the server; 1: A B B A")
    parser.add_argument("--worker", choices=["default", "cairn", "deployment"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.iterations)))
        return
    modes = [mode for mode in ("ephemeral", "server") if mode in args.modes.split(",")]
    figures = run_all(args.iterations, modes, args.rounds)
    if args.json:
        print(json.dumps(_summary(figures)))
        return
    print(
        f"Prefect orchestration overhead, medians of {args.iterations - 1} iterations of {CALLS} trivial "
        f"tool calls and {SEQUENTIAL_CALLS - 1} sequential calls"
    )
    print(f"{'mode':<10} {'settings':<10} {'iteration ms':>13} {'tool call ms':>13}")
    for mode, by_variant in figures.items():
        for variant, row in by_variant.items():
            print(f"{mode:<10} {variant:<10} {row['iteration_ms']:>13.0f} {row['tool_call_ms']:>13.1f}")
    if "server" in figures:
        ratio = _ratio(figures["server"])
        print(f"a task as a deployment run, per iteration: {ratio:.2f} x the plain flow run")


def _summary(figures: dict[str, dict[str, dict[str, float]]]) -> dict[str, object]:
    """The `--json` object: Cairn's settings per mode, and the deployment-run shape on the server."""
    summary: dict[str, object] = {mode: figures[mode]["cairn"] for mode in figures}
    if "server" in figures:
        summary["server_deployment"] = figures["server"]["deployment"]
        summary["deployment_over_cairn"] = _ratio(figures["server"])
    return summary


def _ratio(server: dict[str, dict[str, float]]) -> float:
    return round(server["deployment"]["iteration_ms"] / server["cairn"]["iteration_ms"], 3)


if __name__ == "__main__":
    main()
