"""Feedback while a task runs: appended safely, extracted for rules, taken in by the next iteration."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.core import ConstraintExtracted, IterationStarted, PlannedCall, UserMessage
from cairn.flows.loop.standing_rules import give_feedback
from cairn.memory.log.workspace import TaskRepo
from cairn.tasks.messages.schemas import Candidate, PlanInput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.tools.base import ToolOutput
from tests.unit.scripted import ScriptedModel, create_task, drive_iteration, register, workspace_config

FEEDBACK = "Going forward, never cite Wikipedia."


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


def test_feedback_is_a_user_message_then_its_constraint(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "t", "Summarise the notes.")
    result = give_feedback(config, "t", f"  {FEEDBACK}  ", client=ModelClient("script/model"))
    assert (result.index, result.rule, result.message) == (1, "Never cite Wikipedia.", FEEDBACK)
    events = list(TaskRepo(tmp_path / "tasks" / "t").history.events())
    assert events[-2] == UserMessage(text=FEEDBACK, role="feedback")
    assert isinstance(events[-1], ConstraintExtracted) and events[-1].key == result.key
    extracts = [p for _, p in scripted.of_kind("extract_constraint")]
    assert [p.message for p in extracts] == [FEEDBACK]  # the goal states no rule: not asked about
    with pytest.raises(ValueError, match="empty"):
        give_feedback(config, "t", "   ")


def test_a_message_that_states_no_rule_is_not_asked_about(tmp_path: Path, scripted: ScriptedModel) -> None:
    """Any rule a reply read into it would be refused (`rule_stated`): the call would only cost."""
    config = workspace_config(tmp_path)
    create_task(config, "t", "Write `double` in solution.py. Never use recursion.")
    result = give_feedback(config, "t", "Thanks, the notes look right.", client=ModelClient("script/model"))
    assert (result.rule, result.error) == (None, None)
    events = list(TaskRepo(tmp_path / "tasks" / "t").history.events())
    assert events[-1] == ConstraintExtracted(message="Thanks, the notes look right.")
    extracts = [p.message for _, p in scripted.of_kind("extract_constraint")]
    assert extracts == ["Write `double` in solution.py. Never use recursion."]  # the goal's rule only


def test_the_next_iteration_takes_feedback_in_once(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = workspace_config(tmp_path)
    create_task(config, "t", "Summarise the notes.")
    drive_iteration(config, "t", 1, read)
    give_feedback(config, "t", FEEDBACK, client=ModelClient("script/model"))
    session = drive_iteration(config, "t", 2, read)
    drive_iteration(config, "t", 3, read)
    plans = [p for _, p in scripted.of_kind("plan")]
    assert [p.feedback for p in plans] == [[], [FEEDBACK], []]
    assert (
        "[Constraint] Never cite Wikipedia." in plans[1].context
        and "Never cite Wikipedia." in plans[2].context
    )
    started = [e for e in session.recorder.repo.history.events() if isinstance(e, IterationStarted)]
    assert [e.feedback for e in started] == [[], [FEEDBACK], []]
    assert session.state.iterations[1].user_feedback == FEEDBACK


def test_an_append_from_elsewhere_keeps_the_chain(tmp_path: Path, scripted: ScriptedModel) -> None:
    config = workspace_config(tmp_path)
    session = create_task(config, "t", "Summarise the notes.")
    other = TaskRepo(tmp_path / "tasks" / "t")  # another writer with its own view of the log's tail
    other.append(UserMessage(text="first", role="feedback"))
    session.recorder.record(UserMessage(text="second", role="feedback"))
    other.append(UserMessage(text="third", role="feedback"))
    assert other.history.verify().ok
    assert other.state().feedback == ["first", "second", "third"]
