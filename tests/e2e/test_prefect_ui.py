"""What the Prefect UI shows of a finished task, read back through the Prefect client."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from prefect.client.schemas.objects import Artifact

from cairn.memory.log.workspace import Workspace
from tests.conftest import listing

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def seen(reference_run: tuple[Path, str], prefect_server: str) -> dict[str, Any]:
    ws, task_id = reference_run
    flows, tasks = asyncio.run(_read_back(task_id))
    artifacts = _artifacts(prefect_server, task_id)
    state = Workspace(ws).task(task_id).state()
    return {"task_id": task_id, "state": state, "flows": flows, "tasks": tasks, "artifacts": artifacts}


async def _read_back(task_id: str) -> tuple[list[Any], list[Any]]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterName,
        FlowRunFilterTags,
        TaskRunFilter,
        TaskRunFilterTags,
    )

    tag = f"task:{task_id}"
    named = FlowRunFilter(name=FlowRunFilterName(any_=[f"cairn-{task_id}"]))
    tagged = FlowRunFilter(tags=FlowRunFilterTags(all_=[tag]))
    async with get_client() as client:
        flows = [
            *await client.read_flow_runs(flow_run_filter=named, **listing("flow_runs")),
            *await client.read_flow_runs(flow_run_filter=tagged, **listing("flow_runs")),
        ]
        of_task = TaskRunFilter(tags=TaskRunFilterTags(all_=[tag]))
        tasks = await client.read_task_runs(task_run_filter=of_task, **listing("task_runs"))
    return list({run.id: run for run in flows}.values()), tasks  # the parent is named and tagged


def _artifacts(api_url: str, task_id: str) -> list[Artifact]:
    # The client's read_artifacts always joins flow and task runs, which drops artifacts made in a
    # flow (not a task); the API itself filters by key alone.
    response = httpx.post(f"{api_url}/artifacts/filter", json={"artifacts": {"key": {"like_": task_id}}})
    response.raise_for_status()
    return [Artifact.model_validate(a) for a in response.json()]


def test_flow_runs_are_the_task_and_one_per_iteration(seen: dict[str, Any]) -> None:
    names = sorted(r.name for r in seen["flows"])
    n = len(seen["state"].iterations)
    assert names == sorted([f"cairn-{seen['task_id']}", *(f"iteration-{i}" for i in range(1, n + 1))])
    assert all(r.state.type.value == "COMPLETED" for r in seen["flows"])


def test_task_runs_are_named_after_tool_and_argument_and_tagged(seen: dict[str, Any]) -> None:
    task_type = seen["state"].task_type
    tools = [t for t in seen["tasks"] if any(tag.startswith("tool:") for tag in t.tags)]
    assert all(f"task:{seen['task_id']}" in t.tags for t in seen["tasks"])
    typed = [t for t in seen["tasks"] if t.name not in ("detect-task-type", "extract-constraint-0")]
    assert tools and all(f"type:{task_type}" in t.tags for t in typed)  # known once detect-task-type ran
    for run in tools:
        tool = next(tag for tag in run.tags if tag.startswith("tool:")).split(":", 1)[1]
        assert run.name.startswith(tool), (run.name, run.tags)
    assert any(t.name.startswith("read_file-source:corpus/") for t in tools)
    names = {t.name for t in seen["tasks"]}
    assert "detect-task-type" in names and any(n.startswith("deliver-") for n in names)
    assert "plan-1" not in names  # the opening iteration reads the sources with no planning call


def test_artifacts_per_iteration_and_per_task(seen: dict[str, Any]) -> None:
    task_id, state = seen["task_id"], seen["state"]
    by_key: dict[str, list[Any]] = {}
    for artifact in seen["artifacts"]:
        by_key.setdefault(artifact.key, []).append(artifact)
    for it in state.iterations:
        (markdown,) = by_key[f"{task_id}-iteration-{it.iteration}"]
        assert markdown.type == "markdown"
        for heading in ("## Plan", "## Calls", "## Insights", "## Synthesis", "## Verdict"):
            assert heading in markdown.data
    iteration_runs = {r.name: r.id for r in seen["flows"] if r.name.startswith("iteration-")}
    for it in state.iterations:  # each on its own subflow run
        (markdown,) = by_key[f"{task_id}-iteration-{it.iteration}"]
        assert markdown.flow_run_id == iteration_runs[f"iteration-{it.iteration}"]
    evidence = by_key[f"{task_id}-evidence"]
    with_evidence = {ev.iteration for ev in state.evidence}
    assert {a.type for a in evidence} == {"table"} and len(evidence) == len(with_evidence)
    assert all(a.data not in ("[]", []) for a in evidence)  # never empty
    assert len({str(a.data) for a in evidence}) == len(evidence)  # no identical versions
    progress = by_key[f"{task_id}-progress"]
    assert [a.type for a in progress] == ["progress"] and float(progress[0].data) == 100.0
    (result,) = by_key[f"{task_id}-result"]
    parent = next(r for r in seen["flows"] if r.name == f"cairn-{task_id}")
    assert result.flow_run_id == parent.id
    report = Path(str(state.report_path)).read_text(encoding="utf-8")
    assert report.strip().splitlines()[0] in result.data and "## Verdict" in result.data


def test_the_parent_is_a_tagged_deployment_run_and_the_graph_has_no_false_edges(seen: dict[str, Any]) -> None:
    parent = next(r for r in seen["flows"] if r.name == f"cairn-{seen['task_id']}")
    assert parent.deployment_id is not None
    assert {f"task:{seen['task_id']}", f"type:{seen['state'].task_type}"} <= set(parent.tags)
    for run in seen["tasks"]:
        upstream = {k: v for k, v in run.task_inputs.items() if v and k not in ("wait_for", "__parents__")}
        assert upstream == {}, (run.name, run.task_inputs)
