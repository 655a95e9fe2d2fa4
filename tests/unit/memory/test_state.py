"""TaskState is a pure fold over events."""

from __future__ import annotations

from cairn.core import (
    CheckOutcome,
    ConstraintExtracted,
    ConstraintRetired,
    Evidence,
    EvidenceRecorded,
    IterationCompleted,
    IterationRecord,
    IterationStarted,
    TaskCreated,
    ToolCall,
    ToolCallRecorded,
    UserMessage,
)
from cairn.memory.log.state import replay

CREATED = TaskCreated(task_id="t1", goal="fix the bug", task_type="coding_task")


def _call(call_id: str, tool: str, outcome: str, checks: list[tuple[str, bool]]) -> ToolCallRecorded:
    return ToolCallRecorded(
        call=ToolCall(
            call_id=call_id,
            iteration=1,
            index=1,
            tool=tool,
            outcome=outcome,  # type: ignore[arg-type]
            checks=[CheckOutcome(check_id=c, passed=p) for c, p in checks],
        )
    )


def test_failing_checks_open_hot_issues_and_passing_runs_resolve_them() -> None:
    state = replay(
        [
            CREATED,
            IterationStarted(iteration=1),
            _call("c1", "run_tests", "failure", [("t::a", False), ("t::b", False)]),
        ]
    )
    assert sorted(h.check_id for h in state.active_hot_issues) == ["t::a", "t::b"]
    state = state.apply(_call("c2", "run_tests", "failure", [("t::a", True), ("t::b", False)]))
    assert [h.check_id for h in state.active_hot_issues] == ["t::b"]
    state = state.apply(_call("c3", "lint", "success", []))
    assert [h.check_id for h in state.active_hot_issues] == ["t::b"]  # another tool resolves nothing
    state = state.apply(_call("c4", "run_tests", "success", [("t::b", True)]))
    assert state.active_hot_issues == []
    assert {h.resolved_by for h in state.hot_issues} == {"c2", "c4"}


def test_a_failure_without_named_checks_is_still_one_issue() -> None:
    state = replay([CREATED, IterationStarted(iteration=1), _call("c1", "lint", "failure", [])])
    assert [h.check_id for h in state.active_hot_issues] == ["lint::run"]


def test_other_tools_never_open_hot_issues() -> None:
    state = replay([CREATED, IterationStarted(iteration=1), _call("c1", "read_file", "failure", [])])
    assert state.hot_issues == []


def test_constraints_are_deduplicated_by_key_and_can_be_retired() -> None:
    rule = ConstraintExtracted(
        message="never use requirements.txt", rule="Never use requirements.txt.", key="k1"
    )
    state = replay([CREATED, rule, rule, ConstraintExtracted(message="hello")])
    assert [c.rule for c in state.active_constraints] == ["Never use requirements.txt."]
    state = state.apply(ConstraintRetired(key="k1"))
    assert state.active_constraints == [] and len(state.constraints) == 1


def test_feedback_is_pending_until_an_iteration_takes_it_in() -> None:
    state = replay([CREATED, UserMessage(text="use pyproject", role="feedback")])
    assert state.pending_feedback == ["use pyproject"]
    state = state.apply(IterationStarted(iteration=1, feedback=state.pending_feedback))
    assert state.pending_feedback == [] and state.iteration_feedback == ["use pyproject"]


def test_evidence_is_never_duplicated_on_replay() -> None:
    ev = Evidence(type="synthesis", content="answer", source="call-1-1")
    state = replay([CREATED, EvidenceRecorded(evidence=[ev]), EvidenceRecorded(evidence=[ev])])
    assert len(state.evidence) == 1


def test_completed_iteration_moves_pending_calls_into_the_record() -> None:
    call = _call("c1", "read_file", "success", [])
    state = replay([CREATED, IterationStarted(iteration=1), call])
    assert [c.call_id for c in state.pending_calls] == ["c1"]
    state = state.apply(
        IterationCompleted(record=IterationRecord(iteration=1, tool_calls=state.pending_calls))
    )
    assert state.pending_calls == [] and [c.call_id for c in state.calls] == ["c1"] and state.current == 0
