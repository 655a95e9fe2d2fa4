"""Values derived once: each has one rule in one place, and every part of Cairn that needs it
gets it from there, so they cannot drift apart (issue 34).

- The deliverable's file name (`cairn.tasks.tools.base.deliverable_file`): the offline planner
  aims its write at it, the session gives it to the tools, and the `answer` tool writes it.
- A verdict's id (`cairn.tasks.validation.judge.validation_id`): the suite gives it, the loop
  records it as it is, and the validation evidence cites it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import TaskType
from cairn.flows.steps.session import Session, open_session
from cairn.tasks.messages.schemas import KnownFile, PlanInput
from cairn.tasks.offline.planner import plan
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.validation import validate
from tests.conftest import CORPUS
from tests.unit.offline_run import QUESTION, config_for
from tests.unit.scripted import run_whole_task

RUNS: tuple[TaskType, ...] = ("simple_question", "research_task")


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Session]:
    """The demo question run offline to its end, once as each task type."""
    root = tmp_path_factory.mktemp("derived")
    sessions = {}
    for task_type in RUNS:
        config = config_for(root / task_type)
        run_whole_task(config, "t", QUESTION, [CORPUS], task_type=task_type)
        sessions[task_type] = open_session(config, "t")
    return sessions


@pytest.mark.parametrize("task_type", RUNS)
def test_the_planner_the_session_and_the_answer_tool_name_one_deliverable(
    finished: dict[str, Session], task_type: TaskType
) -> None:
    session = finished[task_type]
    written = {e.metadata.file_path for e in session.state.evidence if e.metadata.tool == "answer"}
    everything_read = [KnownFile(path="source:corpus/reservoir.md", read=True)]
    aimed = plan(PlanInput(goal=QUESTION, task_type=task_type, iteration=3, tools=[], files=everything_read))
    assert (aimed.candidates[0].tool, aimed.candidates[0].params["path"]) == ("write_file", *written)
    assert written == {session.tool_context().deliverable}


def test_the_deliverable_depends_on_the_task_type_and_a_bare_context_answers_a_question(
    finished: dict[str, Session], tmp_path: Path
) -> None:
    names = {task_type: finished[task_type].tool_context().deliverable for task_type in RUNS}
    assert names == {"simple_question": "answer.md", "research_task": "report.md"}
    assert ToolContext(task_id="t", artifacts=tmp_path).deliverable == names["simple_question"]


@pytest.mark.parametrize("task_type", RUNS)
def test_the_loop_records_the_verdict_id_the_suite_gives(
    finished: dict[str, Session], task_type: TaskType
) -> None:
    state = finished[task_type].state
    assert state.verdicts
    for verdict in state.verdicts:
        assert validate(state.task_type, state.evidence, iteration=verdict.iteration).validation_id == (
            verdict.validation_id
        )
    cited = [e.source for e in state.evidence if e.type == "validation"]
    assert cited == [verdict.validation_id for verdict in state.verdicts]
