"""Cairn's shortened view of an earlier call is never written back as a file, and a Python file that
parses is never replaced by one that does not (issue 35, item 5).

Replayed as the local model did it: iteration 1 wrote a whole `counter.py`; a later plan proposed
`write_file(counter.py)` with the content the planner had been shown for that call, and Cairn
wrote it, leaving a file that raised IndentationError. Here the plans are built by hand from what
the planner is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig, ToolCall
from cairn.flows.steps.frontier import done_calls, screen
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.elision import elision_in
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import Candidate, FileDraft, Plan, PlanInput, Schema, WriteOutput
from cairn.tasks.offline import respond
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.tools.builtins import BUILTINS
from cairn.tasks.tools.file_tools import syntax_error, write_file
from tests.unit.scripted import run_whole_task

GOAL = (
    "Write a Python function word_count(text) in counter.py that returns how many times each word "
    "occurs, with pytest tests in test_counter.py"
)
COUNTER = '''"""Count the words of a text."""

import re
from collections import Counter


def word_count(text: str) -> dict[str, int]:
    """How many times each word occurs in `text`, case folded.

    Words are runs of letters, digits and apostrophes; everything else separates them.
    """
    words = re.findall(r"[\\w']+", text.lower())
    return dict(Counter(words))
'''
# The tests fail (one expectation is wrong), so the task goes on planning after they ran.
TESTS = """from counter import word_count


def test_counts() -> None:
    assert word_count("a b a") == {"a": 2, "b": 1}


def test_case() -> None:
    assert word_count("A a") == {"a": 3}
"""
ISSUE_VIEW = "import re\n  ... (524 characters)"  # the end of what the model proposed in the issue
BROKEN = "import re\n  def word_count(text):\n      return {}\n"  # no marker, does not parse

Copy = Callable[[PlanInput], str]


def copy_the_view(payload: PlanInput) -> str:
    """The content the planner was shown for the earlier write of counter.py, copied whole."""
    write = next(c for c in payload.done_calls if c.tool == "write_file" and c.params["path"] == "counter.py")
    return str(write.params["content"])


class Planner(CustomLLM):
    """`write` answers with the two files once; every plan proposes counter.py again, as `copy` says."""

    def __init__(self, copy: Copy) -> None:
        super().__init__()
        self.copy = copy
        self.plans: list[PlanInput] = []
        self.writes = 0

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        reply: Schema | None = None
        if kind == "write":
            self.writes += 1
            files = [
                FileDraft(path="counter.py", content=COUNTER),
                FileDraft(path="test_counter.py", content=TESTS),
            ]
            reply = WriteOutput(files=files if self.writes == 1 else [])
        if isinstance(payload, PlanInput):
            self.plans.append(payload)
            content = self.copy(payload)
            reply = Plan(
                candidates=[Candidate(tool="write_file", params={"path": "counter.py", "content": content})]
            )
        text = reply.model_dump_json() if reply is not None else respond(messages)
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
        return ModelResponse(
            model=model, choices=[choice], usage={"prompt_tokens": 50, "completion_tokens": 5}
        )


@pytest.fixture
def planner() -> Iterator[Callable[[Copy], Planner]]:
    saved = list(litellm.custom_provider_map)

    def install(copy: Copy) -> Planner:
        fake = Planner(copy)
        litellm.custom_provider_map = [*saved, {"provider": "fn", "custom_handler": fake}]
        return fake

    yield install
    litellm.custom_provider_map = saved


def written_counters(tmp_path: Path) -> list[ToolCall]:
    state = Workspace(tmp_path / "ws").task("wc").state()
    return [c for c in state.calls if c.tool == "write_file" and c.params.get("path") == "counter.py"]


@pytest.mark.parametrize(
    "copy", [copy_the_view, lambda payload: ISSUE_VIEW], ids=["shown-view", "issue-view"]
)
def test_a_plan_that_copies_the_shortened_view_of_a_write_is_refused_and_the_file_stays_whole(
    tmp_path: Path, planner: Callable[[Copy], Planner], copy: Copy
) -> None:
    fake = planner(copy)
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=4)
    result = run_whole_task(config, "wc", GOAL, task_type="coding_task")
    assert fake.plans, "the planner was never asked: the replay did not reach the write it is about"
    shown = copy_the_view(fake.plans[0])
    assert elision_in(shown) and not any(line in shown for line in COUNTER.splitlines() if line.strip())
    again = [p for p in fake.plans if p.rejected]
    assert again and all("reference to an earlier value" in " ".join(p.rejected) for p in again)
    assert [c.outcome for c in written_counters(tmp_path)] == ["success"]  # only the first, whole write
    counter = Path(str(result.workspace)) / "tasks" / "wc" / "artifacts" / "counter.py"
    assert counter.read_text(encoding="utf-8") == COUNTER


def test_a_write_that_would_break_a_parsing_file_is_refused_with_the_reason(
    tmp_path: Path, planner: Callable[[Copy], Planner]
) -> None:
    planner(lambda payload: BROKEN)  # no marker: the screen passes it, the tool refuses it
    config = RunConfig(workspace=str(tmp_path / "ws"), model="fn/m", max_iterations=4)
    result = run_whole_task(config, "wc", GOAL, task_type="coding_task")
    first, *later = written_counters(tmp_path)
    assert first.outcome == "success" and later
    assert all(
        c.outcome == "failure" and "parses now and this content does not" in (c.error or "") for c in later
    )
    assert "IndentationError at line 2" in (later[0].error or "")
    counter = Path(str(result.workspace)) / "tasks" / "wc" / "artifacts" / "counter.py"
    assert syntax_error(counter.read_text(encoding="utf-8")) is None


def test_the_planner_sees_a_long_value_as_a_reference_and_short_ones_whole() -> None:
    long_write = ToolCall(
        call_id="call-1-1",
        iteration=1,
        index=1,
        tool="write_file",
        params={"path": "counter.py", "content": COUNTER},
    )
    short = ToolCall(call_id="call-1-2", iteration=1, index=2, tool="read_file", params={"path": "a.md"})
    state = TaskState(task_id="t", goal=GOAL, pending_calls=[long_write, short])
    views = {c.tool: c.params for c in done_calls(state)}
    assert views["write_file"]["content"] == (
        f"[not shown: {len(COUNTER)} characters; read_file counter.py shows the file]"
    )
    assert views["read_file"] == {"path": "a.md"}
    specs = [t.spec for t in BUILTINS]
    for content in (views["write_file"]["content"], ISSUE_VIEW, f"{COUNTER}\n[not shown: 1,204 characters]"):
        proposal = Candidate(tool="write_file", params={"path": "counter.py", "content": content})
        (reason,) = screen([proposal], specs, state)
        assert "reference to an earlier value" in reason and COUNTER[:40] not in reason


@pytest.mark.parametrize(
    ("before", "content", "refused"),
    [
        (COUNTER, BROKEN, "counter.py parses now and this content does not (IndentationError at line 2"),
        (COUNTER, ISSUE_VIEW, "Cairn's reference to an earlier value"),
        (None, ISSUE_VIEW, "Cairn's reference to an earlier value"),
        ("def f(:\n", BROKEN, None),  # it did not parse before either: nothing working is lost
        (None, BROKEN, None),  # a new file: written, and the output says it does not parse
        (COUNTER, COUNTER.replace("dict(Counter(words))", "Counter(words)"), None),
        # A reply that is no module (the 1.5B's `obj['bodies']['solution.py']`) parses too.
        (COUNTER, "obj['bodies']['counter.py']\n", "counter.py defines word_count; this content defines no "),
        (COUNTER, "def count(text):\n    return {}\n", None),  # a module still: written (tests judge it)
    ],
)
def test_write_file_refuses_a_marker_and_a_parsing_file_made_unparsable(
    tmp_path: Path, before: str | None, content: str, refused: str | None
) -> None:
    ctx = ToolContext(task_id="t", artifacts=tmp_path)
    if before is not None:
        (tmp_path / "counter.py").write_text(before, encoding="utf-8")
    out = write_file(ctx, "counter.py", content)
    on_disk = (tmp_path / "counter.py").read_text(encoding="utf-8") if before or not refused else None
    if refused:
        assert out.outcome == "failure" and refused in out.text and out.written is None
        assert on_disk == before
    else:
        assert out.outcome == "success" and on_disk == content
        assert ("does not parse" in out.text) is (syntax_error(content) is not None)
