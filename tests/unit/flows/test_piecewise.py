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
from cairn.tasks.pieces import ask_text, pieces_of, splice, verified
from tests.cassettes.make_pieces_cassette import BODIES, GOAL
from tests.unit.scripted import answer_with, provided, run_whole_task


class OnePieceAtATime(CustomLLM):
    """Answers each piece's ask with that function alone; `six_times` wrong on its first draw;
    `doubles`: the bodies of `double` by draw, when a test wants samples that disagree."""

    def __init__(self, doubles: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.asked: list[tuple[str, int, str]] = []  # (function, draw, what its last version got wrong)
        self.other = 0  # any other `write` (a whole module)
        self.doubles = doubles
        self.between: list[str] = []  # the disagreements a sample was shown
        self.replies: list[tuple[int, str]] = []  # (draw, the reply form asked for)

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        reply: Schema | None = None
        if isinstance(payload, WriteInput) and payload.form == "plain" and len(payload.bodies) == 1:
            name = payload.bodies[0].partition(" in ")[0]
            self.asked.append((name, payload.draw, payload.tests))
            self.between += [payload.disagreement] if payload.disagreement else []
            self.replies.append((payload.draw, payload.reply))
            body = "return 7" if name == "six_times" and payload.draw == 0 else BODIES[name]
            if name == "double" and payload.draw < len(self.doubles):
                body = self.doubles[payload.draw]
            code = f"    {body}\n"  # the lines after the docstring, as asked (and as the 1.5B replies)
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
    # a first answer that passed its examples is not seconded; six_times' redrawn one is, by one
    # more sample, which agreed
    assert sorted(asked) == ["double", "six_times", "six_times", "six_times", "triple"]
    failed = "six_times(1) returned 7; the goal expects 6."
    assert model.asked[-2:] == [("six_times", 1, failed), ("six_times", 2, "")]
    # a first draw is asked as the model is asked without Cairn (the whole function), later ones
    # for the lines after the docstring
    assert {reply for draw, reply in model.replies if draw == 0} == {"function"}
    assert {reply for draw, reply in model.replies if draw > 0} == {"lines"}
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


def test_two_samples_that_agree_outvote_a_redrawn_body_that_only_fits_the_examples(tmp_path: Path) -> None:
    # the first answer fails double(2) == 4, the next sample x * x passes it; two later samples
    # agree with each other on varied inputs
    fake = OnePieceAtATime(doubles=("return x", "return x * x", "return 2 * x", "return x + x"))
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
    with provided(fake):
        result = run_whole_task(config, "outvoted", GOAL, task_type="coding_task")
    assert result.status == "complete", (result.stop_reason, result.unmet)
    state = Workspace(tmp_path / "ws").task("outvoted").state()
    assert state.pieces["double"].seconded and state.pieces["double"].draws == 4
    artifacts = tmp_path / "ws" / "tasks" / "outvoted" / "artifacts"
    solution = (artifacts / "solution.py").read_text(encoding="utf-8")
    assert "return x + x" in solution and "x * x" not in solution  # the last of the two agreeing


def test_samples_that_disagree_end_the_task_unverified_saying_where(tmp_path: Path) -> None:
    # after a first answer that fails, three bodies that pass double(2) == 4 and differ from
    # double(3) on: no two agree
    fake = OnePieceAtATime(doubles=("return 0", "return 2 * x", "return x * x", "return x + 2"))
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
    with provided(fake):
        result = run_whole_task(config, "split", GOAL, task_type="coding_task")
    assert result.status != "complete"
    split = "double(3) gives 6 here and 9 in another sample"
    assert result.stop_reason == f"unverified: the code is written, and not verified: double: {split}"
    assert any(split in unmet for unmet in result.unmet)
    assert [name for name, _, _ in fake.asked].count("double") == 4  # never asked again
    assert fake.between == ["double(3) returns 6 in one and 9 in the other"]  # the third was shown it
    assert result.iterations == 2  # write, then the tests pass: nothing left that a sample could settle


def test_the_models_first_answer_that_passes_its_examples_is_not_seconded(tmp_path: Path) -> None:
    # the first draw is the model's likeliest reply, not one chosen among samples for fitting the
    # examples: passing them, it is written as it is, without another sample
    fake = OnePieceAtATime(doubles=("return x + x",))
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
    with provided(fake):
        result = run_whole_task(config, "greedy", GOAL, task_type="coding_task")
    assert result.status == "complete", (result.stop_reason, result.unmet)
    assert [name for name, _, _ in fake.asked].count("double") == 1
    checked = Workspace(tmp_path / "ws").task("greedy").state().pieces["double"]
    assert checked.passed and not checked.seconded and checked.draws == 1
    artifacts = tmp_path / "ws" / "tasks" / "greedy" / "artifacts"
    assert "return x + x" in (artifacts / "solution.py").read_text(encoding="utf-8")


UNDO_GOAL = '''Write the Python function `undo` in solution.py, as the signature and docstring below \
specify, with pytest tests in test_solution.py:

```python
def shift(s: str) -> str:
    """Each letter one on."""
    return "".join(chr(ord(c) + 1) for c in s)


def undo(s: str) -> str:
    """Undo shift."""
```
'''


class NoExamples(CustomLLM):
    """Writes `undo` and, asked for its test, `test`; counts every ask."""

    def __init__(self, test: str) -> None:
        super().__init__()
        self.test = test
        self.asked: list[str] = []

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        reply: Schema | None = None
        if isinstance(payload, WriteInput) and payload.form == "plain":
            self.asked.append(payload.bodies[0])
            current = payload.current[0]
            if current.source == "test_solution.py":
                content = f"from solution import undo, shift\n\n{self.test}"
            else:
                content = current.text.rstrip() + '\n    return "".join(chr(ord(c) - 1) for c in s)\n'
            reply = WriteOutput(files=[FileDraft(path=current.source, content=content)])
        elif isinstance(payload, PlanInput):
            reply = Plan(candidates=[])
        elif kind == "write":
            self.asked.append("a whole module")
        return answer_with(model, reply, messages)


@pytest.mark.parametrize("passes", [True, False])
def test_a_function_without_examples_is_written_once_with_the_models_own_test(
    tmp_path: Path, passes: bool
) -> None:
    test = "def test_undo():\n    assert undo(shift('abc')) == " + ("'abc'" if passes else "'bcd'") + "\n"
    fake = NoExamples(test)
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
    with provided(fake):
        result = run_whole_task(config, "undo", UNDO_GOAL, task_type="coding_task")
    # once each, never again (a first draw names no file: read back, `function.py` stands in)
    assert fake.asked == ["undo in function.py", "test_undo in test_solution.py"]
    assert result.iterations == 2  # write both, run the tests
    if passes:
        assert result.status == "complete", (result.stop_reason, result.unmet)
    else:
        assert result.status != "complete"
        assert result.stop_reason == (
            "unverified: the code is written, and not verified: the model's own tests of undo fail on its "
            "code (which of the two is wrong, nothing says)"
        )
    artifacts = tmp_path / "ws" / "tasks" / "undo" / "artifacts"
    tests = (artifacts / "test_solution.py").read_text(encoding="utf-8")
    assert tests.startswith("from solution import undo, shift\n") and "def test_undo():" in tests


def test_a_function_without_examples_whose_test_reply_is_unusable_ends_saying_nothing_checks_it(
    tmp_path: Path,
) -> None:
    # the reply defines `undo` itself: a test of its own copy would test nothing, so none is written
    fake = NoExamples("def undo(s):\n    return s\n\n\ndef test_undo():\n    assert undo('a') == 'a'\n")
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
    with provided(fake):
        result = run_whole_task(config, "untested", UNDO_GOAL, task_type="coding_task")
    assert fake.asked == ["undo in function.py", "test_undo in test_solution.py"]
    assert result.stop_reason == (
        "unverified: the code is written, and not verified: the goal gives no example of undo and the "
        "model gave no test of it: nothing checks it"
    )


def test_which_goals_are_piecewise_and_what_is_asked() -> None:
    assert [p.name for p in asked_pieces(GOAL)] == ["double", "triple", "six_times"]
    assert module_file(GOAL) == "solution.py"
    assert asked_pieces(GOAL.replace("solution.py", "a.py and b.py")) == []  # no one module
    one = GOAL.split("\n\n\ndef triple")[0] + "\n```\n"
    assert [p.name for p in asked_pieces(one)] == ["double"]  # one function with examples: a piece too
    bare = one.replace("    >>> double(2)\n    4\n", "")
    assert [p.name for p in asked_pieces(bare)] == ["double"]  # one without: its test is the model's
    pieces = pieces_of(GOAL)
    assert pieces[2].helpers == ["double", "triple"]
    code = "def double(x):\n    return x + x\n\ndef triple(x):\n    'Three.'\n"
    # verified pieces and those written without examples are not asked for; a stub is
    assert [p.name for p in to_ask(pieces, ["double"], code)] == ["triple", "six_times"]


def test_a_function_is_a_helper_where_it_is_called_or_named_above_it() -> None:
    # HumanEval/10 and /12 in one goal: "the longest postfix" is prose, not a call of `longest`,
    # defined after it; a plain word names a helper defined above ("see words"), a call anywhere
    goal = (
        "Write the functions below in solution.py:\n\n```python\n"
        'def words(text: str) -> list:\n    """Its lowercase words.\n    >>> words(\'A b\')\n'
        "    ['a', 'b']\n    \"\"\"\n\n\n"
        "def is_palindrome(s: str) -> bool:\n    return s == s[::-1]\n\n\n"
        'def shortest(s: str) -> str:\n    """Find the longest postfix that is_palindrome accepts.\n'
        "    >>> shortest('cat')\n    'catac'\n    \"\"\"\n\n\n"
        'def rank(text: str) -> list:\n    """The distinct words of text (see words).\n'
        "    >>> rank('b a b')\n    ['b', 'a']\n    \"\"\"\n\n\n"
        'def both(s: str) -> str:\n    """shortest(s), then longest([s, s]).\n    >>> both(\'a\')\n'
        '    \'a\'\n    """\n\n\n'
        "def longest(strings: list) -> str:\n    \"\"\"The longest one.\n    >>> longest(['a', 'bb'])\n"
        '    \'bb\'\n    """\n```\n'
    )
    helpers = {p.name: p.helpers for p in pieces_of(goal)}
    assert helpers["shortest"] == ["is_palindrome"]
    assert helpers["rank"] == ["words", "is_palindrome"]  # is_palindrome: given, above it
    assert helpers["both"] == ["is_palindrome", "shortest", "longest"]


def test_a_piece_is_asked_with_its_own_blocks_imports_as_the_bare_model_is() -> None:
    # HumanEval/12 and /14 as one goal, one block each: /14's ask is /14's prompt alone (its one
    # import, no `longest` for "from shortest to longest", a plain word of another block), not the
    # module's imports merged; a block of imports alone is every piece's
    goal = (
        "Write solution.py with longest, all_prefixes, size.\n\n```python\nimport math\n```\n\n"
        "```python\nfrom typing import List, Optional\n\n\n"
        'def longest(strings: List[str]) -> Optional[str]:\n    """The longest one.\n'
        "    >>> longest(['a', 'bb'])\n    'bb'\n    \"\"\"\n```\n\n"
        "```python\nfrom typing import List\n\n\n"
        'def all_prefixes(string: str) -> List[str]:\n    """From shortest to longest.\n'
        "    >>> all_prefixes('ab')\n    ['a', 'ab']\n    \"\"\"\n```\n\n"
        '```python\ndef size(xs: list) -> int:\n    """len(longest(xs)).\n'
        "    >>> size(['a', 'bb'])\n    2\n    \"\"\"\n```\n"
    )
    pieces = {p.name: p for p in pieces_of(goal)}
    asked = ask_text(pieces["all_prefixes"], list(pieces.values()))
    assert asked.startswith("import math\nfrom typing import List\n\n\ndef all_prefixes(")
    assert "longest" not in asked.split('"""')[0]  # no helper stub: only its own lines
    # a call names a helper across blocks; the helper's imports come with its stub
    assert pieces["size"].helpers == ["longest"]
    assert ask_text(pieces["size"], list(pieces.values())).startswith(
        "import math\nfrom typing import List, Optional\n\n\ndef longest("
    )


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
