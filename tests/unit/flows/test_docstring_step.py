"""A coding task whose code passes its tests but not the suite's documentation requirement asks
the model for each function's docstring, in one focused call, and writes it into the function:
in process, with a model that writes code and never a docstring (as the 1.5B did)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig
from cairn.flows.steps.docstring import DOCS_REQUIREMENT
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.file_reply import files_reply
from cairn.tasks.messages.prompts import parse_request, render
from cairn.tasks.messages.schemas import DocstringInput, Schema
from cairn.tasks.offline import respond
from cairn.tasks.validation import requirements
from tests.unit.scripted import provided, run_whole_task

GOAL = (
    "Write a Python function `slugify(title: str) -> str` in slug.py that lowercases the title and "
    "joins its words with hyphens, with pytest tests in test_slug.py."
)
CODE = (
    "import re\n\n\ndef slugify(title: str) -> str:\n"
    "    return re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')\n"
)
TESTS = (
    "from slug import slugify\n\n\ndef test_slugify():\n    assert slugify('Hello World') == 'hello-world'\n"
)


class Undocumenting(CustomLLM):
    """Writes the code and its tests, never a docstring unless asked for one; else `cairn/offline`."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, Schema]] = []

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        self.asked.append((kind, payload))
        if kind == "write":
            content = files_reply({"slug.py": CODE, "test_slug.py": TESTS})
        elif kind == "docstring":
            content = '```python\n"""Lowercase the title and join its words with hyphens."""\n```'
        else:
            content = respond(messages)
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        return ModelResponse(
            model=model, choices=[choice], usage={"prompt_tokens": 60, "completion_tokens": 9}
        )


def test_passing_code_without_docstrings_gets_each_asked_for_and_the_task_completes(tmp_path: Path) -> None:
    model = Undocumenting()
    with provided(model):
        config = RunConfig(workspace=str(tmp_path), model="fn/m", max_iterations=6)
        result = run_whole_task(config, "slug", GOAL, task_type="coding_task")
    asked = [payload for kind, payload in model.asked if kind == "docstring"]
    assert asked == [DocstringInput(path="slug.py", name="slugify", code=CODE.split("\n\n\n")[1])]
    task = Workspace(tmp_path).task("slug")
    written = (task.artifacts / "slug.py").read_text(encoding="utf-8")
    docstring = '    """Lowercase the title and join its words with hyphens."""\n'
    assert written == CODE.replace("-> str:\n", f"-> str:\n{docstring}")  # the code otherwise as it was
    state = task.state()
    (call,) = [c for c in state.model_calls if c.kind == "docstring"]
    assert call.key == "slug/3/0/docstring" and call.ok and call.cost.tokens == 69
    # write, tests pass (documentation unmet), the docstring, the tests again: complete
    assert [c.tool for c in state.calls] == [
        "write_file",
        "write_file",
        "run_tests",
        "write_file",
        "run_tests",
    ]
    assert result.complete and result.iterations == 4


def test_the_requirement_it_answers_is_the_suites() -> None:
    assert any(line.startswith(DOCS_REQUIREMENT) for line in requirements("coding_task"))


def test_the_offline_model_says_a_docstring_from_the_name_and_signature() -> None:
    asked = DocstringInput(path="slug.py", name="slugify", code="def slugify(title: str) -> str:\n    ...\n")
    messages = render("docstring", asked)
    assert parse_request(messages) == ("docstring", asked)
    assert respond(messages) == '"""Slugify, given title (str); returns str."""'
