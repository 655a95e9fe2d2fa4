"""A scripted 50-iteration run through the iteration's own steps (no Prefect engine).

The planner, compressor and synthesizer see the real prompts `cairn.tasks.messages.prompts` renders;
the scripted model keeps them. Tool outputs are scripted: source files, a test run whose checks fail and are
fixed, a lint failure, search results. Feedback arrives mid-run and one rule is retired.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.core import CheckOutcome, PlannedCall, main_argument
from cairn.flows.loop.standing_rules import give_feedback, list_rules, retire_rule
from cairn.memory.context.reasoning import approx_tokens
from cairn.memory.log.state import HotIssue, TaskState, update_hot_issues
from cairn.tasks.messages.schemas import Candidate, PlanInput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.tools.base import ToolOutput
from tests.unit.scripted import ScriptedModel, create_task, drive_iteration, register, workspace_config

ROOT = Path(__file__).resolve().parents[3]
SOURCES = sorted((ROOT / "cairn" / "memory").rglob("*.py"))
GOAL = "Fix the payment module so its tests pass. Never use requirements.txt; use pyproject.toml instead."
FEEDBACK_RULE = "From now on, always add type hints to new functions."
BUDGET = 700
ITERATIONS = 50


def plan(payload: PlanInput) -> list[Candidate]:
    # Each call names its iteration in its argument: the same call twice would be a repeat.
    n = payload.iteration
    lint = [Candidate(tool="lint", params={"target": f"src/run-{n}"})] if n in (30, 31, 35) else []
    return [
        *lint,
        Candidate(tool="read_file", params={"path": f"src/run-{n}/{SOURCES[n % len(SOURCES)].name}"}),
        Candidate(tool="run_tests", params={"target": f"tests/run-{n}"}),
        Candidate(tool="search_memory", params={"query": f"payment refund currency {n}"}),
    ]


def _run_number(call: PlannedCall) -> int:
    return int(re.findall(r"run-(\d+)", str(main_argument(call.params)))[0])


def failing_tests(n: int) -> set[str]:
    refund = {"tests/test_pay.py::test_refund"} if 5 <= n < 20 else set()
    return refund | ({"tests/test_pay.py::test_currency"} if 12 <= n < 30 else set())


def outputs(call: PlannedCall) -> ToolOutput:
    if call.tool == "search_memory":
        return ToolOutput(
            text=f"[document_chunk src/pay.py] def refund(amount): ... ({call.params['query']})"
        )
    n = _run_number(call)
    if call.tool == "read_file":
        return ToolOutput(
            text=SOURCES[n % len(SOURCES)].read_text(encoding="utf-8"), paths=[str(call.params["path"])]
        )
    if call.tool == "run_tests":
        names = [
            "tests/test_pay.py::test_refund",
            "tests/test_pay.py::test_currency",
            "tests/test_pay.py::test_ok",
        ]
        checks = [
            CheckOutcome(check_id=c, passed=c not in failing_tests(n), detail="AssertionError") for c in names
        ]
        failed = [c for c in checks if not c.passed]
        log = "\n".join(f"{'FAILED' if not c.passed else 'PASSED'} {c.check_id}" for c in checks)
        return ToolOutput(text=log, outcome="failure" if failed else "success", checks=checks)
    if call.tool == "lint":
        bad = n < 35
        checks = [CheckOutcome(check_id="E501:src/pay.py", passed=not bad, detail="line too long")]
        return ToolOutput(
            text="src/pay.py:3:1: E501" if bad else "All checks passed",
            checks=checks,
            outcome="failure" if bad else "success",
        )
    raise AssertionError(f"no scripted output for {call.tool}")


@pytest.fixture()
def model() -> Iterator[ScriptedModel]:
    scripted = ScriptedModel(plan)
    undo = register(scripted)
    yield scripted
    undo()


def test_fifty_iterations_keep_rules_and_hot_issues_in_every_prompt(
    tmp_path: Path, model: ScriptedModel
) -> None:
    config = workspace_config(
        tmp_path,
        context_tokens=BUDGET,
        compress="batch",
        max_iterations=ITERATIONS,
        skip_compress=("list_directory",),  # every iteration's tests and lint go through the model
    )
    create_task(config, "pay-fix", GOAL)
    offline = ModelClient("script/model")  # extraction answered like cairn/offline, without its tokenizer
    before: list[TaskState] = []
    after: list[TaskState] = []
    retired = ""
    for n in range(1, ITERATIONS + 1):
        if n == 10:
            assert give_feedback(config, "pay-fix", FEEDBACK_RULE, client=offline).rule
        if n == 20:
            assert give_feedback(config, "pay-fix", "Looks good so far.", client=offline).rule is None
        if n == 40:
            retired = retire_rule(
                config, next(r.key for r in list_rules(config) if "type hints" in r.rule)
            ).rule
        session = drive_iteration(config, "pay-fix", n, outputs)
        context = model.of_kind("plan")[-1][1].context
        before.append(_at_plan_time(session.state))
        after.append(session.state)
        history = context.split("REASONING HISTORY")[1].splitlines()[1:-1]
        assert sum(approx_tokens(line) + 1 for line in history) <= BUDGET

    plans = [payload for _, payload in model.of_kind("plan")]
    batches = [payload for _, payload in model.of_kind("compress_batch")]
    syntheses = [payload for _, payload in model.of_kind("synthesize")]
    assert len(plans) == len(syntheses) == ITERATIONS and len(batches) == ITERATIONS
    for n, (plan_in, batch_in, synth_in) in enumerate(zip(plans, batches, syntheses, strict=True), start=1):
        state = before[n - 1]
        _assert_carries(plan_in.context, state, n)
        _assert_carries(batch_in.context, state, n)
        _assert_carries(synth_in.context, after[n - 1], n)

    # The feedback reached the planner of the iteration that took it in, and only that one.
    assert plans[9].feedback == [FEEDBACK_RULE] and plans[10].feedback == []
    assert plans[19].feedback == ["Looks good so far."] and syntheses[19].feedback == ["Looks good so far."]
    # The rule it stated is in every prompt from iteration 10 until it was retired at 40.
    assert all("type hints" in p.context for p in plans[9:39])
    assert retired and not any("type hints" in p.context for p in plans[39:])
    # Resolved hot issues leave the prompt: refund fixed at 20, currency at 30, lint at 35.
    refund = "[Hot Issue] run_tests failing: tests/test_pay.py::test_refund"
    assert all(refund in p.context for p in plans[5:19]) and not any(refund in p.context for p in plans[20:])
    assert any("E501" in p.context for p in plans[30:35]) and not any(
        "[Hot Issue] lint" in p.context for p in plans[35:]
    )
    goal_rule = "[Constraint] Never use requirements.txt; use pyproject.toml instead."
    assert all(goal_rule in p.context for p in plans)
    final = after[-1]
    assert not final.active_hot_issues and len(final.hot_issues) == 3
    assert all(c.compression_cost.tokens > 0 for c in final.calls if c.tool != "list_directory")


def _at_plan_time(state: TaskState) -> TaskState:
    """The state the planner saw: hot issues as the calls before this iteration left them."""
    issues: list[HotIssue] = []
    for call in (c for it in state.iterations[:-1] for c in it.tool_calls):
        issues = update_hot_issues(issues, call)
    return state.model_copy(update={"hot_issues": issues})


def _assert_carries(context: str, state: TaskState, n: int) -> None:
    for constraint in state.active_constraints:
        assert f"[Constraint] {constraint.rule}" in context, (n, constraint)
    for issue in state.active_hot_issues:
        assert f"[Hot Issue] {issue.content}" in context, (n, issue)
    for issue in state.hot_issues:
        if not issue.active:
            assert f"[Hot Issue] {issue.content}" not in context, (n, issue)
