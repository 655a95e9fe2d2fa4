"""What a person tells a task is memory: a later task finds it, and `reindex` reproduces it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.flows.cli.files import search_hits
from cairn.flows.loop.standing_rules import give_feedback
from cairn.memory.context.relevant import search_snippets
from cairn.memory.dialog import speaker_of
from cairn.memory.index.indexer import SHARED, reindex
from cairn.memory.log.workspace import TaskRepo
from cairn.memory.store.protocol import SearchFilter
from cairn.tasks.deps import deps_for
from cairn.tasks.messages.schemas import Candidate, PlanInput
from cairn.tasks.model.llm import ModelClient
from tests.unit.scripted import ScriptedModel, create_task, register, workspace_config

SAID = "The staging database is Postgres 16 on port 6543, not the default port."


def plan(payload: PlanInput) -> list[Candidate]:
    return [Candidate(tool="read_file", params={"path": "notes.md"})]


@pytest.fixture()
def scripted() -> Iterator[ScriptedModel]:
    model = ScriptedModel(plan)
    undo = register(model)
    yield model
    undo()


def test_feedback_to_one_task_is_found_by_a_later_task(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "deploy-1", "Deploy the billing service to staging.")
    give_feedback(config, "deploy-1", SAID, client=ModelClient("script/model"))
    later = create_task(config, "migrate-2", "Which port does the staging Postgres database use?")

    found = search_snippets(later.state, deps_for(config).store)
    assert [m.content for m in found][:1] == [f"{_date_of(found[0].created_at)} user: {SAID}"]
    said = found[0]
    assert (said.tenant, said.thread_id, said.agents, speaker_of(said)) == (
        SHARED,
        "deploy-1",
        ["deploy-1"],
        "user",
    )
    assert said.context == "user: Deploy the billing service to staging."  # the goal it answered

    hits = search_hits(config, "staging postgres port", "migrate-2", "hybrid", 5)  # `cairn search`
    assert SAID in hits[0].memory.content


def test_reindex_reproduces_the_conversation_record(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "deploy-1", "Deploy the billing service to staging.")
    give_feedback(config, "deploy-1", SAID, client=ModelClient("script/model"))
    store = deps_for(config).store
    where = SearchFilter(tenants=[SHARED], subtypes=["dialog_turn"])
    before = store.list(where)

    repo = TaskRepo(tmp_path / "tasks" / "deploy-1")
    reindex(store, repo.read().envelopes, repo.artifacts)
    after = store.list(where)
    assert [m.model_dump() for m in after] == [m.model_dump() for m in before] and len(after) == 1
    assert after[0].access_count == 0  # a conversation turn is not a rule: nothing counts statements


def _date_of(ts: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ts, UTC).strftime("[%-d %B, %Y]")
