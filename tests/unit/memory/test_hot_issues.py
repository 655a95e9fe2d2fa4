"""Hot issues: opened by failing checks, resolved by the same check passing, in every prompt meanwhile."""

from __future__ import annotations

from pathlib import Path

from cairn.core import CheckOutcome, Envelope, Outcome, TaskCreated, ToolCall, ToolCallRecorded
from cairn.memory.context.relevant import rules_block
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.index.indexer import records_for
from cairn.memory.log.state import TaskState, replay
from cairn.memory.store.sqlite_store import SQLiteStore


def run(n: int, tool: str, outcome: Outcome, **checks: bool) -> ToolCall:
    return ToolCall(
        call_id=f"call-{n}-1",
        iteration=n,
        index=1,
        tool=tool,
        outcome=outcome,
        checks=[
            CheckOutcome(check_id=c.replace("__", "::"), passed=ok, detail="boom") for c, ok in checks.items()
        ],
    )


def fold(*calls: ToolCall) -> TaskState:
    return replay(
        [
            TaskCreated(task_id="t", goal="g", task_type="coding_task"),
            *(ToolCallRecorded(call=c) for c in calls),
        ]
    )


def test_each_failing_check_is_one_issue_and_repeats_do_not_duplicate() -> None:
    state = fold(
        run(1, "run_tests", "failure", t__a=False, t__b=False, t__c=True),
        run(2, "run_tests", "failure", t__a=False, t__b=False),
    )
    assert sorted(h.check_id for h in state.active_hot_issues) == ["t::a", "t::b"]
    assert len(state.hot_issues) == 2


def test_a_check_passing_later_resolves_only_its_issue() -> None:
    state = fold(
        run(1, "run_tests", "failure", t__a=False, t__b=False),
        run(2, "run_tests", "failure", t__a=True, t__b=False),
    )
    resolved = [h for h in state.hot_issues if not h.active]
    assert [h.check_id for h in resolved] == ["t::a"] and resolved[0].resolved_by == "call-2-1"
    assert [h.check_id for h in state.active_hot_issues] == ["t::b"]


def test_lint_and_tests_are_tracked_apart_and_errors_without_checks_change_nothing() -> None:
    state = fold(
        run(1, "run_tests", "failure", t__a=False),
        run(2, "lint", "success", E501=True),
        run(3, "run_tests", "timeout"),
    )
    assert [h.check_id for h in state.active_hot_issues] == ["t::a"]  # lint passing does not resolve a test
    state = fold(run(1, "lint", "failure"))
    assert [h.check_id for h in state.active_hot_issues] == ["lint::run"]


def test_open_issues_are_in_the_prompt_block_until_resolved(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db", HashingEmbedder(dim=64))
    failing = fold(run(1, "run_tests", "failure", t__a=False))
    assert "[Hot Issue] run_tests failing: t::a — boom" in rules_block(failing, store)
    fixed = fold(run(1, "run_tests", "failure", t__a=False), run(2, "run_tests", "success", t__a=True))
    assert "Hot Issue" not in rules_block(fixed, store)


def test_the_index_marks_a_resolved_issue_inactive(tmp_path: Path) -> None:
    state = fold(run(1, "run_tests", "failure", t__a=False))
    call = run(2, "run_tests", "success", t__a=True)
    envelope = Envelope(seq=9, ts=1.0, prev="0", hash="1", event=ToolCallRecorded(call=call))
    issues = [m for m in records_for(state, envelope, tmp_path) if m.kind == "hot_issue"]
    assert len(issues) == 1 and issues[0].key.endswith("run_tests:t::a") and not issues[0].active
