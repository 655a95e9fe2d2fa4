"""The BFS frontier and the loop policy, as plain functions."""

from __future__ import annotations

from cairn.core import Evidence, IterationRecord, PlannedCall, ToolCall, Verdict
from cairn.flows.loop.policy import LoopPolicy, decide
from cairn.flows.steps.frontier import done_signatures, merge_frontier, pop_best, score
from cairn.memory.log.state import TaskState


def _p(tool: str, path: str, expected: list[str] | None = None) -> PlannedCall:
    return PlannedCall(tool=tool, params={"path": path}, expected_evidence=expected or [])  # type: ignore[arg-type]


def test_candidates_toward_missing_requirements_score_higher() -> None:
    write = _p("write_file", "report.md", ["synthesis", "documentation"])
    read = _p("read_file", "a.md")
    missing = ["documentation cites its sources", "synthesis recorded"]
    assert score(write, missing, set()) > score(read, missing, set())


def test_done_calls_never_return_to_the_frontier_and_duplicates_merge() -> None:
    a, b = _p("read_file", "a.md"), _p("read_file", "b.md")
    frontier = merge_frontier([a], [a, b], done={b.signature}, missing=[])
    assert [c.params["path"] for c in frontier] == ["a.md"]


def test_pop_best_takes_the_beam_and_one_write_per_path() -> None:
    w1 = _p("write_file", "r.md", ["synthesis"])
    w2 = PlannedCall(
        tool="write_file", params={"path": "r.md", "content": "other"}, expected_evidence=["synthesis"]
    )
    r = _p("read_file", "a.md")
    batch, rest = pop_best([w1, w2, r], beam=3, done=set())
    assert batch == [w1, r] and rest == [w2]


def test_a_check_is_done_until_a_file_is_written_after_it() -> None:
    tests = ToolCall(call_id="call-2-1", iteration=2, index=1, tool="run_tests", params={"target": "."})
    write = ToolCall(call_id="call-3-1", iteration=3, index=1, tool="write_file", params={"path": "a.py"})
    rerun = PlannedCall(tool="run_tests", params={"target": "."})
    before = TaskState(iterations=[_it(1), _it(2, calls=[tests])])
    after = TaskState(iterations=[_it(1), _it(2, calls=[tests]), _it(3, calls=[write])])
    assert rerun.signature in done_signatures(before)  # nothing changed: running it again is a loop
    assert rerun.signature not in done_signatures(after)  # the code changed: the tests are worth a rerun
    assert write.tool + ":" + '{"path": "a.py"}' in done_signatures(after)


def _calls(n: int, tool: str = "read_file", same: bool = False) -> list[ToolCall]:
    return [
        ToolCall(
            call_id=f"c{i}", iteration=i + 1, index=1, tool=tool, params={"path": "x" if same else f"f{i}"}
        )
        for i in range(n)
    ]


def _it(
    i: int, progress: str = "advancing", calls: list[ToolCall] | None = None, mode: str = "fast"
) -> IterationRecord:
    return IterationRecord(iteration=i, progress_assessment=progress, tool_calls=calls or [], mode=mode)  # type: ignore[arg-type]


def _ev(i: int) -> Evidence:
    return Evidence(type="execution", content=f"e{i}", source=f"c{i}", iteration=i)


def test_complete_verdict_stops() -> None:
    state = TaskState(verdicts=[Verdict(complete=True, confidence=1, rationale="ok")])
    assert decide(state).stop and "complete" in str(decide(state).stop)


def test_iteration_cap() -> None:
    state = TaskState(max_iterations=2, iterations=[_it(1), _it(2)], evidence=[_ev(1), _ev(2)])
    assert decide(state).stop == "iteration cap of 2 reached"


def test_same_call_three_times() -> None:
    calls = _calls(3, same=True)
    state = TaskState(iterations=[_it(i + 1, calls=[c]) for i, c in enumerate(calls)], evidence=[_ev(1)])
    assert "same call ran 3 times" in str(decide(state).stop)


def test_five_failed_validations() -> None:
    verdicts = [
        Verdict(complete=False, confidence=0.5, rationale="no", missing=["synthesis"]) for _ in range(5)
    ]
    state = TaskState(iterations=[_it(1)], evidence=[_ev(1)], verdicts=verdicts)
    assert "5 validations without completion" in str(decide(state).stop)
    assert decide(state.model_copy(update={"verdicts": verdicts[:4]})).stop is None


def test_a_coding_iteration_that_wrote_code_and_ran_no_tests_is_not_a_failed_validation() -> None:
    def cycle(i: int) -> list[IterationRecord]:  # write, then test (the tests fail)
        write = ToolCall(
            call_id=f"w{i}",
            iteration=i,
            index=1,
            tool="write_file",
            params={"path": "a.py", "content": f"v{i}"},
        )
        test = ToolCall(call_id=f"t{i}", iteration=i + 1, index=1, tool="run_tests", outcome="failure")
        return [_it(i, calls=[write]), _it(i + 1, calls=[test])]

    its = [*cycle(1), *cycle(3), _it(5, calls=cycle(5)[0].tool_calls)]
    verdicts = [
        Verdict(complete=False, confidence=0.0, rationale="no", missing=["tests pass"], iteration=i)
        for i in range(1, 6)
    ]
    coding = TaskState(task_type="coding_task", iterations=its, evidence=[_ev(5)], verdicts=verdicts)
    assert decide(coding).stop is None  # 2 test runs failed: the third body is tested next
    report = coding.model_copy(update={"task_type": "research_task"})
    assert "5 validations without completion" in str(decide(report).stop)  # a written report is judged


def test_no_new_evidence_for_n_iterations() -> None:
    its = [_it(i) for i in range(1, 7)]
    state = TaskState(iterations=its, evidence=[_ev(1)])
    assert (
        decide(state, LoopPolicy(no_evidence_iterations=5)).stop
        == "no new evidence or new ground for 5 iterations"
    )
    assert decide(state, LoopPolicy(no_evidence_iterations=6)).stop is None


def test_stuck_goes_deep_then_recovers_once_then_stops() -> None:
    ev = [_ev(i) for i in range(1, 6)]
    two = TaskState(iterations=[_it(1), _it(2, "stuck"), _it(3, "stuck")], evidence=ev)
    assert decide(two).mode == "deep" and not decide(two).recovery
    three = two.model_copy(update={"iterations": [*two.iterations, _it(4, "regressing", mode="deep")]})
    assert decide(three).recovery and decide(three).stop is None
    four = three.model_copy(update={"iterations": [*three.iterations, _it(5, "stuck", mode="deep")]})
    assert "recovery did not help" in str(decide(four).stop)


def test_tests_rerun_after_each_fix_are_not_the_same_call() -> None:
    def run(i: int) -> ToolCall:
        return ToolCall(call_id=f"t{i}", iteration=i, index=1, tool="run_tests", params={"target": "."})

    def fix(i: int) -> ToolCall:
        return ToolCall(
            call_id=f"w{i}", iteration=i, index=2, tool="write_file", params={"path": "a.py", "n": i}
        )

    fixed = [run(1), fix(1), run(2), fix(2), run(3)]
    state = TaskState(iterations=[_it(1, calls=fixed)], evidence=[_ev(1)])
    assert decide(state).stop is None
    unchanged = [run(1), run(2), run(3)]
    state = TaskState(iterations=[_it(1, calls=unchanged)], evidence=[_ev(1)])
    assert "same call ran 3 times" in str(decide(state).stop)
