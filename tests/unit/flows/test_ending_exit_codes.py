"""Each way a task ends has its exit code (README, "Exit codes"); `--json` reports the same one.

The stop reasons come from the loop policy itself (`decide` over states that meet each condition),
so a reason the policy words differently is still mapped by what it is.
"""

from __future__ import annotations

import pytest

from cairn.core import CallCost, Coverage, Evidence, IterationRecord, ModelCall, PartCheck, ToolCall, Verdict
from cairn.flows.cli.endings import TaskIncomplete, ending, exit_code
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.loop.policy import decide
from cairn.memory.log.state import TaskState


def _it(
    i: int, progress: str = "advancing", calls: list[ToolCall] | None = None, mode: str = "fast"
) -> IterationRecord:
    return IterationRecord(iteration=i, progress_assessment=progress, tool_calls=calls or [], mode=mode)  # type: ignore[arg-type]


def _ev(i: int) -> Evidence:
    return Evidence(type="execution", content=f"e{i}", source=f"c{i}", iteration=i)


def _read(i: int) -> ToolCall:
    return ToolCall(call_id=f"c{i}", iteration=i, index=1, tool="read_file", params={"path": "x"})


NO = Verdict(
    complete=False,
    confidence=0.5,
    rationale="no",
    missing=["synthesis"],
    unmet=["6.43 ms is in no file read"],
)
STATES: dict[str, tuple[TaskState, int]] = {
    "complete": (TaskState(verdicts=[Verdict(complete=True, confidence=1, rationale="ok")]), 0),
    "iteration cap": (TaskState(max_iterations=2, iterations=[_it(1), _it(2)], evidence=[_ev(1), _ev(2)]), 8),
    "same call": (TaskState(iterations=[_it(i, calls=[_read(i)]) for i in (1, 2, 3)], evidence=[_ev(1)]), 8),
    "validations": (TaskState(iterations=[_it(1)], evidence=[_ev(1)], verdicts=[NO] * 5), 8),
    "no evidence": (TaskState(iterations=[_it(i) for i in range(1, 7)], evidence=[_ev(1)]), 8),
    "stuck": (
        TaskState(
            iterations=[
                _it(1),
                _it(2, "stuck"),
                _it(3, "stuck"),
                _it(4, "stuck", mode="deep"),
                _it(5, "stuck", mode="deep"),
            ],
            evidence=[_ev(i) for i in range(1, 6)],
        ),
        8,
    ),
    "not stated": (
        TaskState(
            iterations=[_it(1)],
            evidence=[_ev(1)],
            verdicts=[
                NO.model_copy(
                    update={
                        "iteration": 1,
                        "parts": [PartCheck(part="Who leads it?", answered=False, not_stated=True)],
                    }
                )
            ],
        ),
        8,
    ),
    "covered": (
        TaskState(
            iterations=[_it(1)],
            evidence=[_ev(1)],
            verdicts=[NO.model_copy(update={"iteration": 1})],
            coverage=Coverage(sources=2, read=2, kind="service", fields=["owner"], items=3, done=2),
        ),
        8,
    ),
    "model unavailable": (
        TaskState(model_calls=[ModelCall(key="k", kind="plan", model="m", ok=False, error="refused")] * 3),
        4,
    ),
    "budget": (
        TaskState(
            max_usd=0.01, model_calls=[ModelCall(key="k", kind="plan", model="m", cost=CallCost(usd=0.02))]
        ),
        5,
    ),
}


SAID = {  # how the policy words each stop: the state above meets the condition it is named for
    "complete": "complete:",
    "iteration cap": "iteration cap of 2",
    "same call": "the same call ran 3 times",
    "validations": "5 validations without completion",
    "no evidence": "no new evidence",
    "stuck": "4 iterations stuck or regressing",
    "not stated": "not_stated:",
    "covered": "covered:",
    "model unavailable": "model_unavailable:",
    "budget": "budget:",
}


@pytest.mark.parametrize("name", STATES)
def test_each_stop_reason_has_its_exit_code_and_json_reports_it(name: str) -> None:
    state, code = STATES[name]
    reason = decide(state).stop
    assert reason and reason.startswith(SAID[name]), f"{name}: the policy said {reason!r}"
    status = (
        "complete" if state.verdict is not None and state.verdict.complete else "incomplete"
    )  # as `finish`
    result = TaskResult(
        task_id="t",
        status=status,
        complete=status == "complete",
        iterations=len(state.iterations),
        workspace="ws",
        report_path=None,
        stop_reason=reason,
        verdict=state.verdict,
        unmet=state.verdict.unmet if state.verdict and status != "complete" else [],
    )
    assert exit_code(result, "ws") == code
    error = ending(result, "ws")
    assert (error.exit_code if error else 0) == code
    if code:
        assert error is not None and "\n" not in str(error) and "cairn " in str(error)


def test_an_incomplete_task_says_so_in_one_line_with_where_to_look() -> None:
    result = TaskResult(
        task_id="wc-1a2b",
        status="incomplete",
        complete=False,
        iterations=6,
        workspace="ws",
        report_path=None,
        stop_reason="iteration cap of 6 reached",
        verdict=NO,
        unmet=NO.unmet,
    )
    error = ending(result, "ws")
    assert isinstance(error, TaskIncomplete) and error.exit_code == 8
    assert str(error) == (
        "task wc-1a2b ended incomplete (iteration cap of 6 reached, 1 check unmet): its best answer is "
        "kept, marked Unverified; `cairn show wc-1a2b --workspace ws` lists what is unmet"
    )


@pytest.mark.parametrize(("status", "code"), [("stopped", 8), ("failed", 1), ("running", 1)])
def test_a_task_that_ended_before_0_3_or_failed_is_not_done(status: str, code: int) -> None:
    result = TaskResult(
        task_id="t",
        status=status,
        complete=False,
        iterations=1,
        workspace="ws",
        report_path=None,
        stop_reason="no new evidence for 5 iterations",
        verdict=None,
    )
    assert exit_code(result, "ws") == code


def test_an_answer_over_a_source_searched_for_every_question_ends_unverified_without_asking_again() -> None:
    """A conversation too long to read whole, searched for each question's words, then answered
    unproven: the next iterations asked the same model the same request and got the same answer
    (LoCoMo, three times each). A source searched so counts as read for this stop."""
    answer = ToolCall(call_id="a2", iteration=2, index=1, tool="answer", params={})
    part = PartCheck(part="When did Caroline go to the support group?", answered=False, value="8 May 2023")
    judged = NO.model_copy(update={"iteration": 2, "parts": [part]})
    state = TaskState(
        iterations=[_it(1, calls=[_read(1)]), _it(2, calls=[answer])],
        evidence=[_ev(1), _ev(2)],
        verdicts=[judged],
        coverage=Coverage(sources=1, read=0),
    )
    assert decide(state).stop is None  # not searched for every question: reading on may find it
    searched = state.model_copy(update={"verdicts": [judged.model_copy(update={"every_source_read": True})]})
    assert decide(searched).stop == (
        "unverified: every source searched, and the verifier does not prove: "
        "When did Caroline go to the support group? (unverified)"
    )
