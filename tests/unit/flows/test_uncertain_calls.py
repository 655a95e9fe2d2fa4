"""At most once, in process: a side-effecting call is recorded as started before it runs, and one
interrupted before its record is asked about, skipped or run again — never re-run silently."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

import pytest

from cairn.core import (
    CallKey,
    PythonToolConfig,
    RunConfig,
    ToolCallRecorded,
    ToolCallStarted,
    ToolsConfig,
    ToolsConfigured,
    UncertainCallResolved,
)
from cairn.flows.loop.iteration import run_iteration
from cairn.flows.loop.task_tools import record_tools
from cairn.flows.loop.uncertain import UncertainCalls, check_before_run
from cairn.flows.prefect.internals import has_cached_result
from cairn.flows.steps.executor import InProcessExecutor, ToolResult, ToolRun
from cairn.flows.steps.session import open_session
from cairn.tasks.messages.schemas import Candidate, PlanInput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.tools.base import ToolContext
from tests.unit import tool_fixtures
from tests.unit.scripted import ScriptedModel, create_task, register, workspace_config

TOOLS = ToolsConfig(python=[PythonToolConfig(function="tests.unit.tool_fixtures:bump")])


def kept(config: RunConfig) -> Callable[[CallKey], bool]:
    """Whether Prefect kept a call's result in the workspace."""
    return partial(has_cached_result, config.workspace)


def plan(payload: PlanInput) -> list[Candidate]:
    return [
        Candidate(tool="read_file", params={"path": "notes.md"}),
        Candidate(tool="bump", params={"name": f"it-{payload.iteration}"}),
    ]


class Crash(BaseException):
    """The process dying: nothing after it runs."""


class DiesAfterTheTools(InProcessExecutor):
    """Runs every call for real, then dies before any result reaches the history."""

    def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
        list(super().run_tools(runs, ctx))
        raise Crash


@pytest.fixture()
def scripted() -> Iterator[ScriptedModel]:
    model = ScriptedModel(plan)
    undo = register(model)
    tool_fixtures.CALLS.clear()
    yield model
    undo()


def interrupted(tmp_path: Path) -> RunConfig:
    """A task killed in iteration 1 after `bump` ran and before its result was recorded."""
    config = workspace_config(tmp_path)
    record_tools(create_task(config, "t", "Count once."), TOOLS)
    with pytest.raises(Crash):
        iterate(config, DiesAfterTheTools(ModelClient(config.model, max_attempts=1)))
    assert tool_fixtures.CALLS == ["it-1"]
    return config


def iterate(config: RunConfig, executor: InProcessExecutor | None = None) -> None:
    session = open_session(config, "t")
    run_iteration(session, 1, "fast", False, executor or InProcessExecutor(ModelClient(config.model)))


def check(config: RunConfig) -> None:
    """The check `cairn resume` makes before any flow starts."""
    session = open_session(config, "t")
    check_before_run(config, session.state, kept(config), session.toolset(), session.tool_context())


def events(config: RunConfig) -> list[object]:
    return list(open_session(config, "t").recorder.repo.history.events())


def test_only_side_effecting_calls_are_recorded_as_started_and_before_they_run(
    tmp_path: Path, scripted: ScriptedModel
) -> None:
    config = interrupted(tmp_path)
    log = events(config)
    assert any(isinstance(e, ToolsConfigured) for e in log)
    started = [e for e in log if isinstance(e, ToolCallStarted)]
    assert [(s.tool, s.index) for s in started] == [("bump", 2)]  # read_file is read-only
    assert not any(isinstance(e, ToolCallRecorded) for e in log)
    state = open_session(config, "t").state
    assert [s.tool for s in state.uncertain_calls] == ["bump"]


def test_ask_stops_with_one_line_and_runs_nothing(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = interrupted(tmp_path)
    before = len(events(config))
    with pytest.raises(UncertainCalls, match=r"bump \(call 1/2\).*--on-uncertain skip.*--on-uncertain rerun"):
        check(config)
    with pytest.raises(UncertainCalls):
        iterate(config)
    assert tool_fixtures.CALLS == ["it-1"] and len(events(config)) == before


def test_skip_records_the_call_as_not_run_and_goes_on(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = interrupted(tmp_path).model_copy(update={"on_uncertain": "skip"})
    check(config)  # nothing to ask
    iterate(config)
    assert tool_fixtures.CALLS == ["it-1"]  # never run again
    log = events(config)
    assert [e.decision for e in log if isinstance(e, UncertainCallResolved)] == ["skip"]
    calls = {e.call.tool: e.call for e in log if isinstance(e, ToolCallRecorded)}
    assert calls["bump"].outcome == "error" and "not run again" in (calls["bump"].error or "")
    assert calls["read_file"].call_id == "call-1-1"  # the read-only call simply ran again


def test_rerun_runs_it_again_once_and_a_second_crash_asks_again(
    tmp_path: Path, scripted: ScriptedModel
) -> None:
    config = interrupted(tmp_path).model_copy(update={"on_uncertain": "rerun"})
    with pytest.raises(Crash):
        iterate(config, DiesAfterTheTools(ModelClient(config.model, max_attempts=1)))
    assert tool_fixtures.CALLS == ["it-1", "it-1"]
    asking = config.model_copy(update={"on_uncertain": "ask"})
    with pytest.raises(UncertainCalls):  # the rerun started again and was interrupted again
        check(asking)
    iterate(config)
    assert tool_fixtures.CALLS == ["it-1", "it-1", "it-1"]
    log = events(config)
    assert [e.decision for e in log if isinstance(e, UncertainCallResolved)] == ["rerun", "rerun"]
    assert [e.call.outcome for e in log if isinstance(e, ToolCallRecorded) and e.call.tool == "bump"] == [
        "success"
    ]
