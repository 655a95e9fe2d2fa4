"""Cairn on a real Weaviate (`CAIRN_STORE=weaviate`, the session's `weaviate_server`), end to end.

The offline demo task runs twice on Weaviate: once straight through, once SIGKILLed mid-iteration
and resumed (`tests/e2e/faults.py`). Both must equal the session's SQLite `reference_run`: the same
evidence, calls, report and files, and `cairn search` must put the same records on top (the same
three; their order may differ, as Weaviate keeps BM25 statistics per tenant where SQLite's FTS5
index has one set for all: docs/weaviate.md). Then `cairn reindex` moves the SQLite task, and its
sources, into Weaviate, where its search must agree with SQLite's. One run of each, shared by the
module's tests.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import Workspace
from tests.conftest import CORPUS, QUESTION_FILE, cairn
from tests.e2e.test_resume import _wait_crashed, with_faults
from tests.weaviate_server import MARKER, LiveWeaviate

pytestmark = [pytest.mark.e2e, getattr(pytest.mark, MARKER)]
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()
SEARCHES = ("reservoir capacity", "daily water consumption", "Alder Creek dam")
TOP = 3  # each store's first hits, which the other must find among its ten


def run_args(ws: Path, task: str) -> list[str]:
    return ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(ws), "--task-id", task, "--json"]


@pytest.fixture(scope="module")
def weaviate_env(prefect_server: str, weaviate_server: LiveWeaviate) -> dict[str, str]:
    return {**os.environ, "PREFECT_API_URL": prefect_server, **weaviate_server.env()}


@pytest.fixture(scope="module")
def straight(weaviate_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo task straight through on Weaviate: (workspace, task id)."""
    ws = tmp_path_factory.mktemp("weaviate-ws")
    proc = cairn(run_args(ws, "weaviate-run"), weaviate_env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return ws, "weaviate-run"


@pytest.fixture(scope="module")
def resumed(weaviate_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo task on Weaviate, SIGKILLed at its 8th tool result (iteration 1 reads the six
    corpus files: the second result of iteration 2), then resumed."""
    ws = tmp_path_factory.mktemp("weaviate-killed-ws")
    first = with_faults(["--kill-after-results", "7"], run_args(ws, "weaviate-killed"), weaviate_env)
    killed_at = Workspace(ws).task("weaviate-killed").state()
    _wait_crashed("weaviate-killed")
    again = with_faults([], ["resume", "weaviate-killed", "--workspace", str(ws), "--json"], weaviate_env)
    return {"ws": ws, "first": first, "killed_at": killed_at, "resumed": again}


def state(ws: Path, task: str) -> TaskState:
    return Workspace(ws).task(task).state()


def evidence(s: TaskState) -> list[tuple[str, str, str, int]]:
    return sorted((e.type, e.source, e.content, e.iteration) for e in s.evidence)


def files(ws: Path, task: str) -> dict[str, bytes]:
    """The task's repository files (its git internals aside), by relative path."""
    root = Workspace(ws).task(task).root
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts and p.name != "history.jsonl"
    }


def top_hits(ws: Path, task: str, text: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    proc = cairn(["search", text, "--task", task, "--workspace", str(ws), "--json", "-k", "10"], dict(env))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "not closed properly" not in proc.stderr  # the CLI closes its Weaviate client
    hits = json.loads(proc.stdout)["hits"]
    return [(h["memory"]["kind"], h["memory"]["content"]) for h in hits]


def assert_found_alike(one: list[tuple[str, str]], other: list[tuple[str, str]], text: str) -> None:
    """Each store's top three are among the other's ten: the same records are found. Their order
    may differ: Weaviate keeps BM25 statistics per tenant, SQLite one set for all (docs/weaviate.md),
    and the deliverable's proof quotes the lines of the chunks it competes with."""
    assert set(one[:TOP]) <= set(other[:10]) and set(other[:TOP]) <= set(one[:10]), (text, one, other)


def assert_same_task(ws: Path, task: str, ref: tuple[Path, str]) -> None:
    got, want = state(ws, task), state(*ref)
    assert got.status == want.status == "complete"
    assert evidence(got) == evidence(want)
    assert [c.call_id for c in got.calls] == [c.call_id for c in want.calls]
    assert got.report_path and want.report_path
    assert Path(got.report_path).read_bytes() == Path(want.report_path).read_bytes()
    assert files(ws, task).keys() == files(*ref).keys()


def test_a_run_on_weaviate_equals_the_run_on_sqlite(
    straight: tuple[Path, str], reference_run: tuple[Path, str]
) -> None:
    assert_same_task(*straight, reference_run)


def test_a_run_killed_on_weaviate_resumes_to_the_same_task(
    resumed: dict[str, Any], reference_run: tuple[Path, str]
) -> None:
    assert resumed["first"].returncode == -signal.SIGKILL, resumed["first"].stderr[-2000:]
    killed_at = resumed["killed_at"]
    # Killed once `answer` wrote the deliverable, before the iteration recorded it: the resume settles it.
    assert killed_at.current == 2 and [c.tool for c in killed_at.uncertain_calls] == ["answer"]
    assert resumed["resumed"].returncode == 0, resumed["resumed"].stderr[-3000:]
    assert_same_task(Path(resumed["ws"]), "weaviate-killed", reference_run)
    assert Workspace(Path(resumed["ws"])).task("weaviate-killed").history.verify().ok


def test_search_on_weaviate_puts_the_same_records_on_top(
    straight: tuple[Path, str], reference_run: tuple[Path, str], weaviate_env: dict[str, str]
) -> None:
    sqlite_env = {k: v for k, v in weaviate_env.items() if k != "CAIRN_STORE"}
    for text in SEARCHES:
        on_weaviate = top_hits(*straight, text, weaviate_env)
        assert_found_alike(on_weaviate, top_hits(*reference_run, text, sqlite_env), text)


def test_reindex_moves_a_sqlite_task_into_weaviate(
    reference_run: tuple[Path, str],
    straight: tuple[Path, str],
    weaviate_env: dict[str, str],
    tmp_path: Path,
) -> None:
    ref_ws, task = reference_run
    ws = tmp_path / "moved"
    shutil.copytree(ref_ws, ws)  # the session's reference workspace stays as it was
    moved = cairn(["reindex", task, "--workspace", str(ws), "--json"], weaviate_env)
    assert moved.returncode == 0, moved.stderr[-3000:]
    assert json.loads(moved.stdout)["sources"] == {"corpus": "indexed"}
    sqlite_env = {k: v for k, v in weaviate_env.items() if k != "CAIRN_STORE"}
    on_sqlite = cairn(["reindex", task, "--workspace", str(ws), "--json"], sqlite_env)
    assert json.loads(moved.stdout)["records"] == json.loads(on_sqlite.stdout)["records"] > 0
    for text in SEARCHES:
        assert_found_alike(top_hits(ws, task, text, weaviate_env), top_hits(ws, task, text, sqlite_env), text)
    assert _count(straight, weaviate_env) == json.loads(moved.stdout)["records"]  # as if run there


def _count(run: tuple[Path, str], env: dict[str, str]) -> int:
    """How many records a task has in the configured store (`cairn reindex` rebuilds and counts)."""
    ws, task = run
    proc = cairn(["reindex", task, "--workspace", str(ws), "--json"], env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return int(json.loads(proc.stdout)["records"])
