"""Results persisted as data: JSON under Cairn's type tags, read back as today's classes."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from prefect.filesystems import LocalFileSystem
from prefect.results import ResultStore
from prefect.serializers import Serializer

from cairn.core import CallCost
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.loop.iteration import IterationSummary
from cairn.flows.prefect import durable, flow, serve, tasks
from cairn.flows.prefect.result_data import SERIALIZER, TAGS, FailedResult, ResultSerializer
from cairn.tasks.messages.schemas import Candidate, Plan, WriteOutput
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools.base import ToolOutput

PLAN = Plan(candidates=[Candidate(tool="read_file", params={"path": "source:a.md"}, rationale="r")])
VALUES: list[Any] = [
    ToolOutput(text="bytes \udcff kept", paths=["a.md"], seconds=0.25),  # a lone surrogate survives
    LLMResult[Any](kind="plan", model="cairn/offline", output=PLAN, ok=True, cost=CallCost(prompt_tokens=3)),
    LLMResult[Any](kind="write", model="m", output=WriteOutput(files=[]), ok=True),
    LLMResult[Any](kind="deliver", model="m", ok=False, error="timed out", errors=["timed out"]),
    IterationSummary(iteration=2, calls=3, new_evidence=1, progress="advancing", synthesis="s"),
    TaskResult(
        task_id="t",
        status="complete",
        complete=True,
        iterations=2,
        workspace="ws",
        report_path=None,
        stop_reason=None,
        verdict=None,
    ),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_each_result_kind_round_trips_as_the_same_class(value: Any) -> None:
    blob = SERIALIZER.dumps(value)
    back = SERIALIZER.loads(blob)
    assert back == value and type(back) is type(value)
    if isinstance(value, LLMResult) and value.output is not None:
        assert type(back.output) is type(value.output)  # the call kind's schema, not a dict
    assert "cairn." not in blob.decode("ascii")  # a tag of Cairn's, never a class path


def test_prefect_finds_the_serializer_by_its_type_and_reads_what_it_wrote(tmp_path: Path) -> None:
    assert isinstance(Serializer(type="cairn"), ResultSerializer)
    store = ResultStore(result_storage=LocalFileSystem(basepath=str(tmp_path)), serializer=SERIALIZER)
    store.write(VALUES[0], key="cairn/t/1/1/tool")
    record = json.loads((tmp_path / "cairn" / "t" / "1" / "1" / "tool").read_text(encoding="ascii"))
    assert record["metadata"]["serializer"] == {"type": "cairn"}
    assert json.loads(record["result"])["type"] == "tool-output"
    reader = ResultStore(result_storage=LocalFileSystem(basepath=str(tmp_path)))  # Prefect's default store
    assert reader.read("cairn/t/1/1/tool").result == VALUES[0]


def test_a_failed_runs_exception_is_kept_as_its_name_and_message() -> None:
    back = SERIALIZER.loads(SERIALIZER.dumps(ValueError("no such file")))
    assert isinstance(back, FailedResult) and str(back) == "ValueError: no such file"


def test_a_result_without_a_tag_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="Cairn persists no Candidate"):
        SERIALIZER.dumps(Candidate(tool="t", params={}, rationale=""))
    with pytest.raises(TypeError, match="Cairn persists no dict"):
        SERIALIZER.dumps({"a": 1})


def test_every_result_cairn_persists_goes_through_its_serializer_and_has_a_tag() -> None:
    runs = [tasks.run_tool, tasks.call_model, durable.bfs_iteration, flow.run_task, serve.scheduled_task]
    for run in runs:
        assert run.result_serializer is SERIALIZER, run.name
        returned = get_type_hints(inspect.unwrap(run.fn))["return"]
        origin = getattr(returned, "__pydantic_generic_metadata__", {}).get("origin") or returned
        assert origin in TAGS, run.name
