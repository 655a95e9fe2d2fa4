"""A goal of several functions written piece by piece (`cairn.flows.steps.piecewise`): each function
asked for alone, verified by its own examples, never asked for again once it passes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig
from cairn.flows.steps.piecewise import PIECES_WHY, asked_pieces, module_file, to_ask
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import FileDraft, Plan, PlanInput, Schema, WriteInput, WriteOutput
from cairn.tasks.pieces import pieces_of, splice, verified
from tests.cassettes.make_pieces_cassette import BODIES, GOAL
from tests.unit.scripted import answer_with, provided, run_whole_task


class OnePieceAtATime(CustomLLM):
    """Answers each piece's ask with that function alone; `six_times` wrong on its first draw."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, int, str]] = []  # (function, draw, what its last version got wrong)
        self.other = 0  # any other `write` (a whole module)

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        reply: Schema | None = None
        if isinstance(payload, WriteInput) and payload.form == "plain" and len(payload.bodies) == 1:
            name = payload.bodies[0].partition(" in ")[0]
            self.asked.append((name, payload.draw, payload.tests))
            body = "return 7" if name == "six_times" and payload.draw == 0 else BODIES[name]
            code = payload.current[0].text.rstrip() + f"\n    {body}\n"
            reply = WriteOutput(files=[FileDraft(path="solution.py", content=code)])
        elif kind == "write":
            self.other += 1
        elif isinstance(payload, PlanInput):
            reply = Plan(candidates=[])
        return answer_with(model, reply, messages)


@pytest.fixture
def model() -> Iterator[OnePieceAtATime]:
    fake = OnePieceAtATime()
    with provided(fake):
        yield fake


def test_each_function_is_asked_alone_and_a_verified_one_never_again(
    tmp_path: Path, model: OnePieceAtATime
) -> None:
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
    result = run_whole_task(config, "pieces", GOAL, task_type="coding_task")
    assert result.status == "complete", (result.stop_reason, result.unmet)
    assert model.other == 0  # never a whole module
    asked = [name for name, _, _ in model.asked]
    assert sorted(asked) == ["double", "six_times", "six_times", "triple"]
    assert model.asked[-1] == ("six_times", 1, "six_times(1) returned 7; the goal expects 6.")
    artifacts = tmp_path / "ws" / "tasks" / "pieces" / "artifacts"
    solution = (artifacts / "solution.py").read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(compile(solution, "solution.py", "exec"), namespace)
    assert [namespace[n](2) for n in ("double", "triple", "six_times")] == [4, 6, 12]
    writes = [c for c in Workspace(tmp_path / "ws").task("pieces").state().calls if c.tool == "write_file"]
    said = [c.tool_selection_rationale or "" for c in writes]
    # six_times' first body failed its example when Cairn ran it: drawn again at once, one iteration
    assert any(f"{PIECES_WHY} double, triple, six_times; verified so far 0 of 3." in s for s in said)
    assert result.iterations == 2  # write, then the tests pass


def test_which_goals_are_piecewise_and_what_is_asked() -> None:
    assert [p.name for p in asked_pieces(GOAL)] == ["double", "triple", "six_times"]
    assert module_file(GOAL) == "solution.py"
    assert asked_pieces(GOAL.replace("solution.py", "a.py and b.py")) == []  # no one module
    one = GOAL.split("\n\n\ndef triple")[0] + "\n```\n"
    assert [p.name for p in asked_pieces(one)] == ["double"]  # one function with examples: a piece too
    bare = one.replace("    >>> double(2)\n    4\n", "")
    assert asked_pieces(bare) == []  # one without: the model writes it and its tests, as before
    pieces = pieces_of(GOAL)
    assert pieces[2].helpers == ["double", "triple"]
    code = "def double(x):\n    return x + x\n\ndef triple(x):\n    'Three.'\n"
    # verified pieces and those written without examples are not asked for; a stub is
    assert [p.name for p in to_ask(pieces, ["double"], code)] == ["triple", "six_times"]


def test_a_draft_that_does_not_parse_or_lacks_the_body_is_not_spliced() -> None:
    pieces = pieces_of(GOAL)
    current = "def double(x):\n    'Twice.'\n"
    assert splice(current, "def double(x:\n", "double", pieces) is None
    assert splice(current, "def double(x):\n    'Twice.'\n", "double", pieces) is None
    assert splice(current, "def triple(x):\n    return 3 * x\n", "double", pieces) is None
    # a draft that writes other pieces too gives only the one asked for
    both = "def double(x):\n    return 2 * x\n\ndef triple(x):\n    return 0\n"
    assert splice(current, both, "double", pieces) == "def double(x):\n    return 2 * x\n"


def test_a_run_an_error_failed_entirely_says_nothing_and_an_earlier_run_decides() -> None:
    pieces = pieces_of(GOAL)
    first = "Failed example:\n    six_times(1)\nExpected:\n    6\nGot:\n    7\n"
    raised = "Failed example:\n    {}(1)\nException raised:\n    NameError: x\n"
    error = "".join(raised.format(n) for n in ("double", "triple", "six_times"))
    assert verified(pieces, [(False, first), (False, error)]) == ["double", "triple"]
    assert verified(pieces, [(False, first), (False, "ImportError while importing")]) == ["double", "triple"]


# The local 1.5B's HumanEval 10-19 module, as pytest printed its goal's examples (paths shortened):
# `Got nothing` (a function that returned None) was read as no failure, and that piece as verified.
REAL_RUN = """\
**********************************************************************
Line 3, in the goal
Failed example:
    make_palindrome('cat')
Expected:
    'catac'
Got:
    'catc'
**********************************************************************
Line 18, in the goal
Failed example:
    all_prefixes('abc')
Expected:
    ['a', 'ab', 'abc']
Got nothing
**********************************************************************
Line 36, in the goal
Failed example:
    sort_numbers('three one five')
Exception raised:
    Traceback (most recent call last):
      File "solution.py", line 168, in <listcomp>
        numbers_list = [int(num) for num in numbers_list]
    ValueError: invalid literal for int() with base 10: 'three'
=========================== short test summary info ============================
"""


def test_every_failed_example_of_a_real_report_is_read_with_what_went_wrong() -> None:
    from cairn.tasks.pieces import Piece, failed_examples

    assert failed_examples(REAL_RUN) == [
        ("make_palindrome('cat')", "make_palindrome('cat') returned 'catc'; the goal expects 'catac'."),
        ("all_prefixes('abc')", "all_prefixes('abc') returned nothing; the goal expects ['a', 'ab', 'abc']."),
        (
            "sort_numbers('three one five')",
            "sort_numbers('three one five') raised ValueError: invalid literal for int() with base 10: "
            "'three'.",
        ),
    ]
    names = ["make_palindrome", "all_prefixes", "sort_numbers", "longest"]
    pieces = [Piece(name=n, stub="", examples=f">>> {n}(1)\n1") for n in names]
    assert verified(pieces, [(False, REAL_RUN)]) == ["longest"]
