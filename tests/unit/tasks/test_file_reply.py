"""The `write` call is answered with files as fenced blocks: a reply cut off in its tests keeps its
code, a JSON reply is still read, and a reply with no file is retried with why."""

from __future__ import annotations

from typing import Any

import pytest

from cairn.core import ToolCall
from cairn.flows.steps.frontier import screen
from cairn.flows.steps.redraw import stubs
from cairn.flows.steps.write import examples_write, goal_path
from cairn.memory.log.state import TaskState
from cairn.tasks.goal_examples import EXAMPLES_WHY, TEST_FILE
from cairn.tasks.messages.file_reply import file_blocks, file_list, files_reply
from cairn.tasks.messages.prompts import render
from cairn.tasks.messages.schemas import Candidate, ToolSpec, WriteInput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.model.response_format import response_format_for
from tests.unit.tasks.test_llm import no_network_models, scripted  # noqa: F401  (fixtures: autouse, provider)

WRITE = WriteInput(goal="Write the Python function `add` in add.py, with pytest tests in test_add.py.")

# The shape the 1.5B wrote for a HumanEval problem: the function, then test cases until the cap.
CUT_OFF = (
    "add.py\n```python\ndef add(a, b):\n    return a + b\n```\n\n"
    "test_add.py\n```python\nfrom add import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    + "    assert add(2, 3) == 5\n"
    * 40
)


TEST_A = "# test_a.py\ny = 2\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("## add.py\n```python\nx = 1\n```", {"add.py": "x = 1\n"}),
        ("**add.py**\n\n```\nx = 1\n```", {"add.py": "x = 1\n"}),
        ("File: `pkg/add.py`:\n```python\nx = 1\n```", {"pkg/add.py": "x = 1\n"}),
        ("```python\n# add.py\nx = 1\n```", {"add.py": "# add.py\nx = 1\n"}),  # named in its first line
        ("Here is the code:\n```python\nx = 1\n```", {}),  # no name: `file_list` keeps it under ""
        (
            "```python\n# a.py\nx = 1\n\n# test_a.py\ny = 2\n```",
            {"a.py": "# a.py\nx = 1\n", "test_a.py": "# test_a.py\ny = 2\n"},
        ),
        (
            "```python\n# a.py\nx = 1\n# test_a.py\ndef test_(",
            {"a.py": "# a.py\nx = 1\n"},
        ),  # cut off in its tests
        ("add.py\n```python\nx = 1\n", {}),  # never closed
    ],
)
def test_file_blocks_take_the_name_before_the_block_or_on_its_first_line(
    text: str, expected: dict[str, str]
) -> None:
    assert file_blocks(text) == expected


def test_files_reply_reads_back_as_the_same_files() -> None:
    files = {"add.py": "def add(a, b):\n    return a + b\n", "README.md": "# add\n\n```\nadd(1, 2)\n```\n"}
    assert file_blocks(files_reply(files)) == files  # a README holding a fence is fenced with four


def test_the_write_prompt_asks_for_files_not_json_and_shows_code_as_plain_text() -> None:
    system, user = render("write", WRITE.model_copy(update={"tests": "FAILED test_add - assert 4 == 3"}))
    assert "fenced code block" in system["content"] and "JSON schema" not in system["content"]
    assert "The failing test run:\n\nFAILED test_add - assert 4 == 3" in user["content"]
    assert response_format_for("openai/qwen", "write", "json_schema") is None  # no JSON mode either
    assert response_format_for("openai/qwen", "plan", "json_schema") is not None


def test_a_reply_cut_off_in_its_tests_keeps_the_code(scripted: Any) -> None:  # noqa: F811
    handler = scripted([(CUT_OFF, "length")])
    result = ModelClient("scripted/m").call("write", WRITE)
    assert result.ok and result.output is not None and len(handler.requests) == 1
    assert [(f.path, f.content) for f in result.output.files] == [
        ("add.py", "def add(a, b):\n    return a + b\n")
    ]


def test_a_json_reply_is_still_read_and_a_reply_without_files_is_retried(scripted: Any) -> None:  # noqa: F811
    json_reply = '{"files": [{"path": "add.py", "content": "def add(a, b):\\n    return a + b\\n"}]}'
    handler = scripted(["Sure, I will write the function add for you.", json_reply])
    result = ModelClient("scripted/m").call("write", WRITE)
    assert result.ok and result.output is not None and result.attempts == 2
    assert result.output.files[0].path == "add.py"
    retry = handler.requests[1][-1]["content"]
    assert "no file in the reply: expected a path" in retry
    assert "its path, then its whole content in one fenced code block" in retry


def test_code_no_line_names_goes_where_the_goal_says() -> None:
    goal = "Write the Python function `add` in solution.py, with pytest tests in test_solution.py"
    assert goal_path(goal, "def add(a, b):\n    return a + b\n") == "solution.py"
    assert (
        goal_path(goal, "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 3\n")
        == "test_solution.py"
    )
    assert goal_path("Write add.py and sub.py", "def add(a, b): ...") == ""  # not clear: not written


def test_a_reply_cut_off_before_any_file_is_not_asked_again(scripted: Any) -> None:  # noqa: F811
    handler = scripted(
        [("```python\n# add.py\ndef add(a, b):\n" + "    assert add(1, 2) == 3\n" * 40, "length")]
    )
    result = ModelClient("scripted/m", max_attempts=3).call("write", WRITE)
    assert not result.ok and len(handler.requests) == 1  # the same request would hit the same cap
    assert result.error == "write reply was cut at its cap of 2,048 tokens: not tried again"
    assert "cut off at the token limit" in result.errors[0]


def test_the_goals_examples_go_to_the_tests_file_it_names_when_the_model_wrote_none() -> None:
    goal = (
        "Write the Python function `add` in solution.py, with pytest tests in test_solution.py:\n\n"
        '```python\ndef add(a, b):\n    """Add.\n    >>> add(2, 3)\n    5\n    """\n```'
    )
    state = TaskState(goal=goal, task_type="coding_task")
    code = Candidate(
        tool="write_file", params={"path": "solution.py", "content": "def add(a, b):\n    return a + b\n"}
    )
    (examples,) = examples_write(state, [code])
    assert (
        examples.params["path"] == "test_solution.py"
        and "import solution as subject" in examples.params["content"]
    )
    tests = Candidate(
        tool="write_file", params={"path": "test_solution.py", "content": "def test_add(): ..."}
    )
    (beside,) = examples_write(state, [code, tests])
    assert beside.params["path"] == TEST_FILE  # the model's own tests file is kept


def test_a_function_written_back_without_a_body_is_a_stub() -> None:
    echoed = (
        'def truncate_number(number: float) -> float:\n    """Return the decimal part.\n'
        '    >>> truncate_number(3.5)\n    0.5\n    """\n'
    )
    done = echoed + "    return number - int(number)\n"
    assert stubs({"solution.py": echoed}, ["truncate_number"]) == ["truncate_number in solution.py"]
    assert stubs({"solution.py": done}, ["truncate_number"]) == []
    assert stubs({"solution.py": "def f():\n    pass\n", "notes.md": "def f():"}, ["f"]) == [
        "f in solution.py"
    ]
    asked = render("write", WRITE.model_copy(update={"bodies": ["truncate_number in solution.py"]}))[1][
        "content"
    ]
    assert asked.endswith(
        "Write now: the whole code of truncate_number in solution.py: a body that does what the "
        "docstring says."
    )


def test_blocks_no_line_names_are_each_kept_for_the_caller_to_place() -> None:
    """The 1.5B wrote slug.py and its tests as two bare blocks; the second was lost under the
    same empty name, and the goal's tests file was never written."""
    code_block = "```python\nimport re\n\ndef slugify(t):\n    return t\n```"
    test_block = "```python\nfrom slug import slugify\n\ndef test_s():\n    assert slugify('a') == 'a'\n```"
    reply = f"{code_block}\n\n{test_block}"
    (code_path, code), (test_path, tests) = file_list(reply)
    goal = "Write the Python function slugify(text) in slug.py, with its tests in test_slug.py"
    assert (code_path, test_path) == ("", "")
    assert (goal_path(goal, code), goal_path(goal, tests)) == ("slug.py", "test_slug.py")


def test_the_file_cairn_wrote_from_the_goals_examples_is_not_rewritten_by_the_model() -> None:
    written = ToolCall(
        call_id="c-1",
        iteration=1,
        index=2,
        tool="write_file",
        params={"path": "test_solution.py", "content": "import solution as subject\n"},
        tool_selection_rationale=EXAMPLES_WHY,
    )
    state = TaskState(goal="Write `add` in solution.py", task_type="coding_task", pending_calls=[written])
    specs = [ToolSpec(name="write_file", description="", params={"path": "str", "content": "str"})]
    rewrite = Candidate(
        tool="write_file", params={"path": "test_solution.py", "content": "def test_x(): ..."}
    )
    fix = Candidate(tool="write_file", params={"path": "solution.py", "content": "def add(a, b): ..."})
    (why,) = screen([rewrite, fix], specs, state)
    assert why.startswith("write_file(path='test_solution.py'") and "the goal's own examples" in why
    assert examples_write(state, []) == []  # and it is written once
