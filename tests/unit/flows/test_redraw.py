"""The plain ask and its draws (`cairn.flows.steps.redraw`): what is asked, of which file, when."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import ModelCall, RunConfig
from cairn.flows.steps.redraw import (
    defined,
    draws,
    failures,
    kept,
    passing,
    plain_only,
    redraw_input,
    stripped,
    stubs,
)
from cairn.flows.steps.write import KEPT_WHY, keeping
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import FUNCTION_ASK, INSTRUCTIONS, parse_request, render, sampling
from cairn.tasks.messages.schemas import Excerpt, FileDraft, Plan, PlanInput, Schema, WriteInput, WriteOutput
from cairn.tasks.offline import respond
from tests.model_server import ModelServer
from tests.unit.scripted import answer_with, provided, run_whole_task

SIGNATURE = 'def make(s: str) -> str:\n    """Make s.\n    >>> make("ab")\n    \'aba\'\n    """\n'
WRONG = SIGNATURE + "    return s + s[::-1]\n"
HELPER = "def helper() -> int:\n    return 1\n\n\n"
DOCTEST_RUN = (
    "**********************************************************************\n"
    "Line 1, in the goal\nFailed example:\n    make(\"ab\")\nExpected:\n    'aba'\nGot:\n    'abba'\n"
    "FAILED test_solution.py::test_the_goals_examples - AssertionError: 1 of 1 of the goal's examples fail\n"
)


def goal_input(**update: object) -> WriteInput:
    return WriteInput(goal="Write `make` in solution.py", **update)  # type: ignore[arg-type]


def test_a_draft_without_a_body_is_asked_for_plainly() -> None:
    ask = redraw_input(goal_input(), {"solution.py": HELPER + SIGNATURE}, ["make"], draw=0)
    assert ask is not None and ask.form == "plain" and ask.draw == 0
    assert ask.bodies == ["make in solution.py"] and ask.tests == ""
    assert ask.current == [Excerpt(source="solution.py", text=HELPER + SIGNATURE)]


def test_code_written_back_unchanged_after_a_failing_run_is_drawn_again_from_its_signature() -> None:
    payload = goal_input(current=[Excerpt(source="solution.py", text=HELPER + WRONG)], tests=DOCTEST_RUN)
    for drafts in ({}, {"solution.py": HELPER + WRONG}):
        ask = redraw_input(payload, drafts, ["make"], draw=2)
        assert ask is not None and ask.draw == 2
        assert ask.current[0].text == HELPER + SIGNATURE  # the failing body is not shown again
        assert ask.tests == "make(\"ab\") returned 'abba'; the goal expects 'aba'."


def test_new_code_or_nothing_failing_asks_nothing() -> None:
    failing = goal_input(current=[Excerpt(source="solution.py", text=WRONG)], tests=DOCTEST_RUN)
    assert redraw_input(failing, {"solution.py": SIGNATURE + "    return s\n"}, ["make"], draw=1) is None
    assert redraw_input(goal_input(), {"solution.py": WRONG}, ["make"], draw=0) is None
    assert redraw_input(failing, {}, ["other"], draw=0) is None  # no file defines what the goal names


def test_a_run_that_found_no_tests_or_new_code_beside_new_tests_is_not_redrawn() -> None:
    no_tests = goal_input(current=[Excerpt(source="solution.py", text=WRONG)], tests="no tests ran in 0.3s")
    assert redraw_input(no_tests, {"solution.py": WRONG}, ["make"], draw=0) is None
    failing = no_tests.model_copy(update={"tests": DOCTEST_RUN})
    beside_tests = {"solution.py": WRONG, "test_solution.py": "def test_make(): ..."}
    assert redraw_input(failing, beside_tests, ["make"], draw=0) is not None  # the code is what failed


def test_the_full_ask_is_skipped_only_when_it_failed_before_and_no_spec_was_read() -> None:
    failing = goal_input(current=[Excerpt(source="solution.py", text=WRONG)], tests=DOCTEST_RUN)
    assert plain_only(failing, ["make"], drawn=1)
    assert not plain_only(failing, ["make"], drawn=0)  # no plain ask yet
    spec = failing.model_copy(update={"excerpts": [Excerpt(source="source:spec/make.md", text="...")]})
    assert not plain_only(spec, ["make"], drawn=1)  # only the full ask shows the spec's words
    stub = goal_input(current=[Excerpt(source="solution.py", text=SIGNATURE)])
    assert plain_only(stub, ["make"], drawn=1) and not plain_only(goal_input(), ["make"], drawn=1)


def test_stubs_and_stripped_bodies() -> None:
    files = {"solution.py": HELPER + SIGNATURE, "notes.md": "def make():", "bad.py": "def make(:"}
    assert stubs(files, ["make", "helper"]) == ["make in solution.py"]
    assert stripped(HELPER + WRONG, ["make"]) == HELPER + SIGNATURE
    assert stripped(HELPER + WRONG, ["helper"]) == "def helper() -> int:\n\n\n" + WRONG


def test_failures_without_doctest_blocks_are_the_assertion_lines() -> None:
    run = "    def test_make():\n>       assert make('ab') == 'aba'\n"
    run += "E       AssertionError: assert 'abba' == 'aba'\n"
    assert failures(run) == "AssertionError: assert 'abba' == 'aba'"
    assert failures("1 passed") == ""


def test_the_plain_form_shows_the_file_and_one_ask_and_reads_back() -> None:
    payload = goal_input(
        form="plain",
        draw=1,
        bodies=["make in solution.py"],
        current=[Excerpt(source="solution.py", text=SIGNATURE)],
        tests="make(\"ab\") returned 'abba'; the goal expects 'aba'.",
    )
    system, user = render("write", payload)
    assert system["content"].splitlines() == [
        "cairn-call: write sample 1",
        "Complete the code the user gives.",
    ]
    assert INSTRUCTIONS["write"] not in system["content"]  # the instructions the 1.5B parroted past
    # Asked as a user asks it: no data label, no JSON block (about 115 tokens a redraw).
    assert user["content"].startswith("Complete the Python code of solution.py: write the body of make.")
    assert "write the body of make. Its last version failed: make(\"ab\") returned 'abba'" in user["content"]
    assert user["content"].endswith(f"```python\n{SIGNATURE}```")
    kind, back = parse_request([system, user])
    assert kind == "write" and isinstance(back, WriteInput)
    assert (back.form, back.draw, back.current, back.bodies) == ("plain", 1, payload.current, payload.bodies)
    assert back.tests == payload.tests
    assert "def make" in respond([system, user])  # offline, the file comes back as it is


def test_a_first_draw_is_the_function_asked_as_without_cairn_and_reads_back() -> None:
    """No system message, data label or JSON block: the line and the code a user would send the model
    alone (the bare model's greedy answer to it, HumanEval's sort_numbers among them, is its own)."""
    helper = 'def half(x):\n    """Half."""\n    ...\n\n\n'
    payload = goal_input(
        form="plain",
        bodies=["make in solution.py"],
        current=[Excerpt(source="solution.py", text=helper + SIGNATURE)],
        reply="function",
    )
    (user,) = render("write", payload)  # no system message: the request the bare model is sent
    assert user == {
        "role": "user",
        "content": f"{FUNCTION_ASK}\n\n```python\n{helper}{SIGNATURE.rstrip()}\n```",
    }
    kind, back = parse_request([user])
    assert kind == "write" and isinstance(back, WriteInput)
    read = (back.form, back.draw, back.reply, back.bodies)
    assert read == ("plain", 0, "function", ["make in function.py"])
    assert back.current[0].text == helper + SIGNATURE.rstrip() + "\n"
    assert "def make" in respond([user])  # offline, the code comes back as it is


def test_the_full_form_shows_nothing_of_the_plain_one() -> None:
    _system, user = render("write", goal_input(bodies=["make in solution.py"]))
    assert '"form"' not in user["content"] and '"draw"' not in user["content"]  # its request is as before


def test_an_example_that_raised_is_said_with_its_error() -> None:
    run = "Failed example:\n    make(1)\nException raised:\n    Traceback (most recent call last):\n"
    run += '      File "<doctest>", line 1\n    TypeError: can only concatenate str\n'
    assert failures(run) == "make(1) raised TypeError: can only concatenate str."


def test_a_draw_is_the_models_nth_sample_and_the_first_ask_its_likeliest() -> None:
    from cairn.tasks.model.llm import ModelClient

    assert sampling(goal_input()) == {} and sampling(goal_input(draw=3)) == {"temperature": 0.8, "seed": 3}
    plain = goal_input(
        form="plain", bodies=["make in solution.py"], current=[Excerpt(source="solution.py", text=SIGNATURE)]
    )
    with ModelServer() as server:
        client = ModelClient("openai/m", litellm_kwargs={"api_base": server.url, "api_key": "x"})
        first, third = client.call("write", plain), client.call("write", plain.model_copy(update={"draw": 2}))
    assert first.ok and third.ok
    sent = [(r.get("temperature"), r.get("seed")) for r in server.requests]
    assert sent == [(0.0, None), (0.8, 2)]


def test_a_draw_is_numbered_by_the_asks_of_earlier_iterations_so_a_resume_asks_the_same() -> None:
    def asked(iteration: int, index: int) -> ModelCall:
        return ModelCall(key=f"t/{iteration}/{index}/redraw", kind="write", model="m", iteration=iteration)

    plan = ModelCall(key="t/3/0/plan", kind="plan", model="m", iteration=3)
    state = TaskState(model_calls=[asked(1, 0), plan, asked(3, 1)])
    assert [draws(state, i) for i in (1, 2, 3, 4)] == [0, 1, 1, 2]  # iteration 3 resumed: draw 1 again


THREE = '''def double(x: int) -> int:
    """Twice x.
    >>> double(2)
    4
    """
    return x + x


def triple(x: int) -> int:
    """Three times x.
    >>> triple(2)
    6
    """
    return 3 * x


def square(x: int) -> int:
    """x times x.
    >>> square(3)
    9
    """
    return {square}
'''
SQUARE_FAILED = "Failed example:\n    square(3)\nExpected:\n    9\nGot:\n    6\n"


def test_the_functions_whose_examples_passed_are_those_no_failed_example_calls() -> None:
    goal = "Write these in solution.py:\n\n" + THREE
    names = ["double", "triple", "square"]
    assert passing(goal, SQUARE_FAILED, names) == ["double", "triple"]
    assert passing(goal, "1 failed: AssertionError", names) == []  # no example failed: nothing known
    every = "".join(f"Failed example:\n    {n}(1)\nException raised:\n    NameError\n" for n in names)
    assert passing(goal, every, names) == []  # an error that failed them all


def test_a_draft_keeps_the_passing_functions_as_they_were_and_the_helpers_it_still_calls() -> None:
    current = "def helper(x):\n    return x\n\n\n" + THREE.replace("{square}", "x * 2  # wrong")
    draft = THREE.replace("return x + x", "return x + 3").replace("{square}", "helper(x) * x")
    draft = draft.replace("    return 3 * x\n", "    return 3 * x  # the model's own words\n")
    out = kept(current, draft, ["double", "triple"])
    assert "return x + x" in out and "return x + 3" not in out  # double as it passed
    assert "# the model's own words" not in out  # triple as it passed, in its place
    assert "helper(x) * x" in out and out.count("def helper(") == 1  # the fix, and the helper it calls
    namespace: dict[str, Any] = {}
    exec(compile(out, "solution.py", "exec"), namespace)
    assert [namespace[n](3) for n in ("double", "triple", "square")] == [6, 9, 9]
    only_square = "def square(x: int) -> int:\n    return x * x\n"
    out = kept(current, only_square, ["double", "triple"])  # a reply with the one function asked for
    assert [d for d in ("def double", "def triple", "def square") if d in out] == [
        "def double",
        "def triple",
        "def square",
    ]
    assert kept(current, "def double(:\n", ["double"]) == "def double(:\n"  # unparsable: as it is


class Regressing(CustomLLM):
    """Writes double and triple right and square wrong; asked again, fixes square and breaks double
    (what the 1.5B did to a ten-function HumanEval module: 10 of 15 examples passing became 1)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        reply: Schema | None = None
        if kind == "write":
            self.writes += 1
            first = self.writes == 1
            code = THREE.replace("{square}", "x * 2" if first else "x * x")
            code = code if first else code.replace("return x + x", "return x + 3")
            reply = WriteOutput(files=[FileDraft(path="solution.py", content=code)])
        elif isinstance(payload, PlanInput):
            reply = Plan(candidates=[])
        return answer_with(model, reply, messages)


@pytest.fixture
def regressing() -> Iterator[Regressing]:
    fake = Regressing()
    with provided(fake):
        yield fake


def test_a_rewrite_that_fixes_one_function_and_breaks_another_keeps_the_one_that_passed(
    tmp_path: Path, regressing: Regressing
) -> None:
    goal = "Write these functions in solution.py:\n\n" + THREE.replace("    return {square}\n", "")
    goal = goal.replace("    return x + x\n", "").replace("    return 3 * x\n", "")
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
    result = run_whole_task(config, "three", goal, task_type="coding_task")
    assert result.status == "complete", (result.stop_reason, result.unmet)
    assert regressing.writes >= 2  # the second draft was taken: square is fixed
    solution = (tmp_path / "ws" / "tasks" / "three" / "artifacts" / "solution.py").read_text(encoding="utf-8")
    assert "return x + x" in solution and "return x * x" in solution and "x + 3" not in solution
    writes = [c for c in Workspace(tmp_path / "ws").task("three").state().calls if c.tool == "write_file"]
    assert any(f"{KEPT_WHY} double, triple." in (c.tool_selection_rationale or "") for c in writes)


def test_a_reply_that_is_no_draft_of_the_functions_is_left_for_write_file_to_refuse(tmp_path: Path) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text(THREE.replace("{square}", "x * 2"), encoding="utf-8")
    names, keep = ["double", "triple", "square"], ["double", "triple"]
    junk = "obj['bodies']['solution.py']"  # what the 1.5B once answered a write with
    assert keeping(solution, junk, keep, names) == junk
    only_double = "def double(x: int) -> int:\n    return x + 3\n"
    out = keeping(solution, only_double, keep, names)
    assert defined(out) == {"double", "triple", "square"} and "x + 3" not in out  # square put back too


class Stubborn(CustomLLM):
    """At temperature 0 the full ask always gives the same module: `double` written back as a
    stub, `square` still wrong, an import Cairn added left out (what the real K = 10 run got four
    iterations in a row); only a plain ask, which asks for the failing body alone, gives a right
    `square`."""

    def __init__(self) -> None:
        super().__init__()
        self.plain = self.full = 0

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        reply: Schema | None = None
        if kind == "write" and isinstance(payload, WriteInput) and payload.form == "plain":
            self.plain += 1
            fixed = "def square(x: int) -> int:\n    return x * x\n"
            reply = WriteOutput(files=[FileDraft(path="solution.py", content=fixed)])
        elif kind == "write":
            self.full += 1
            # `Optional` never imported: Cairn adds it to the file, and no later draft has it.
            code = THREE.replace("{square}", "x * 2").replace(
                "square(x: int) -> int", "square(x: int) -> Optional[int]"
            )
            code = code if self.full == 1 else code.replace("    return x + x\n", "")  # double a stub
            reply = WriteOutput(files=[FileDraft(path="solution.py", content=code)])
        elif isinstance(payload, PlanInput):
            reply = Plan(candidates=[])
        return answer_with(model, reply, messages)


def test_a_full_draft_that_only_spoils_passing_functions_sends_the_failing_one_to_a_plain_ask(
    tmp_path: Path,
) -> None:
    fake = Stubborn()
    with provided(fake):
        goal = "Write these functions in solution.py:\n\n" + THREE.replace("    return {square}\n", "")
        goal = goal.replace("    return x + x\n", "").replace("    return 3 * x\n", "")
        config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=8)
        result = run_whole_task(config, "stubborn", goal, task_type="coding_task")
    assert result.status == "complete", (result.stop_reason, result.unmet)
    assert fake.plain >= 1
    solution = (tmp_path / "ws" / "tasks" / "stubborn" / "artifacts" / "solution.py").read_text(
        encoding="utf-8"
    )
    assert "return x + x" in solution and "return x * x" in solution
