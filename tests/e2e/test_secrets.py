"""End to end: a key planted in a source file, in the goal and in the environment never persists.

One CLI run (the `planted_run` fixture in tests/e2e/conftest.py) reads a source file holding an
OpenAI-shaped key and the run's own `OPENAI_API_KEY` value; the goal holds another key and that
value too. Afterwards every sink is searched: the run's stdout and stderr, history.jsonl, every
file under the workspace (Prefect results, full outputs, memory.db and its WAL, artifacts, the
task's git objects), and the Prefect server (logs read back through the client, artifacts, flow
and task run parameters, names and state messages, and the server's database file itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.memory.log.workspace import Workspace
from tests.e2e.conftest import PLANTED, PlantedRun

pytestmark = pytest.mark.e2e


def forms(secret: str) -> list[bytes]:
    """The secret as bytes, lower-cased (the FTS index folds case) and its tail (an index may
    store a term after a prefix it shares with the term before)."""
    return [v.encode() for v in (secret, secret.lower(), secret[-20:], secret[-20:].lower())]


def leaks(run: PlantedRun, data: bytes) -> list[str]:
    return [name for name, secret in run.needles.items() if any(f in data for f in forms(secret))]


def workspace_files(root: Path) -> Iterator[tuple[Path, bytes]]:
    """Every file under the workspace, git objects decompressed so their contents are searchable."""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if ".git" in path.parts and "objects" in path.parts and "pack" not in path.parts:
            with contextlib.suppress(zlib.error):  # not every file there is an object
                data = zlib.decompress(data)
        yield path, data


def test_the_run_read_the_planted_file_and_redacted_what_it_saw(planted_run: PlantedRun) -> None:
    repo = Workspace(planted_run.workspace).task(planted_run.task_id)
    state = repo.state()
    reads = [c for c in state.calls if c.tool == "read_file" and any(PLANTED in p for p in c.paths)]
    assert reads and reads[0].outcome == "success", [c.one_line() for c in state.calls]
    assert "[REDACTED:openai]" in state.goal and "[REDACTED:env]" in state.goal
    full = repo.root / str(reads[0].output_path)
    kept = full.read_text(encoding="utf-8")
    assert "Telemetry upload key: [REDACTED:openai]" in kept
    assert "The staging value [REDACTED:env] unlocks" in kept


def test_no_secret_in_the_runs_output(planted_run: PlantedRun) -> None:
    assert leaks(planted_run, planted_run.stdout.encode()) == []
    assert leaks(planted_run, planted_run.stderr.encode()) == []


def test_no_secret_in_the_history(planted_run: PlantedRun) -> None:
    history = planted_run.workspace / "tasks" / planted_run.task_id / "history.jsonl"
    assert history.stat().st_size > 0
    assert leaks(planted_run, history.read_bytes()) == []


def test_no_secret_in_any_workspace_file(planted_run: PlantedRun) -> None:
    files = dict(workspace_files(planted_run.workspace))
    names = {p.name for p in files}
    assert "memory.db" in names and any("results" in p.parts for p in files)  # the sinks exist
    assert any("outputs" in p.parts for p in files) and any("artifacts" in p.parts for p in files)
    found = {str(p.relative_to(planted_run.workspace)): leaks(planted_run, d) for p, d in files.items()}
    assert {p: what for p, what in found.items() if what} == {}


def test_no_secret_in_the_memory_index(planted_run: PlantedRun) -> None:
    from cairn.core import RunConfig
    from cairn.memory.store.protocol import SearchFilter
    from cairn.tasks.deps import deps_for

    store = deps_for(RunConfig(workspace=str(planted_run.workspace))).store
    records = store.list(SearchFilter(tenants=[planted_run.task_id, "shared"]), limit=10_000)
    assert records
    text = "\n".join(r.model_dump_json() for r in records).encode()
    assert leaks(planted_run, text) == []


def test_no_secret_on_the_prefect_server(planted_run: PlantedRun, prefect_server: str) -> None:
    seen = asyncio.run(server_texts(planted_run.task_id))
    assert seen["logs"] and seen["flow runs"] and seen["task runs"]  # there was something to search
    assert {where: leaks(planted_run, text.encode()) for where, text in seen.items()} == {
        where: [] for where in seen
    }


def test_no_secret_in_the_prefect_database(
    planted_run: PlantedRun, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The session server's home is a sibling temp directory (tests/conftest.py `prefect_server`).
    databases = sorted(tmp_path_factory.getbasetemp().glob("prefect-home*/prefect.db*"))
    if not databases:
        pytest.skip("the Prefect server's database is not a local SQLite file")
    assert {str(db): leaks(planted_run, db.read_bytes()) for db in databases} == {
        str(db): [] for db in databases
    }


async def server_texts(task_id: str) -> dict[str, str]:
    """Everything the server keeps about the task's runs, as searchable text per kind."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        ArtifactFilter,
        FlowRunFilter,
        FlowRunFilterId,
        FlowRunFilterTags,
        LogFilter,
        LogFilterFlowRunId,
        TaskRunFilter,
    )
    from prefect.client.schemas.sorting import ArtifactSort, FlowRunSort, TaskRunSort

    tagged = FlowRunFilter(tags=FlowRunFilterTags(all_=[f"task:{task_id}"]))
    async with get_client() as client:
        flows = await client.read_flow_runs(flow_run_filter=tagged, sort=FlowRunSort.ID_DESC, limit=200)
        ids = [f.id for f in flows]
        logs = await _all_logs(client, LogFilter(flow_run_id=LogFilterFlowRunId(any_=ids)))
        runs = FlowRunFilter(id=FlowRunFilterId(any_=ids))
        tasks = await client.read_task_runs(flow_run_filter=runs, sort=TaskRunSort.ID_DESC, limit=200)
        artifacts = await client.read_artifacts(
            artifact_filter=ArtifactFilter(),
            flow_run_filter=runs,
            task_run_filter=TaskRunFilter(),
            sort=ArtifactSort.ID_DESC,
            limit=200,
        )
    return {
        "logs": "\n".join(f"{log.name} {log.message}" for log in logs),
        "flow runs": "\n".join(f.model_dump_json() for f in flows),
        "task runs": "\n".join(t.model_dump_json() for t in tasks),
        "artifacts": "\n".join(a.model_dump_json() for a in artifacts),
    }


async def _all_logs(client, log_filter):  # type: ignore[no-untyped-def]
    found, offset = [], 0
    while True:
        page = await client.read_logs(log_filter=log_filter, limit=200, offset=offset)
        found += page
        if len(page) < 200:
            return found
        offset += 200


def test_the_full_outputs_are_json_free_of_secrets_too(planted_run: PlantedRun) -> None:
    # `cairn show --json` is what a user pastes into a bug report.
    import subprocess

    from tests.conftest import BIN

    proc = subprocess.run(
        [
            str(BIN / "cairn"),
            "show",
            planted_run.task_id,
            "--workspace",
            str(planted_run.workspace),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        leaks(planted_run, proc.stdout.encode()) == []
        and json.loads(proc.stdout)["task_id"] == planted_run.task_id
    )
