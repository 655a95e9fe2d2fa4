"""The files a model writes for a coding task arrive as files, not as Markdown about files."""

from __future__ import annotations

import pytest

from cairn.core import ToolCall
from cairn.flows.steps.write import unfenced, untested
from cairn.memory.log.state import TaskState

FENCED = '```python\n"""URL slugs."""\n\nimport re\n```\n'  # as Qwen2.5-Coder-1.5B wrote slug.py


@pytest.mark.parametrize(
    ("path", "content", "written"),
    [
        ("slug.py", FENCED, '"""URL slugs."""\n\nimport re\n'),
        ("slug.py", "```\nx = 1\n```", "x = 1\n"),
        ("slug.py", "x = 1\n", "x = 1\n"),
        ("notes.md", "```\nx = 1\n```", "```\nx = 1\n```"),  # Markdown may be a code block
        ("two.py", "```py\na = 1\n```\nb\n```py\nc = 2\n```", "```py\na = 1\n```\nb\n```py\nc = 2\n```"),
    ],
)
def test_a_code_file_wrapped_in_one_fence_is_unwrapped(path: str, content: str, written: str) -> None:
    assert unfenced(path, content) == written


def _state(*calls: tuple[str, str]) -> TaskState:
    done = [
        ToolCall(call_id=f"call-1-{n}", iteration=1, index=n, tool=tool, outcome=outcome)  # type: ignore[arg-type]
        for n, (tool, outcome) in enumerate(calls, start=1)
    ]
    return TaskState(task_id="t", goal="g", task_type="coding_task", pending_calls=done)


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        ([("write_file", "success")], True),
        ([("write_file", "success"), ("run_tests", "success")], False),
        # Failing tests ran: the next step is a fix. Before, the same run was proposed again, refused
        # as a repeat, and the coding task fell back to a planner that read its files again.
        ([("write_file", "success"), ("run_tests", "failure")], False),
        ([("write_file", "success"), ("run_tests", "error")], True),  # the tool itself broke
        ([("write_file", "success"), ("run_tests", "failure"), ("write_file", "success")], True),
    ],
)
def test_the_tests_are_due_after_a_write_until_they_run(calls: list[tuple[str, str]], expected: bool) -> None:
    assert untested(_state(*calls)) is expected
