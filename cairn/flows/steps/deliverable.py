"""The task's deliverable, by one rule: the file its answer or report is written to, and the file
that is judged and shown (`cairn show`, the UI, the verdict and the progress report all use it).

The name follows the task type (`answer.md` for a question, `report.md` otherwise: the `answer`
tool, the offline planner and a coverage goal's ledger report write there). The file judged is
the last documentation file that cites sources (the answer or report), else the last file the
task wrote for its goal: a coding task's code (the goal's examples test is Cairn's own).

>>> deliverable_name(TaskState(task_type="simple_question"))
'answer.md'
"""

from __future__ import annotations

from pathlib import Path

from cairn.memory.log.state import TaskState
from cairn.tasks.goal_examples import TEST_FILE
from cairn.tasks.tools.base import deliverable_file


def deliverable_name(state: TaskState) -> str:
    """Where the task's answer or report is written, relative to its artifacts."""
    return deliverable_file(state.task_type)


def judged_file(state: TaskState, artifacts: Path) -> str | None:
    """The file judged and shown as the task's history stands now; None while it wrote nothing."""
    docs = [e.metadata.file_path for e in state.evidence if e.type == "synthesis" and e.metadata.file_path]
    written = [f.path for f in sorted(state.files.values(), key=lambda f: f.modified_at)]
    files = docs or [path for path in written if path != TEST_FILE] or written
    return str(artifacts / files[-1]) if files else None


def deliverable_text(state: TaskState, artifacts: Path) -> str:
    """The text of the file judged as it is on disk now ("" when there is none)."""
    path = judged_file(state, artifacts)
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace") if path else ""
    except OSError:
        return ""
