"""End to end on the session's Prefect server: a coding task replayed from a committed cassette.

The model's side is scripted (`tests/cassettes/coding_task.jsonl`, written by
`make_coding_cassette.py`); everything else is real: the CLI in a subprocess, the flow and its
subflows, the file writes, pytest run by the `run_tests` tool, the hot issues, the GX suite.
The story: code and tests written, tests fail, hot issues open, code fixed, tests pass, issues
resolve, the coding suite passes, the task completes.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cairn.core import Event, IterationCompleted, TaskFinished, ToolCall, ToolCallRecorded, ValidationRecorded
from cairn.memory.log.state import TaskState, replay
from cairn.memory.log.workspace import Workspace
from tests.cassettes import make_coding_cassette as script
from tests.conftest import BIN, listing

pytestmark = pytest.mark.e2e
TESTS_PASS = "tests pass after the last code change"
MODEL_RUN_NAME = re.compile(r"(detect-task-type|extract-constraint|plan|write|compress|synthesize)(-\d+)*")
MODEL_RUN = {
    "detect-task-type": "detect_task_type",
    "extract-constraint": "extract_constraint",
    "plan": "plan",
    "write": "write",
    "compress": "compress",
    "synthesize": "synthesize",
}  # task run name -> call kind


@dataclass(frozen=True)
class CodingRun:
    workspace: Path
    result: dict[str, Any]
    events: list[Event]
    state: TaskState

    @property
    def task_id(self) -> str:
        return str(self.result["task_id"])

    def calls(self) -> list[tuple[int, ToolCall]]:
        """(event position, call) of every recorded tool call, in history order."""
        return [(i, e.call) for i, e in enumerate(self.events) if isinstance(e, ToolCallRecorded)]

    def position(self, call_id: str) -> int:
        return next(i for i, call in self.calls() if call.call_id == call_id)


@pytest.fixture(scope="module")
def coding_run(prefect_server: str, tmp_path_factory: pytest.TempPathFactory) -> CodingRun:
    """One `cairn run` of the scripted coding task, shared by the tests below."""
    ws = tmp_path_factory.mktemp("coding-ws")
    # The session server, and none of the developer's CAIRN_* settings: the options below decide.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    env["PREFECT_API_URL"] = prefect_server
    model = f"replay:{script.CASSETTE}?match=kind"
    # Compression set explicitly: the cassette holds one `compress` reply per call, in call order,
    # and no `compress_batch` reply.
    options = ["--compress", "each", "--skip-compress", "list_directory", "--max-iterations", "6", "--json"]
    args = ["run", script.GOAL, "--model", model, "--workspace", str(ws), *options]
    proc = subprocess.run([str(BIN / "cairn"), *args], capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    repo = Workspace(ws).task(str(result["task_id"]))
    return CodingRun(workspace=ws, result=result, events=repo.read().events, state=repo.state())


def test_the_committed_cassette_is_what_the_script_writes() -> None:
    assert script.CASSETTE.read_text(encoding="utf-8") == script.render()


def test_the_task_completes_on_the_coding_suite(coding_run: CodingRun) -> None:
    result, state = coding_run.result, coding_run.state
    assert result["status"] == "complete" and result["complete"] is True, result
    assert state.task_type == "coding_task"  # detected from the cassette, not forced
    assert result["iterations"] == 4
    assert state.verdict is not None and state.verdict.suite == "coding_task"
    assert TESTS_PASS in state.verdict.satisfied and not state.verdict.missing
    assert isinstance(coding_run.events[-1], TaskFinished) and coding_run.events[-1].status == "complete"
    artifacts = Workspace(coding_run.workspace).task(coding_run.task_id).artifacts
    assert (artifacts / "slugify.py").read_text(encoding="utf-8") == script.FIXED_CODE
    assert (artifacts / "test_slugify.py").read_text(encoding="utf-8") == script.TESTS


def test_history_tells_write_fail_fix_pass_in_order(coding_run: CodingRun) -> None:
    calls = coding_run.calls()
    # 1. The code and its tests are written.
    writes = [(i, c) for i, c in calls if c.tool == "write_file" and c.outcome == "success"]
    first_code = next(i for i, c in writes if c.params["path"] == "slugify.py")
    first_tests = next(i for i, c in writes if c.params["path"] == "test_slugify.py")
    # 2. The tests fail, naming the failing tests as failed checks (an output, not a crash).
    run_tests = [(i, c) for i, c in calls if c.tool == "run_tests"]
    assert [c.outcome for _, c in run_tests] == ["failure", "success"]
    (failed_at, failed), (passed_at, passed) = run_tests
    failing = {k.check_id for k in failed.checks if not k.passed}
    assert failing == {f"pytest::test_slugify.py::{name}" for name in script.FAILING_TESTS}
    assert failed.error and "2 failed" in failed.error
    # 3. The code is rewritten after the failure, then 4. the tests pass on the new code.
    rewrite_at, rewrite = next(
        (i, c) for i, c in writes if c.params["path"] == "slugify.py" and i > failed_at
    )
    assert rewrite.params["content"] == script.FIXED_CODE
    assert all(k.passed for k in passed.checks) and len(passed.checks) == len(failed.checks)
    assert max(first_code, first_tests) < failed_at < rewrite_at < passed_at


def test_a_hot_issue_opens_on_the_failure_and_the_passing_run_resolves_it(coding_run: CodingRun) -> None:
    run_tests = [c for _, c in coding_run.calls() if c.tool == "run_tests"]
    failed, passed = run_tests
    issues = coding_run.state.hot_issues
    assert {h.check_id for h in issues} == {f"pytest::test_slugify.py::{n}" for n in script.FAILING_TESTS}
    assert all(h.opened_by == failed.call_id and h.resolved_by == passed.call_id for h in issues)
    # The fold of the history, step by step: open from the failure until the passing run.
    events = coding_run.events

    def active_after(call_id: str) -> int:
        return len(replay(events[: coding_run.position(call_id) + 1]).active_hot_issues)

    rewrite = next(
        c for _, c in coding_run.calls() if c.tool == "write_file" and c.iteration > failed.iteration
    )
    assert active_after(failed.call_id) == 2
    assert active_after(rewrite.call_id) == 2  # a code change alone resolves nothing
    assert active_after(passed.call_id) == 0


def test_validation_completes_only_after_the_passing_run(coding_run: CodingRun) -> None:
    events = coding_run.events
    verdicts = [(i, e.verdict) for i, e in enumerate(events) if isinstance(e, ValidationRecorded)]
    passed = next(c for _, c in coding_run.calls() if c.tool == "run_tests" and c.outcome == "success")
    passed_at = coding_run.position(passed.call_id)
    before = [v for i, v in verdicts if i < passed_at]
    after = [v for i, v in verdicts if i > passed_at]
    assert before and all(not v.complete and TESTS_PASS in v.missing for v in before)
    assert len(after) == 1 and after[0].complete and TESTS_PASS in after[0].satisfied
    assert all(v.iteration == it for (_, v), it in zip(verdicts, range(1, 5), strict=True))
    ended = [e for e in events if isinstance(e, IterationCompleted)]
    assert [e.record.progress_assessment for e in ended] == ["advancing"] * 4


def test_prefect_has_the_iterations_and_completed_run_tests_task_runs(coding_run: CodingRun) -> None:
    flows, tasks = asyncio.run(_runs_of(coding_run.task_id))
    by_name = {f.name: f for f in flows}
    assert by_name[f"cairn-{coding_run.task_id}"].state_name == "Completed"
    iterations = sorted(name for name in by_name if name.startswith("iteration-"))
    assert iterations == [f"iteration-{n}" for n in range(1, 5)]
    assert all(by_name[n].state_name == "Completed" and by_name[n].parent_task_run_id for n in iterations)
    # A failing test is a failure *output* of a tool that ran fine, not a crashed task run.
    runs = [t for t in tasks if "tool:run_tests" in t.tags]
    assert len(runs) == 2 and all(t.name.startswith("run_tests") for t in runs)
    assert all(t.state_name == "Completed" for t in runs), [(t.name, t.state_name) for t in runs]
    writes = sorted(t.name for t in tasks if "tool:write_file" in t.tags)
    assert writes == [
        "write_file-README.md",
        "write_file-slugify.py",
        "write_file-slugify.py",
        "write_file-test_slugify.py",
    ]
    # Every scripted reply was asked for once: one model task run per cassette entry, kind by kind.
    asked = Counter(MODEL_RUN[match.group(1)] for t in tasks if (match := MODEL_RUN_NAME.fullmatch(t.name)))
    assert asked == Counter(kind for kind, _ in script.SCRIPT), sorted(t.name for t in tasks)


async def _runs_of(task_id: str) -> tuple[list[Any], list[Any]]:
    """The task's parent flow run (by name), its subflow runs and task runs (by tag `task:{id}`)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterName,
        FlowRunFilterTags,
        TaskRunFilter,
        TaskRunFilterTags,
    )

    tag, name = f"task:{task_id}", f"cairn-{task_id}"
    async with get_client() as client:
        named = FlowRunFilter(name=FlowRunFilterName(any_=[name]))
        parent = await client.read_flow_runs(flow_run_filter=named, **listing("flow_runs"))  # type: ignore[arg-type]
        tagged = FlowRunFilter(tags=FlowRunFilterTags(all_=[tag]))
        subflows = await client.read_flow_runs(flow_run_filter=tagged, **listing("flow_runs"))  # type: ignore[arg-type]
        of_task = TaskRunFilter(tags=TaskRunFilterTags(all_=[tag]))
        tasks = await client.read_task_runs(task_run_filter=of_task, **listing("task_runs"))  # type: ignore[arg-type]
    return parent + [f for f in subflows if f.id not in {p.id for p in parent}], tasks
