"""Imports a model forgot, added by Cairn when certain (`cairn.tasks.code_imports`), and a whole
coding task whose model never writes them (as Qwen2.5-Coder-1.5B did on the issue's `counter.py`
goal: `re.findall` with no `import re`, tests calling `word_count` without importing it, eight
iterations in a row)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig
from cairn.flows.steps.write import IMPORTS_WHY
from cairn.memory.log.workspace import Workspace
from cairn.tasks.code_imports import completions, import_for, unbound_names, with_imports
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import FileDraft, Plan, PlanInput, Schema, WriteOutput
from tests.unit.scripted import answer_with, provided, run_whole_task

# What the local model wrote for counter.py (its docstring shortened): no `import re`.
COUNTER = '''# counter.py
def word_count(text):
    """Counts the occurrences of each lowercase word in the given text, ignoring punctuation."""
    word_counts = {}
    words = re.findall(r'\\b\\w+\\b', text.lower())
    for word in words:
        if word in word_counts:
            word_counts[word] += 1
        else:
            word_counts[word] = 1
    return word_counts
'''
TESTS = """# test_counter.py
def test_word_count():
    assert word_count("Hello, world!") == {'hello': 1, 'world': 1}
    assert word_count("A test. Only a test.") == {'a': 2, 'test': 2, 'only': 1}
"""
GOAL = (
    "Write a Python function word_count(text) in counter.py that returns a dict mapping each lowercase "
    "word to how many times it occurs, ignoring punctuation, with pytest tests in test_counter.py."
)


def added_lines(before: str, after: str) -> list[str]:
    """The non-blank lines `after` has that `before` lacks, provided every line of `before` is kept,
    in order."""
    kept = iter(after.splitlines())
    assert all(line in kept for line in before.splitlines()), "a line of the file was lost or moved"
    return [line for line in after.splitlines() if line.strip() and line not in before.splitlines()]


def test_the_local_models_files_get_the_imports_they_lack_and_nothing_else() -> None:
    found = completions({"counter.py": COUNTER, "test_counter.py": TESTS})
    assert found["counter.py"].added == ["import re"]
    assert found["test_counter.py"].added == ["from counter import word_count"]
    for path, before in (("counter.py", COUNTER), ("test_counter.py", TESTS)):
        after = found[path].content
        assert added_lines(before, after) == found[path].added
        assert after.startswith(before.splitlines()[0])  # below the leading comment, not above it
        assert not unbound_names(after)
    namespace: dict[str, Any] = {}
    exec(compile(found["counter.py"].content, "counter.py", "exec"), namespace)
    assert namespace["word_count"]("A a, b!") == {"a": 2, "b": 1}


def test_a_humaneval_module_gets_typing_and_a_docstring_stays_first() -> None:
    module = '"""Ten functions."""\nfrom __future__ import annotations\n\n'
    module += "def f(a: List[int]) -> Tuple[int, int]:\n    return (min(a), max(a))\n"
    (fix,) = completions({"solution.py": module}).values()
    assert fix.added == ["from typing import List", "from typing import Tuple"]
    assert fix.content.splitlines()[:4] == [
        '"""Ten functions."""',
        "from __future__ import annotations",
        "from typing import List",
        "from typing import Tuple",
    ]
    ast.parse(fix.content)


@pytest.mark.parametrize(
    ("source", "unbound"),
    [
        ("def f(xs):\n    for x in xs:\n        t = x\n    return [y for y in xs], lambda q: q + t", []),
        ("try:\n    pass\nexcept ValueError as err:\n    print(err)\n", []),
        ("match p:\n    case {'a': x, **r}:\n        print(x, r)\n    case [*m]:\n        print(m)", ["p"]),
        ("import os.path\nprint(os.sep, __name__, len([]))\n", []),
        ("def f():\n    global G\n    G = 1\n\ndef g():\n    return G\n", []),
        ("from math import *\nprint(sqrt(2))\n", []),  # a star import: what it binds is unknown here
        ("def f(:\n", []),  # does not parse: nothing to say
    ],
)  # fmt: skip
def test_bound_names_in_every_form_are_not_unbound(source: str, unbound: list[str]) -> None:
    assert unbound_names(source) == unbound


def test_only_certain_imports_are_added() -> None:
    homes = {"a.py": {"helper"}, "b.py": {"helper", "other"}}
    assert import_for("helper", "c.py", homes) is None  # two modules define it
    assert import_for("other", "c.py", homes) == "from b import other"
    assert import_for("other", "b.py", homes) is None  # its own
    assert import_for("Counter", "c.py", {}) == "from collections import Counter"  # not typing's alias
    assert import_for("reduce", "c.py", {}) == "from functools import reduce"
    assert import_for("numbers", "c.py", {}, dotted=False) is None  # iterated over: a bug, not a module
    assert import_for("count", "c.py", {}) is None and import_for("e", "c.py", {}) is None
    assert import_for("word_cnt", "c.py", {}) is None
    tests_only = completions({"test_a.py": "def helper():\n    return 1\n", "b.py": "x = helper()\n"})
    assert tests_only == {}  # never imported from a test file


def test_a_shebang_stays_first_and_a_file_without_a_newline_stays_whole() -> None:
    assert with_imports("#!/usr/bin/env python\nprint(re.sub('a', 'b', 'a'))\n", ["import re"]) == (
        "#!/usr/bin/env python\nimport re\n\nprint(re.sub('a', 'b', 'a'))\n"
    )
    assert with_imports("import os", ["import re"]) == "import os\nimport re\n"


class ForgetfulModel(CustomLLM):
    """Plans nothing; every `write` returns the local model's two files, imports left out."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        reply: Schema | None = None
        if kind == "write":
            self.writes += 1
            reply = WriteOutput(
                files=[
                    FileDraft(path="counter.py", content=COUNTER),
                    FileDraft(path="test_counter.py", content=TESTS),
                ]
            )
        elif isinstance(payload, PlanInput):
            reply = Plan(candidates=[])
        return answer_with(model, reply, messages)


@pytest.fixture
def forgetful() -> Iterator[ForgetfulModel]:
    fake = ForgetfulModel()
    with provided(fake):
        yield fake


def test_a_coding_task_whose_model_forgets_its_imports_completes(
    tmp_path: Path, forgetful: ForgetfulModel
) -> None:
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=6)
    result = run_whole_task(config, "wc", GOAL, task_type="coding_task")
    assert result.status == "complete", (result.stop_reason, result.unmet)
    assert forgetful.writes == 1  # the model was asked once; the imports cost no model call
    writes = [c for c in Workspace(tmp_path / "ws").task("wc").state().calls if c.tool == "write_file"]
    fixes = {str(c.params["path"]): c.tool_selection_rationale for c in writes[2:]}
    assert fixes == {
        "counter.py": f"{IMPORTS_WHY} counter.py: import re",
        "test_counter.py": f"{IMPORTS_WHY} test_counter.py: from counter import word_count",
    }
    artifacts = tmp_path / "ws" / "tasks" / "wc" / "artifacts"
    assert added_lines(COUNTER, (artifacts / "counter.py").read_text(encoding="utf-8")) == ["import re"]
