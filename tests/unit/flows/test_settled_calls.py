"""Cairn settles an interrupted call of its own tools without a person (issue 35, item 3): whether
a write took effect is found by looking, a test run is run again; a `run_python` snippet and the
user's tools wait for a decision unless they declare themselves idempotent.

The kills land inside a write, in process (an exception nothing catches, like a SIGKILL): before
the file is replaced, after it is replaced (before its result returns), and after its commit
(before its record). `tests/e2e/test_crash_loop.py` kills real processes and resumes them with
the default `--on-uncertain ask`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_types import Tool as McpTool
from mcp_types import ToolAnnotations

from cairn.core import (
    IterationMode,
    McpServerConfig,
    PythonToolConfig,
    RunConfig,
    ToolCallRecorded,
    ToolsConfig,
    UncertainCallResolved,
)
from cairn.flows.loop.iteration import run_iteration
from cairn.flows.loop.task_tools import record_tools
from cairn.flows.loop.uncertain import UncertainCalls
from cairn.flows.steps.executor import InProcessExecutor
from cairn.flows.steps.session import open_session
from cairn.memory.log.workspace import TaskRepo
from cairn.tasks.messages.schemas import Candidate
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.tools import file_tools
from cairn.tasks.tools.mcp.tools import as_tool
from tests.unit import tool_fixtures
from tests.unit.flows.test_uncertain_calls import Crash, DiesAfterTheTools, check, events
from tests.unit.scripted import ScriptedModel, create_task, register, workspace_config

REPORT = "# Counts\n\nThe tally is 3.\n" * 20
WRITE = Candidate(tool="write_file", params={"path": "counts.md", "content": REPORT})


class DyingOs:
    """`os` as `write_file` sees it, dying before the temporary file replaces the real one."""

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def replace(self, src: Any, dst: Any) -> None:
        raise Crash


def kill_before_replace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_tools, "os", DyingOs())


def kill_after_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    commit = TaskRepo.commit

    def commit_then_die(self: TaskRepo, paths: list[Path], message: str) -> str | None:
        made = commit(self, paths, message)
        if message.startswith("write_file"):
            raise Crash
        return made

    monkeypatch.setattr(TaskRepo, "commit", commit_then_die)


Plans = Callable[[list[Candidate]], None]


@pytest.fixture
def planning() -> Iterator[Plans]:
    """Makes the planner propose these calls in iteration 1 (and nothing after)."""
    undo: list[Callable[[], None]] = []

    def install(calls: list[Candidate]) -> None:
        undo.append(register(ScriptedModel(lambda payload: calls if payload.iteration == 1 else [])))

    tool_fixtures.CALLS.clear()
    tool_fixtures.STAMPS.clear()
    yield install
    for step in reversed(undo):
        step()


def iterate(
    config: RunConfig, executor: InProcessExecutor | None = None, mode: IterationMode = "fast"
) -> None:
    session = open_session(config, "t")
    run_iteration(session, 1, mode, False, executor or InProcessExecutor(ModelClient(config.model)))


def artifacts(config: RunConfig) -> Path:
    return Path(config.workspace) / "tasks" / "t" / "artifacts"


@pytest.mark.parametrize(
    ("kill", "decision"),
    [("before-replace", "rerun"), ("after-replace", "found"), ("after-commit", "found")],
)
def test_a_write_killed_inside_is_settled_by_looking_and_the_task_goes_on_unattended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planning: Plans, kill: str, decision: str
) -> None:
    planning([WRITE])
    config = workspace_config(tmp_path)  # `--on-uncertain ask`, the default
    create_task(config, "t", "Tally the counts.")
    with monkeypatch.context() as patched, pytest.raises(Crash):
        dying = DiesAfterTheTools(ModelClient(config.model, max_attempts=1))
        if kill == "before-replace":
            kill_before_replace(patched)
        elif kill == "after-commit":
            kill_after_commit(patched)
        iterate(config, dying if kill == "after-replace" else None)
    assert [s.tool for s in open_session(config, "t").state.uncertain_calls] == ["write_file"]
    assert ((artifacts(config) / "counts.md").is_file()) is (decision == "found")

    check(config)  # nothing for a person: `cairn resume` goes on
    iterate(config)
    log = events(config)
    resolved = [e for e in log if isinstance(e, UncertainCallResolved)]
    assert [(e.decision, e.by) for e in resolved] == [(decision, "cairn")]
    assert resolved[0].reason.startswith("write_file: ")
    recorded = [e.call for e in log if isinstance(e, ToolCallRecorded)]
    assert [(c.tool, c.outcome) for c in recorded] == [("write_file", "success")]
    assert recorded[0].raw_output == f"wrote counts.md ({len(REPORT)} characters)"
    assert (artifacts(config) / "counts.md").read_text(encoding="utf-8") == REPORT
    assert not list(artifacts(config).glob(".*.cairn-tmp"))
    commits = open_session(config, "t").recorder.repo.log()
    assert len([m for m in commits if m.startswith("write_file counts.md")]) == 1


def test_a_write_found_in_the_last_commit_is_not_run_over_a_later_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planning: Plans
) -> None:
    planning([WRITE])
    config = workspace_config(tmp_path)
    create_task(config, "t", "Tally the counts.")
    with monkeypatch.context() as patched, pytest.raises(Crash):
        kill_after_commit(patched)
        iterate(config)
    (artifacts(config) / "counts.md").write_text("a person's edit\n", encoding="utf-8")
    iterate(config)
    log = events(config)
    assert [e.decision for e in log if isinstance(e, UncertainCallResolved)] == ["found"]
    assert (artifacts(config) / "counts.md").read_text(encoding="utf-8") == "a person's edit\n"


ACTS = [
    Candidate(tool="run_tests", params={"target": "."}),
    Candidate(tool="run_python", params={"code": "print(1)"}),
    Candidate(tool="bump", params={"name": "once"}),
    Candidate(tool="stamp", params={"name": "twice"}),
    Candidate(tool="plain", params={"text": "abc"}),
]
TOOLS = ToolsConfig(
    python=[
        PythonToolConfig(function="tests.unit.tool_fixtures:bump"),
        PythonToolConfig(function="tests.unit.tool_fixtures:stamp"),
        PythonToolConfig(function="tests.unit.tool_fixtures:plain", idempotent=True),
    ]
)


def interrupted_acts(tmp_path: Path) -> RunConfig:
    config = workspace_config(tmp_path, beam=5)
    record_tools(create_task(config, "t", "Count once."), TOOLS)
    with pytest.raises(Crash):  # deep mode: the five calls in one batch
        iterate(config, DiesAfterTheTools(ModelClient(config.model, max_attempts=1)), "deep")
    assert tool_fixtures.CALLS == ["once"] and tool_fixtures.STAMPS == ["twice"]
    return config


def test_only_run_python_and_the_users_undeclared_tools_wait_for_a_person(
    tmp_path: Path, planning: Plans
) -> None:
    planning(ACTS)
    config = interrupted_acts(tmp_path)
    with pytest.raises(UncertainCalls) as asked:
        check(config)
    which = str(asked.value).split(" has side effects")[0]
    assert which == "task t stopped: run_python (call 1/2), bump (call 1/3)"

    iterate(config.model_copy(update={"on_uncertain": "skip"}))
    log = events(config)
    decided = {(e.index, e.decision, e.by) for e in log if isinstance(e, UncertainCallResolved)}
    assert decided == {
        (1, "rerun", "cairn"),  # run_tests: safe to run again
        (2, "skip", "person"),
        (3, "skip", "person"),
        (4, "rerun", "cairn"),  # @tool(idempotent=True)
        (5, "rerun", "cairn"),  # idempotent = true in its configuration
    }
    assert tool_fixtures.CALLS == ["once"] and tool_fixtures.STAMPS == ["twice", "twice"]


def test_an_mcp_tool_is_run_again_only_when_its_server_calls_it_idempotent() -> None:
    server = McpServerConfig(name="notes", command="true")

    def listed(hints: ToolAnnotations | None) -> Callable[[], bool]:
        tool = McpTool(name="append", input_schema={"type": "object"}, annotations=hints)
        return lambda: as_tool(server, tool).idempotent

    assert listed(ToolAnnotations(idempotent_hint=True))()
    assert not listed(ToolAnnotations(destructive_hint=False))()
    assert not listed(None)()


def test_an_interrupted_answer_is_found_in_the_deliverable(tmp_path: Path, planning: Plans) -> None:
    answer = Candidate(tool="answer", params={"answer": "The tally is 3.", "sources": ["nowhere.md"]})
    planning([answer])
    config = workspace_config(tmp_path)
    create_task(config, "t", "Tally the counts.")
    with pytest.raises(Crash):
        iterate(config, DiesAfterTheTools(ModelClient(config.model, max_attempts=1)))
    check(config)
    iterate(config)
    log = events(config)
    assert [e.decision for e in log if isinstance(e, UncertainCallResolved)] == ["found"]
    (call,) = [e.call for e in log if isinstance(e, ToolCallRecorded)]
    assert call.outcome == "success" and "not cited (no such file): nowhere.md" in call.raw_output
