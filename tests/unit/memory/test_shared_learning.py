"""Shared learning: one memory per content, domain and task type whatever agent stores it; related
tasks' memories in a task's searches, labelled; sources indexed once for every task that reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import FileRecorded, NotFound, RunConfig, TaskCreated
from cairn.flows.loop.start import check_related
from cairn.flows.steps.session import Session
from cairn.memory.context.levels import remember
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.index.recorder import TaskRecorder
from cairn.memory.index.sources import source_tenant
from cairn.memory.store.protocol import SearchFilter
from cairn.memory.store.sqlite_store import SQLiteStore
from cairn.tasks.deps import deps_for
from cairn.tasks.evidence import register_file
from cairn.tasks.tools.base import WrittenFile


def test_the_same_content_is_one_memory_whichever_agent_stores_it(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=32))
    first = remember(
        store, "Pin dependency versions", domain="python", task_type="coding_task", agent="planner"
    )
    second = remember(
        store, "Pin dependency versions", domain="Python", task_type="coding_task", agent="coder"
    )
    other = remember(
        store, "Pin dependency versions", domain="python", task_type="research_task", agent="coder"
    )
    assert first.key == second.key != other.key
    assert second.agents == ["planner", "coder"] and second.created_at == first.created_at
    assert store.count(SearchFilter(tenants=["shared"], task_type="coding_task")) == 1
    store.record_access([first.key], "shared")
    store.record_access([first.key], "shared")
    stored = store.get(first.key, "shared")
    assert stored is not None and stored.access_count == 2 and stored.agents == ["planner", "coder"]


def _session(config: RunConfig, created: TaskCreated) -> Session:
    deps = deps_for(config)
    repo = deps.workspace.create_task(created)
    return Session(config=config, deps=deps, recorder=TaskRecorder(repo, deps.store))


def test_related_tasks_are_searched_and_labelled_and_must_exist(tmp_path: Path) -> None:
    config = RunConfig(workspace=str(tmp_path / "ws"))
    earlier = _session(config, TaskCreated(task_id="earlier", goal="g", task_type="research_task"))
    text = "# Findings\n\nThe aquifer recharges 40 litres per second.\n"
    (earlier.recorder.repo.artifacts / "findings.md").write_text(text)
    file, _ = register_file("call-1-1", WrittenFile(path="findings.md", content=text), None, 1.0)
    earlier.recorder.record(FileRecorded(file=file))

    deps = deps_for(config)
    assert check_related(deps, ["earlier", "earlier"]) == ["earlier"]
    with pytest.raises(NotFound, match="does not exist"):
        check_related(deps, ["typo"])
    later = _session(
        config, TaskCreated(task_id="later", goal="g", task_type="research_task", related=["earlier"])
    )
    lines = later.search_lines("aquifer recharges litres", 5)
    assert lines and lines[0].startswith("[related:earlier] [document_chunk findings.md]")
    alone = _session(config, TaskCreated(task_id="alone", goal="g", task_type="research_task"))
    assert not any("aquifer" in line for line in alone.search_lines("aquifer recharges litres", 5))


def test_a_source_is_indexed_lazily_once_and_shared_by_tasks(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "reservoir.md").write_text("# Reservoir\n\nUsable storage is 1,260,000 cubic metres.\n")
    config = RunConfig(workspace=str(tmp_path / "ws"))
    store = deps_for(config).store
    tenant = source_tenant(corpus)
    first = _session(
        config,
        TaskCreated(task_id="one", goal="g", task_type="research_task", sources={"corpus": str(corpus)}),
    )
    assert store.count(SearchFilter(tenants=[tenant])) == 0  # nothing until the first search
    assert any("source:corpus/reservoir.md" in line for line in first.search_lines("usable storage", 3))
    indexed = {m.key: m.updated_at for m in store.list(SearchFilter(tenants=[tenant]))}
    second = _session(
        config,
        TaskCreated(
            task_id="two",
            goal="usable storage cubic metres",
            task_type="research_task",
            sources={"corpus": str(corpus)},
        ),
    )
    assert "1,260,000" in second.context()
    assert {m.key: m.updated_at for m in store.list(SearchFilter(tenants=[tenant]))} == indexed
