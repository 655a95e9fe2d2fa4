"""Layer 2: compressed lines, relevance tiers, the token budget and its cached counter."""

from __future__ import annotations

from cairn.core import IterationRecord, Relevance, ToolCall
from cairn.memory.context.reasoning import (
    LineCounter,
    approx_tokens,
    context_budget,
    fit_lines,
    key_decisions,
    reasoning_lines,
)
from cairn.memory.log.state import Constraint, HotIssue, TaskState
from cairn.tasks.compress import line_counter

RELEVANCE: tuple[Relevance, ...] = ("high", "medium", "low", "low", "medium")


def long_task(iterations: int, per_iteration: int = 3) -> TaskState:
    records = [
        IterationRecord(
            iteration=n,
            tool_calls=[
                ToolCall(
                    call_id=f"call-{n}-{i}",
                    iteration=n,
                    index=i,
                    tool="read_file",
                    params={"path": f"src/module_{n}_{i}.py"},
                    relevance=RELEVANCE[(n + i) % len(RELEVANCE)],
                    insights=f"module {n}.{i} defines the refund path and {n * i} helpers",
                    learning="read tests next",
                )
                for i in range(1, per_iteration + 1)
            ],
        )
        for n in range(1, iterations + 1)
    ]
    return TaskState(task_id="t", goal="fix refunds", iterations=records)


def tier_and_iteration(line: str) -> tuple[str, int]:
    tier, rest = line[3:].split("] it", 1)
    return tier, int(rest.split()[0])


def test_lines_are_tiered_high_first_and_chronological_within_a_tier() -> None:
    lines = reasoning_lines(long_task(10), budget_tokens=100_000)
    keys = [tier_and_iteration(line) for line in lines]
    tiers = [t for t, _ in keys]
    assert tiers == sorted(tiers, key=("high", "medium", "low").index)
    for tier in ("high", "medium", "low"):
        its = [n for t, n in keys if t == tier]
        assert its == sorted(its)
    assert len(lines) == 30


def test_a_200_iteration_task_stays_within_budget_by_litellm_tokens() -> None:
    state = long_task(200)
    count = line_counter("cairn/offline")
    for budget in (300, 1500, 6000):
        lines = reasoning_lines(state, budget_tokens=budget, count=count)
        assert lines
        assert count("\n".join(lines)) <= budget


def test_high_records_are_kept_while_any_lower_tier_remains() -> None:
    state = long_task(200)
    highs = [c for c in state.calls if c.relevance == "high"]
    for budget in (500, 2000, 5000, 9000):
        kept = [tier_and_iteration(line) for line in fit_lines(state.calls, budget_tokens=budget)]
        kept_high = [n for t, n in kept if t == "high"]
        if any(t != "high" for t, _ in kept):
            assert len(kept_high) == len(highs), budget  # no high record dropped while lower ones stay
        else:
            # Only highs left: the most recent ones survive, the oldest went first.
            assert kept_high == sorted(c.iteration for c in highs)[-len(kept_high) :]
        lows = [n for t, n in kept if t == "low"]
        if lows:
            assert lows == sorted(c.iteration for c in state.calls if c.relevance == "low")[-len(lows) :]


def test_counter_caches_per_line() -> None:
    calls: list[str] = []

    def counting(text: str) -> int:
        calls.append(text)
        return approx_tokens(text)

    counter = LineCounter(counting)
    state = long_task(200)
    first = reasoning_lines(state, budget_tokens=4000, count=counter)
    distinct = len(calls)
    second = reasoning_lines(state, budget_tokens=4000, count=counter)
    assert first == second and len(calls) == distinct == 600


def test_budget_is_a_share_of_the_window_capped() -> None:
    assert context_budget(8192) == 2048
    assert context_budget(200_000) == 8000
    assert context_budget(100) == 256


def test_key_decisions_tell_rules_feedback_files_issues_and_turning_points() -> None:
    state = long_task(6).model_copy(
        update={
            "constraints": [
                Constraint(key="k1", rule="Never use tabs."),
                Constraint(key="k2", rule="Old", active=False),
            ],
            "hot_issues": [
                HotIssue(
                    tool="run_tests",
                    check_id="t::a",
                    content="run_tests failing: t::a",
                    opened_by="call-2-1",
                    resolved_by="call-4-1",
                ),
                HotIssue(tool="lint", check_id="E1", content="lint failing: E1", opened_by="call-5-1"),
            ],
        }
    )
    stuck = [
        it.model_copy(update={"progress_assessment": "stuck", "mode": "deep"}) if it.iteration == 4 else it
        for it in state.iterations
    ]
    text = "\n".join(key_decisions(state.model_copy(update={"iterations": stuck})))
    assert "[active] Never use tabs." in text and "[retired] Old" in text
    assert "[resolved by call-4-1] run_tests failing: t::a" in text and "[open] lint failing: E1" in text
    assert "it4 [stuck, deep]" in text and "it5 [advancing, fast]" in text
    focused = key_decisions(state, focus="module 3.2")
    findings = focused[focused.index("KEY FINDINGS:") + 1 :] if "KEY FINDINGS:" in focused else []
    assert all("3.2" in line or "module" in line for line in findings)
