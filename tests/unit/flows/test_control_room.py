"""The UI's pieces as plain functions: review points, the review hook of the loop, the recorded
decision, the result page and the story lines (issue 16). The browser tests are in
`tests/e2e/test_ui_control_room.py`."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.core import (
    CallCost,
    FileReference,
    IterationRecord,
    ModelCall,
    PlannedCall,
    PlanRecorded,
    ReviewDecided,
    TaskFinished,
    ToolCall,
    ToolCallRecorded,
    UserMessage,
    Verdict,
)
from cairn.flows.loop.cycle import NoPages, run_loop
from cairn.flows.loop.outcome import REPORT_CHARS, report_excerpt, result_markdown, totals
from cairn.flows.loop.policy import Decision
from cairn.flows.prefect.deployment import crash_message
from cairn.flows.prefect.review import PrefectReviewer, ReviewInput, record_review, review_due, review_prompt
from cairn.flows.prefect.story import NarratingRecorder, plan_lines, story_line
from cairn.flows.steps.session import Session, open_session
from cairn.memory.log.state import TaskState
from cairn.tasks.messages.schemas import Candidate, PlanInput
from cairn.tasks.tools.base import ToolOutput
from tests.unit.scripted import (
    ScriptedModel,
    create_task,
    drive_iteration,
    executor_for,
    register,
    workspace_config,
)


def _after(n: int, progress: str = "advancing", reviewed: tuple[int, ...] = ()) -> TaskState:
    its = [IterationRecord(iteration=i, progress_assessment=progress) for i in range(1, n + 1)]  # type: ignore[arg-type]
    return TaskState(
        task_id="t", goal="g", iterations=its, reviews=[ReviewDecided(iteration=i) for i in reviewed]
    )


@pytest.mark.parametrize(
    ("mode", "state", "decision", "due"),
    [
        ("never", _after(1), Decision(recovery=True), False),
        ("every", _after(1), Decision(), True),
        ("every", _after(1, reviewed=(1,)), Decision(), False),  # once per iteration
        ("every", _after(0), Decision(), False),  # nothing to review before the first iteration
        ("every", _after(2), Decision(stop="complete"), False),  # the task ends anyway
        ("stuck", _after(3, "stuck"), Decision(mode="deep", recovery=True), True),
        ("stuck", _after(2, "stuck"), Decision(mode="deep"), False),
    ],
)
def test_review_points(mode: str, state: TaskState, decision: Decision, due: bool) -> None:
    assert review_due(state, decision, mode) is due  # type: ignore[arg-type]


def test_the_form_says_where_the_task_stands() -> None:
    state = _after(2, "stuck").model_copy(
        update={"verdicts": [Verdict(complete=False, confidence=0.4, rationale="r", missing=["answer file"])]}
    )
    text = review_prompt(state)
    assert "after iteration 2" in text and "stuck" in text and "answer file" in text
    assert set(ReviewInput.model_json_schema()["properties"]) == {"feedback", "decision"}


def test_without_a_server_a_review_point_says_how_to_give_feedback(
    tmp_path: Path, scripted: ScriptedModel, caplog: pytest.LogCaptureFixture
) -> None:
    config = workspace_config(tmp_path, review="every")
    create_task(config, "t", "Summarise the notes.")
    session = drive_iteration(config, "t", 1, read)
    reviewer = PrefectReviewer("every", executor_for(config), logging.getLogger("review-test"))
    with caplog.at_level(logging.WARNING, logger="review-test"):
        assert reviewer.review(session, Decision()) is None  # no flow run to suspend: it goes on
    assert '`cairn feedback t "..."`' in caplog.text
    assert session.state.reviews == []


def plan(payload: PlanInput) -> list[Candidate]:
    return [Candidate(tool="read_file", params={"path": f"notes-{payload.iteration}.md"})]


def read(call: PlannedCall) -> ToolOutput:
    return ToolOutput(text=f"notes about {call.params['path']}", paths=[str(call.params["path"])])


@pytest.fixture()
def scripted() -> Iterator[ScriptedModel]:
    model = ScriptedModel(plan)
    undo = register(model)
    yield model
    undo()


class StopAfterFirst:
    """A reviewer that stops the task at its first review point."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def review(self, session: Session, decision: Decision) -> str | None:
        self.seen.append(len(session.state.iterations))
        return "stopped by the reviewer" if session.state.iterations else None


def test_a_reviewer_can_stop_the_plain_loop(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = workspace_config(tmp_path)
    session = create_task(config, "t", "Summarise the notes.")
    reviewer = StopAfterFirst()

    def iterate(n: int, mode: str, recovery: bool) -> None:
        drive_iteration(config, "t", n, read)

    result = run_loop(session, iterate, NoPages(), reviewer)  # type: ignore[arg-type]
    assert reviewer.seen == [0, 1] and result.iterations == 1
    assert result.stop_reason == "stopped by the reviewer"


def test_a_review_is_recorded_and_its_feedback_reaches_the_next_plan(
    tmp_path: Path, scripted: ScriptedModel
) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "t", "Summarise the notes.")
    drive_iteration(config, "t", 1, read)
    session = open_session(config, "t")
    answer = ReviewInput(feedback="Read notes-9.md too.", decision="continue")
    record_review(session, executor_for(config), 1, answer, "ui")
    assert session.state.reviews == [ReviewDecided(iteration=1, feedback="Read notes-9.md too.")]
    assert session.state.messages[-1] == UserMessage(text="Read notes-9.md too.", role="feedback")
    drive_iteration(config, "t", 2, read)
    assert [p.feedback for _, p in scripted.of_kind("plan")] == [[], ["Read notes-9.md too."]]


def _finished(tmp_path: Path, report: str) -> tuple[TaskState, Path]:
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    (artifacts / "answer.md").write_text(report, encoding="utf-8")
    call = ToolCall(call_id="call-1-1", iteration=1, index=1, tool="write_file")
    costs = [CallCost(prompt_tokens=100, completion_tokens=20, usd=0.002), CallCost(prompt_tokens=5)]
    models = [ModelCall(key=f"t/1/{i}/plan", kind="plan", model="m", cost=c) for i, c in enumerate(costs)]
    state = TaskState(
        task_id="t",
        goal="How many days?",
        task_type="simple_question",
        status="complete",
        stop_reason="complete: every requirement of the suite is met",
        report_path=str(artifacts / "answer.md"),
        iterations=[IterationRecord(iteration=1, tool_calls=[call])],
        model_calls=models,
        files={
            "answer.md": FileReference(
                file_id="f1",
                path="answer.md",
                file_type="documentation",
                size=10,
                checksum="x",
                created_by="call-1-1",
            )
        },
        verdicts=[Verdict(complete=True, confidence=0.97, rationale="2 of 2 met", satisfied=["answer file"])],
    )
    return state, artifacts


def test_the_result_page_has_answer_verdict_files_and_totals(tmp_path: Path) -> None:
    state, artifacts = _finished(tmp_path, "About 150 days.\n")
    run = totals(state, started=100.0, finished=172.0)
    assert (run.iterations, run.tool_calls, run.model_calls, run.tokens, run.usd) == (1, 1, 2, 125, 0.002)
    text = result_markdown(state, run, report_excerpt(Path(str(state.report_path))), artifacts)
    for part in (
        "About 150 days.",
        "**complete**",
        "2 of 2 met",
        "✅ answer file",
        str(artifacts / "answer.md"),
    ):
        assert part in text
    assert "| 1 | 1 | 2 | 125 | 0.0020 | 1m 12s |" in text


def test_a_long_report_is_cut_saying_where_the_rest_is(tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    path.write_text("line of the report\n" * 1000, encoding="utf-8")
    excerpt = report_excerpt(path)
    assert excerpt is not None and len(excerpt) < REPORT_CHARS + 300
    assert f"the full text is in `{path}`" in excerpt and "of 19,000 characters" in excerpt
    assert report_excerpt(tmp_path / "missing.md") is None


def test_story_lines_tell_plan_calls_and_the_end() -> None:
    batch = [PlannedCall(tool="read_file", params={"path": "a.md"}, rationale="facts for the answer")]
    assert plan_lines(PlanRecorded(iteration=2, candidates=batch, batch=batch, frontier=[])) == (
        "Iteration 2 plan: 1 calls\n  - read_file(a.md): facts for the answer"
    )
    call = ToolCall(
        call_id="call-2-1",
        iteration=2,
        index=1,
        tool="read_file",
        params={"path": "a.md"},
        insights="150 days",
    )
    assert (
        story_line(ToolCallRecorded(call=call), TaskState())
        == "Call call-2-1 read_file(a.md) -> success: 150 days"
    )
    end = TaskFinished(status="complete", stop_reason="complete", report_path="/ws/answer.md")
    assert story_line(end, TaskState(task_id="t")) == "Task t complete: complete; report: /ws/answer.md"


def test_the_narrating_recorder_records_then_says(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = workspace_config(tmp_path)
    session = create_task(config, "t", "Summarise the notes.")
    said: list[str] = []
    narrating = NarratingRecorder(session.recorder, said.append)
    narrating.record(UserMessage(text="Be brief.", role="feedback"))
    assert said == ["Feedback received: Be brief."]
    assert open_session(config, "t").state.messages[-1].text == "Be brief."  # in the log


def test_the_crash_line_says_how_to_continue() -> None:
    line = crash_message("t1", 42, "/ws", retryable=True)
    assert "press Retry on this run" in line and "`cairn resume t1 --workspace /ws`" in line
    assert "Retry" not in crash_message("t1", 42, "/ws", retryable=False)
