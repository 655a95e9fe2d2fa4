"""Constraints: extracted from every user message, deduplicated by key, shared by the workspace's
tasks, listed and retired with `cairn rules`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cairn.core import ConstraintRetired, NotFound
from cairn.flows.cli.app import app
from cairn.flows.loop.standing_rules import constraint_key, give_feedback, list_rules, retire_rule
from cairn.memory.context.relevant import rules_block
from cairn.memory.index.indexer import reindex
from cairn.tasks.deps import deps_for
from cairn.tasks.model.llm import ModelClient
from tests.unit.scripted import ScriptedModel, create_task, register, workspace_config

RULE = "Never use requirements.txt; use pyproject.toml instead."


@pytest.fixture(autouse=True)
def scripted() -> Iterator[ScriptedModel]:
    model = ScriptedModel(lambda payload: [])
    undo = register(model)
    yield model
    undo()


def test_goal_and_feedback_rules_are_kept_once_per_key(tmp_path: Path) -> None:
    config = workspace_config(tmp_path)
    session = create_task(config, "task-a", f"Package the app. {RULE}")
    assert [c.key for c in session.state.constraints] == [constraint_key(RULE)]
    client = ModelClient("script/model")
    give_feedback(config, "task-a", RULE, client=client)  # the same rule again
    give_feedback(config, "task-a", "From now on, always pin versions.", client=client)
    state = deps_for(config).workspace.task("task-a").state()
    assert [c.rule for c in state.active_constraints] == [RULE, "Always pin versions."]


def test_rules_are_shared_by_the_tasks_of_a_workspace(tmp_path: Path) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "task-a", f"Package the app. {RULE}")
    b = create_task(config, "task-b", "Write the changelog.")
    assert f"[Constraint] {RULE}" in rules_block(b.state, b.deps.store)
    create_task(config, "task-c", f"Add a CLI. {RULE}")
    [rule] = list_rules(config)
    assert rule.key == constraint_key(RULE) and rule.active and rule.tasks == ["task-a", "task-c"]


def test_retiring_a_rule_reaches_every_task_the_store_and_a_reindex(tmp_path: Path) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "task-a", f"Package the app. {RULE}")
    create_task(config, "task-c", f"Add a CLI. {RULE}")
    b = create_task(config, "task-b", "Write the changelog.")
    retired = retire_rule(
        config, constraint_key(RULE).split(":")[-1][:8]
    )  # a unique prefix of the hash is enough
    assert not retired.active
    deps = deps_for(config)
    for task_id in ("task-a", "task-c"):
        repo = deps.workspace.task(task_id)
        assert not repo.state().active_constraints
        assert any(isinstance(e, ConstraintRetired) for e in repo.history.events())
        assert repo.history.verify().ok
    b.recorder.refresh()
    assert "requirements" not in rules_block(b.state, deps.store)
    repo = deps.workspace.task("task-a")
    reindex(deps.store, repo.read().envelopes, repo.artifacts)
    shared = deps.store.get(constraint_key(RULE), "shared")
    assert shared is not None and not shared.active
    assert [r.active for r in list_rules(config)] == [False]
    with pytest.raises(NotFound, match="no rule"):
        retire_rule(config, "nope")


def test_cli_lists_retires_and_takes_feedback(tmp_path: Path) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "task-a", f"Package the app. {RULE}")
    runner = CliRunner()
    ws = ["--workspace", str(tmp_path), "--json"]
    given = runner.invoke(app, ["feedback", "task-a", "From now on, always pin versions.", *ws])
    assert given.exit_code == 0, given.output
    assert (
        json.loads(given.stdout)["rule"] == "Always pin versions." and json.loads(given.stdout)["index"] == 1
    )
    listed = json.loads(runner.invoke(app, ["rules", *ws]).stdout)["rules"]
    assert {r["rule"] for r in listed} == {RULE, "Always pin versions."} and all(r["active"] for r in listed)
    done = runner.invoke(app, ["rules", "--retire", listed[0]["key"], *ws])
    assert done.exit_code == 0 and json.loads(done.stdout)["retired"]["active"] is False
    missing = runner.invoke(app, ["rules", "--retire", "zzzz", *ws])
    assert missing.exit_code == 2 and "no rule" in missing.stderr
    unknown = runner.invoke(app, ["feedback", "no-such-task", "hi", *ws])
    assert unknown.exit_code == 2 and "no task" in unknown.stderr
