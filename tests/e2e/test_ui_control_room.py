"""The Prefect UI as the control room, in a real browser against `cairn server start` (with its
worker): Retry continues a killed task in the same flow run; a review form's feedback reaches the
next plan, and its decision can stop the task. Playwright drives Debian's Chromium
(`tests/e2e/browser.py`); a failing test leaves a screenshot of its page in `test-screenshots/`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cairn.core import EVENT_ADAPTER, ToolsConfig
from cairn.flows.steps.frontier import plan_input
from cairn.memory.log.state import replay
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import render
from cairn.tasks.toolset import toolset_for
from tests.conftest import BIN, CORPUS, QUESTION_FILE, ROOT
from tests.e2e.browser import UiServer, chromium, history_events, page_for, ui_server, wait_for_event

pytestmark = [pytest.mark.e2e, pytest.mark.browser]
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()
FEEDBACK = "Read reservoir.md first and cite it in the answer."


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    with ui_server(tmp_path_factory.mktemp("ui")) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    with page_for(browser, request.node) as opened:
        yield opened


def _run_args(ws: Path, task_id: str, review: str) -> list[str]:
    return [
        "run",
        QUESTION,
        "--source",
        str(CORPUS),
        "--workspace",
        str(ws),
        "--task-id",
        task_id,
        "--review",
        review,
    ]


def test_retry_in_the_ui_continues_a_killed_task_in_the_same_flow_run(
    ui: UiServer, page: Any, tmp_path: Path
) -> None:
    ws, task = tmp_path / "ws", "ui-retry"
    # SIGKILLed in iteration 2 (after the opening read of six files), its results not yet recorded.
    faults = [sys.executable, "-m", "tests.e2e.faults", "--kill-after-results", "7", "--"]
    killed = subprocess.run([*faults, *_run_args(ws, task, "never")], env=ui.env, cwd=ROOT, timeout=300)
    assert killed.returncode == -signal.SIGKILL
    assert len(Workspace(ws).task(task).state().iterations) == 1
    (run,) = ui.runs_named(f"cairn-{task}")
    run_id = run["id"]
    assert ui.wait_state(run_id, {"CRASHED"}, timeout=30) == "CRASHED"

    page.goto(f"{ui.ui_url}/runs/flow-run/{run_id}")
    page.get_by_text("press Retry on this run").first.wait_for(timeout=30_000)  # the ERROR line
    crashed = ui.state_id(run_id)
    page.get_by_role("button", name="Retry").first.click()
    page.get_by_role("dialog").get_by_role("button", name="Retry").click()

    # The Crashed state above is looked past: the first look may come before the Retry lands.
    assert (
        ui.wait_state(run_id, {"COMPLETED", "FAILED", "CRASHED"}, timeout=300, after=crashed) == "COMPLETED"
    )
    assert [r["id"] for r in ui.runs_named(f"cairn-{task}")] == [run_id]  # continued, not replaced
    state = Workspace(ws).task(task).state()
    assert state.status == "complete" and len(state.iterations) > 1
    calls = [
        e["call"]["call_id"]
        for e in history_events(ws / "tasks" / task / "history.jsonl")
        if e["type"] == "tool_call"
    ]
    assert calls and len(calls) == len(set(calls)), calls  # no call twice
    assert _cached_task_runs(ui, task), "the calls that finished before the kill show Cached"

    answer = _first_bullet(Path(str(state.report_path)))
    page.goto(f"{ui.ui_url}/artifacts/artifact/{ui.artifact_id(f'{task}-result')}")
    page.get_by_text(answer).first.wait_for(timeout=30_000)


def test_a_review_form_sends_feedback_into_the_next_plan(ui: UiServer, page: Any, tmp_path: Path) -> None:
    ws, task = tmp_path / "ws", "ui-review"
    history = ws / "tasks" / task / "history.jsonl"
    first = subprocess.run(
        [str(BIN / "cairn"), *_run_args(ws, task, "every"), "--json"],
        env=ui.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert first.returncode == 0, first.stderr[-3000:]
    waiting = json.loads(first.stdout)
    assert waiting["status"] == "awaiting_review", waiting
    run_id = waiting["flow_run_id"]
    assert ui.flow_run(run_id)["state"]["name"] == "Suspended"

    _submit_review(page, ui, run_id, FEEDBACK, decision=None)
    wait_for_event(history, "iteration_started", timeout=300, where=lambda e: e["iteration"] == 2)
    events = history_events(history)
    review = next(e for e in events if e["type"] == "review_decided")
    assert (review["iteration"], review["decision"], review["feedback"]) == (1, "continue", FEEDBACK)
    assert {"type": "user_message", "text": FEEDBACK, "role": "feedback"} in events
    assert FEEDBACK in _plan_prompt(events, iteration=2)

    # The offline task is complete after iteration 2: no review point after the last iteration.
    assert ui.wait_state(run_id, {"COMPLETED", "FAILED", "CRASHED"}, timeout=300) == "COMPLETED"
    assert [r["id"] for r in ui.runs_named(f"cairn-{task}")] == [run_id]  # resumed, not replaced
    state = Workspace(ws).task(task).state()
    assert state.status == "complete"
    assert [(r.iteration, r.decision, r.reviewer) for r in state.reviews] == [(1, "continue", "ui")]


def test_a_review_form_can_stop_the_task(ui: UiServer, page: Any, tmp_path: Path) -> None:
    ws, task = tmp_path / "ws", "ui-review-stop"
    first = subprocess.run(
        [str(BIN / "cairn"), *_run_args(ws, task, "every"), "--json"],
        env=ui.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert first.returncode == 0, first.stderr[-3000:]
    run_id = json.loads(first.stdout)["flow_run_id"]

    _submit_review(page, ui, run_id, "", decision="stop")
    assert ui.wait_state(run_id, {"COMPLETED", "FAILED", "CRASHED"}, timeout=300) == "COMPLETED"
    state = Workspace(ws).task(task).state()
    assert state.stop_reason == "stopped by the reviewer after iteration 1"
    assert [(r.iteration, r.decision) for r in state.reviews] == [(1, "stop")]
    assert len(state.iterations) == 1


def _submit_review(page: Any, ui: UiServer, run_id: str, feedback: str, decision: str | None) -> None:
    page.goto(f"{ui.ui_url}/runs/flow-run/{run_id}")
    page.get_by_role("button", name="Resume").first.click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_text("after iteration").first.wait_for(timeout=30_000)  # the form's description
    if feedback:
        dialog.locator("textarea").fill(feedback)
    if decision:  # the select opens from the keyboard (a click in the modal closes it again)
        dialog.locator(".p-select-button__control").press("ArrowDown")
        page.get_by_role("option", name=decision).click()
        assert dialog.locator(".p-select-button__value").inner_text() == decision
    dialog.get_by_role("button", name="Submit").click()
    dialog.wait_for(state="hidden", timeout=30_000)


def _plan_prompt(events: list[dict[str, Any]], iteration: int) -> str:
    """The plan request of `iteration`, rendered from the state its history held when it planned."""
    before = []
    for event in events:
        if event["type"] == "plan_recorded" and event["iteration"] == iteration:
            break
        before.append(EVENT_ADAPTER.validate_python(event))
    state = replay(before)
    missing = state.verdict.missing if state.verdict else []
    specs = toolset_for(state.tools or ToolsConfig()).specs()
    messages = render("plan", plan_input(state, specs, "", missing))
    return "\n".join(str(m["content"]) for m in messages)


def _cached_task_runs(ui: UiServer, task: str) -> list[str]:
    body = {
        "task_runs": {"tags": {"all_": [f"task:{task}"]}, "state": {"name": {"any_": ["Cached"]}}},
        "limit": 50,
    }
    response = httpx.post(f"{ui.api_url}/task_runs/filter", json=body, timeout=10)
    response.raise_for_status()
    return [r["name"] for r in response.json()]


def _first_bullet(report: Path) -> str:
    line = next(line for line in report.read_text(encoding="utf-8").splitlines() if line.startswith("- "))
    return line[2:42]


SCREENSHOT_CHECK = """
import pytest
from tests.e2e.browser import chromium, page_for

@pytest.fixture
def page(request):
    with chromium() as browser, page_for(browser, request.node) as opened:
        yield opened

def test_fails(page):
    page.set_content("<h1>a failing browser test</h1>")
    assert False

def test_passes(page):
    page.set_content("<h1>a passing browser test</h1>")
"""


def test_a_failing_browser_test_leaves_a_screenshot(tmp_path: Path) -> None:
    hook = "from tests.e2e.conftest import pytest_runtest_makereport  # noqa\n"
    (tmp_path / "conftest.py").write_text(hook)
    (tmp_path / "test_shot.py").write_text(SCREENSHOT_CHECK)
    shots = tmp_path / "shots"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CAIRN_TEST_SCREENSHOTS": str(shots)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_shot.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 1 and "1 failed, 1 passed" in run.stdout, run.stdout[-3000:]
    assert sorted(p.name for p in shots.iterdir()) == ["test_fails.png"]
    assert (shots / "test_fails.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
