"""Scale-out on one machine with real parts: a PostgreSQL cluster, a Prefect server on it, a process
worker, and three Cairn tasks running at once from one deployment into ONE shared workspace.

PostgreSQL comes from Debian's package (installed with apt-get only when no `initdb`/`pg_ctl` is
found under /usr/lib/postgresql/*/bin). The cluster lives in a directory under /tmp, not in
pytest's tmp_path: under root the server runs as the `postgres` account, which must be able to
reach its directory, and pytest's per-user base directory is private to root. Every process
started here is stopped at the end by its own id: the worker and server by their recorded pids
(process groups), the cluster with `pg_ctl stop` on its data directory.

The stage timings print at the end (`pytest -s` shows them).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import pytest

from cairn.core import RunConfig, memory_key
from cairn.flows.prefect.worker import start_worker, stop_worker
from cairn.flows.server.postgres import (
    Cluster,
    ensure_installed,
    find_bin_dir,
    init_cluster,
    start_cluster,
    stop_cluster,
)
from cairn.flows.server.server import alive, start_server, stop_server
from cairn.memory.log.workspace import Workspace
from cairn.memory.store.protocol import SearchFilter
from cairn.tasks.deps import deps_for
from tests.conftest import CORPUS, ROOT, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.scale_out]

POOL = "cairn-scale-out"
DEPLOYMENT = "scale-out"
RULE = "Always cite the source file of every figure."
# town: (name, usable storage, 2025 daily consumption) — each corpus is the example corpus renamed.
TOWNS = {
    "alder-creek": ("Alder Creek", "1,260,000", "8,400"),
    "birch-hollow": ("Birch Hollow", "2,040,000", "6,800"),
    "cedar-falls": ("Cedar Falls", "975,000", "5,200"),
}
MAX_ITERATIONS = 8


@dataclass
class Stack:
    cluster: Cluster
    api_url: str
    home: Path
    pids: dict[str, int]
    timings: dict[str, float] = field(default_factory=dict)


def make_corpus(base: Path, slug: str) -> Path:
    name, storage, daily = TOWNS[slug]
    target = base / slug
    target.mkdir(parents=True)
    for source in CORPUS.iterdir():
        text = source.read_text(encoding="utf-8").replace("Alder Creek", name)
        text = text.replace("1,260,000", storage).replace("8,400", daily)
        (target / source.name).write_text(text, encoding="utf-8")
    return target


def goal(slug: str) -> str:
    # The same rule sentence in all three goals: the product extracts it as one shared constraint.
    question = f"How many days of water does the {TOWNS[slug][0]} reservoir hold"
    return f"{question} at the 2025 average daily consumption? {RULE}"


@contextmanager
def timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    start = time.monotonic()
    yield
    timings[stage] = round(time.monotonic() - start, 1)


@contextmanager
def scale_out_stack(home: Path) -> Iterator[Stack]:
    """PostgreSQL cluster -> Prefect server on it -> process worker; all stopped on exit."""
    timings: dict[str, float] = {}
    with timed(timings, "postgres install (if missing)"):
        bin_dir = find_bin_dir() or ensure_installed()
    root = Path(tempfile.mkdtemp(prefix="cairn-pg-"))
    cluster = None
    try:
        with timed(timings, "cluster init + start"):
            cluster = init_cluster(root, free_port(), secrets.token_hex(12), bin_dir)
            start_cluster(cluster)
        with timed(timings, "prefect server on postgres"):
            server = start_server(home, port=free_port(), database_url=cluster.url)
        # Poll every second (default 10 s): the runs start as soon as they are created.
        env = {**os.environ, "PREFECT_HOME": str(home / "worker"), "PREFECT_WORKER_QUERY_SECONDS": "1"}
        with timed(timings, "worker start (+ pool)"):
            worker = start_worker(home, POOL, server.api_url, env=env)
        pids = {"postgres": cluster.pid() or -1, "server": server.pid, "worker": worker.pid}
        yield Stack(cluster=cluster, api_url=server.api_url, home=home, pids=pids, timings=timings)
    finally:
        with timed(timings, "stop worker, server, cluster"):
            stop_worker(home, POOL)
            stop_server(home)
            if cluster is not None:
                stop_cluster(cluster)
        shutil.rmtree(root, ignore_errors=True)


def deploy(api_url: str) -> None:
    """A deployment of the deployment-friendly wrapper flow, from this checkout, to the pool."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from cairn.flows.prefect.serve import scheduled_task

    with temporary_settings(updates={PREFECT_API_URL: api_url}):
        flow = scheduled_task.from_source(
            source=str(ROOT), entrypoint="cairn/flows/prefect/serve.py:scheduled_task"
        )
        # `to_deployment().apply()`, not `flow.deploy()`: deploy first lists the pool's workers and
        # this client sends that request's limit as null, which the 3.8.8 server refuses (HTTP 422).
        deployment = flow.to_deployment(  # type: ignore[union-attr]
            name=DEPLOYMENT,
            work_pool_name=POOL,
            job_variables={"env": {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "GX_ANALYTICS_ENABLED": "false"}},
        )
        deployment.apply()  # type: ignore[union-attr]  # sync here: no running event loop


def run_all(api_url: str, parameters: list[dict[str, object]], timeout: float) -> list[str]:
    """Start every run at once, wait for all to finish; returns their final state types."""
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: api_url}):
        runs = [run_deployment(f"cairn-scheduled/{DEPLOYMENT}", parameters=p, timeout=0) for p in parameters]
        return asyncio.run(_wait_final([r.id for r in runs], timeout))  # type: ignore[union-attr]


async def _wait_final(ids: list[UUID], timeout: float) -> list[str]:
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + timeout
    async with get_client() as client:
        while True:
            runs = [await client.read_flow_run(i) for i in ids]
            states = [r.state for r in runs]
            if all(s is not None and s.is_final() for s in states) or time.monotonic() > deadline:
                return [s.type.value if s else "NONE" for s in states]
            await asyncio.sleep(1)


def test_three_tasks_share_one_workspace_on_postgres_and_a_worker(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    home, ws = tmp_path_factory.mktemp("cairn-home"), tmp_path_factory.mktemp("shared-ws")
    corpora = tmp_path_factory.mktemp("corpora")
    params = [
        {
            "goal": goal(slug),
            "sources": [str(make_corpus(corpora, slug))],
            "workspace": str(ws),
            "model": "cairn/offline",
            "max_iterations": MAX_ITERATIONS,
        }
        for slug in TOWNS
    ]
    with scale_out_stack(home) as stack:
        with timed(stack.timings, "deploy"):
            deploy(stack.api_url)
        with timed(stack.timings, "three runs at once"):
            states = run_all(stack.api_url, params, timeout=420)
        worker_log = Path(home / f"worker-{POOL}.log").read_text(encoding="utf-8", errors="replace")
        assert states == ["COMPLETED"] * 3, worker_log[-4000:]
        assert_isolated_and_shared(ws)
    assert not any(alive(pid) for pid in stack.pids.values()), stack.pids
    assert stack.cluster.pid() is None
    print("\nscale-out timings (s):", stack.timings)


def assert_isolated_and_shared(ws: Path) -> None:
    workspace = Workspace(ws)
    task_ids = workspace.task_ids()
    assert len(task_ids) == 3
    store = deps_for(RunConfig(workspace=str(ws))).store
    slug_of = {name: slug for slug, (name, _, _) in TOWNS.items()}
    tasks = {slug_of[_town(workspace.task(t).state().goal)]: t for t in task_ids}
    assert sorted(tasks) == sorted(TOWNS)
    for slug, task_id in tasks.items():
        state = workspace.task(task_id).state()
        assert state.status == "complete", (task_id, state.stop_reason)
        evidence = store.list(SearchFilter(tenants=[task_id], kinds=["evidence"]))
        assert {m.tenant for m in evidence} == {task_id} and len(evidence) == len(state.evidence)
        assert any(f"source:{slug}/" in m.content for m in evidence)  # its answer cites its own corpus
        records = store.list(SearchFilter(tenants=[task_id]), limit=10_000)
        foreign = [marker for other in TOWNS if other != slug for marker in (other, *TOWNS[other][:2])]
        assert not [m.key for m in records if any(marker in m.content for marker in foreign)]
    rule = store.get(memory_key(RULE, "rules", "general"), "shared")
    assert rule is not None and rule.content == RULE
    assert store.count(SearchFilter(tenants=["shared"], kinds=["constraint"])) == 1
    assert rule.access_count == 3 and sorted(rule.agents) == sorted(task_ids)


def _town(goal: str) -> str:
    return goal.split(" the ", 1)[1].split(" reservoir", 1)[0]
