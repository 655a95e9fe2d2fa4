"""Bounded model time (issue 33): every reply is capped to what its call kind carries, a streamed
reply that repeats itself is hung up on as soon as it does, and a runaway is never asked again
to the same cap. Over HTTP to the model server on loopback (`tests/model_server.py`), which
streams a reply that repeats itself until the client hangs up, or one that stops at the cap."""

from __future__ import annotations

import json
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse
from rich.console import Console

from cairn.core import CallKey, ModelCall, RunConfig
from cairn.flows.cli.model_usage import usage_table
from cairn.flows.steps.model_calls import record_model_call
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import (
    ActInput,
    CallKind,
    Candidate,
    Excerpt,
    ExtractConstraintInput,
    Plan,
    PlanInput,
    SynthesizeInput,
    WriteInput,
)
from cairn.tasks.model.cassette import forget_cassettes, load_cassette
from cairn.tasks.model.llm import KEPT, LLMResult, ModelClient
from cairn.tasks.model.reply_caps import (
    CPU_TOKENS_PER_S,
    PROMPT_SECONDS,
    REPLY_TOKENS,
    reply_cap,
    reply_timeout,
)
from cairn.tasks.model.stream import MIN_SPAN, repeats
from cairn.tasks.offline import respond
from tests.model_server import MOST_TOKENS, ModelServer
from tests.unit.flows.test_real_model_loop import _padded_spec as padded_spec
from tests.unit.scripted import create_task, run_whole_task

ROOT = Path(__file__).resolve().parents[3]
RECORDED = sorted((ROOT / "tests" / "data" / "real-model").glob("*.jsonl"))
PLAN = PlanInput(goal="Summarise the notes in docs/.", task_type="research_task", iteration=1, tools=[])


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer(token_delay=0.0005) as running:  # 2,000 tokens a second: far faster than a CPU model
        yield running


def client_of(server: ModelServer, **options: Any) -> ModelClient:
    kwargs = {"api_base": server.url, "api_key": "local"}
    return ModelClient("openai/small", litellm_kwargs=kwargs, retry_wait=0, **options)


def test_a_reply_that_repeats_itself_is_hung_up_on_and_asked_again_once_for_half(server: ModelServer) -> None:
    server.mode = "repeat"
    started = time.monotonic()
    result = client_of(server).call("plan", PLAN)
    took = time.monotonic() - started
    assert not result.ok and result.attempts == 2 and took < 10
    first, second = (e.split(": ", 1)[0] for e in result.errors)
    assert first.startswith("plan reply repeated itself after ") and second.startswith(
        first.split(" after ")[0]
    )
    assert result.error is not None and result.error.startswith(
        first + "; asked again, it repeated itself after"
    )
    assert result.error.endswith(": not tried again")
    assert [r["max_tokens"] for r in server.requests] == [1536, 768]  # never the same cap twice
    note = server.requests[1]["messages"][-1]
    assert note["role"] == "user" and note["content"].startswith("Your reply repeated itself after")
    assert "at most 768 tokens" in note["content"]
    assert all(
        m["role"] != "assistant" for m in server.requests[1]["messages"]
    )  # the runaway not shown again
    # Read: four copies of a 150-character block (600 characters, about 150 tokens) and a little more.
    assert result.cost.completion_tokens < 2 * 300 < 1536 + 768
    assert repeats(result.raw)  # what was read ends repeating itself, and no further
    time.sleep(0.3)
    sent = list(server.streamed)
    time.sleep(0.3)
    assert server.streamed == sent and max(sent) < MOST_TOKENS // 10  # the server saw the client hang up


def test_a_plain_write_is_capped_at_twice_the_code_it_shows(server: ModelServer) -> None:
    """HumanEval/38's test of one function ran to the kind's 2,048 tokens: a plain ask completes
    the code it shows, so its reply is capped by it (`reply_cap`)."""
    server.mode = "ramble"
    stub = Excerpt(source="test_solution.py", text="from solution import f\n\n\ndef test_f():\n" * 2)
    payload = WriteInput(goal="g", form="plain", current=[stub], bodies=["test_f in test_solution.py"])
    result = client_of(server).call("write", payload)
    cap = reply_cap("write", payload)
    assert cap < REPLY_TOKENS["write"] // 3 and not result.ok
    assert server.requests[0]["max_tokens"] == cap and result.cost.completion_tokens <= 1.5 * cap


def test_a_reply_cut_at_its_cap_is_asked_again_once_for_half_and_the_call_fails_naming_it(
    server: ModelServer,
) -> None:
    server.mode = "ramble"
    result = client_of(server).call("synthesize", SynthesizeInput(goal="g", iteration=1, calls=[]))
    assert not result.ok and result.attempts == 2
    assert result.error == (
        "synthesize reply was cut at its cap of 512 tokens; asked again, "
        "it was cut at its cap of 256 tokens: not tried again"
    )
    assert [r["max_tokens"] for r in server.requests] == [512, 256]
    assert result.cost.completion_tokens == 512 + 256  # the server's own usage, streamed last
    assert server.streamed == [512, 256]


def test_a_runaway_retry_that_answers_is_taken(server: ModelServer) -> None:
    """Told it ran away and given half the cap, a model that then answers briefly is fine."""
    server.mode = "repeat"
    client = client_of(server)

    def answer_after_the_note(body: dict[str, Any]) -> Iterator[str]:
        if "Your reply repeated itself" in body["messages"][-1]["content"]:
            return iter(
                [Plan(candidates=[Candidate(tool="list_directory", params={"path": "."})]).model_dump_json()]
            )
        return repeating(body)

    repeating = server.tokens
    server.tokens = answer_after_the_note  # type: ignore[method-assign]
    result = client.call("plan", PLAN)
    assert result.ok and result.attempts == 2 and result.output is not None
    assert result.errors[0].startswith("plan reply repeated itself after")


def test_a_write_that_runs_away_fails_at_once(server: ModelServer) -> None:
    """Its step asks again in other words (`cairn.flows.steps.write`): the client does not."""
    server.mode = "repeat"
    server.runaway = ("half.py\n```python\n", "assert half(2.0) == 1.0\n")
    result = client_of(server).call("write", WriteInput(goal="Write `half` in half.py"))
    assert not result.ok and result.attempts == 1 and len(server.requests) == 1
    assert result.error is not None and result.error.startswith("write reply repeated itself after")


def test_a_write_that_repeats_itself_after_a_whole_file_keeps_the_file(server: ModelServer) -> None:
    server.mode = "repeat"
    server.runaway = ("half.py\n```python\ndef half(x):\n    return x / 2\n```\n\n", "\n")
    result = client_of(server).call("write", WriteInput(goal="Write `half` in half.py"))
    assert result.ok and result.output is not None
    assert [f.path for f in result.output.files] == ["half.py"]


def test_a_plan_that_writes_its_steps_again_and_again_keeps_each_whole_step_once(server: ModelServer) -> None:
    """The 1.5B planned three of slack's goals by writing its reads again and again, on both
    tries: the steps it had written whole are its plan, each once, and the call says it ran away."""
    server.mode = "repeat"
    read = '{"tool": "read_channel_messages", "args": {"channel": "general"}, "why": "find it"}, '
    server.runaway = ('{"asks_for_change": true, "steps": [{"tool": "get_channels"}, ', read)
    result = client_of(server).call("act", ActInput(goal="Find the restaurant in general.", tools=[]))
    assert result.ok and result.output is not None and len(server.requests) == 1
    assert [(s.tool, s.args) for s in result.output.steps] == [
        ("get_channels", {}),
        ("read_channel_messages", {"channel": "general"}),
    ]
    assert result.error is not None and result.error.startswith("act reply repeated itself after")
    assert result.error.endswith(KEPT)
    shown = ModelCall(key="t/1/0/act", kind="act", model="m", ok=True, error=result.error)
    assert "ran away act t/1/0/act (1 attempt" in _rendered(usage_table([shown]))  # in `cairn show`


def test_a_plan_cut_inside_its_first_step_is_no_plan(server: ModelServer) -> None:
    server.mode = "repeat"
    server.runaway = ('{"steps": [{"tool": "get_channels", "why": "', "and again ")
    result = client_of(server).call("act", ActInput(goal="Find the restaurant in general.", tools=[]))
    assert not result.ok and result.error is not None and result.error.endswith("not tried again")


def test_a_reply_still_running_at_its_timeout_is_a_runaway_too() -> None:
    """A model slower than its timeout allows is not asked again for as much: half, then no more."""
    with ModelServer(token_delay=0.02) as server:
        server.mode = "ramble"
        started = time.monotonic()
        result = client_of(server, timeout=0.4).call(
            "extract_constraint", ExtractConstraintInput(message="x")
        )
    assert time.monotonic() - started < 3
    assert not result.ok and result.attempts == 2
    assert result.error is not None and result.error.startswith(
        "extract_constraint reply was still running at"
    )
    assert [r["max_tokens"] for r in server.requests] == [256, 128]


def test_invalid_replies_share_twice_the_cap(server: ModelServer) -> None:
    """Complete, invalid and long: asked again with the error until the budget is spent."""
    server.answer = json.dumps({"wrong": " ".join(f"w{n}" for n in range(200))})  # about 240 tokens
    result = client_of(server).call("extract_constraint", ExtractConstraintInput(message="x"))
    assert not result.ok and result.attempts == 2 and len(server.requests) == 2
    assert result.error is not None and "reply tokens spent" in result.error and "of its 512" in result.error
    assert result.cost.completion_tokens <= 2 * REPLY_TOKENS["extract_constraint"]


# --- legitimate replies are never hung up on -------------------------------------------------


def _plan_of_reads(count: int, indent: int | None) -> str:
    calls = [
        Candidate(
            tool="read_file",
            params={"path": f"source:docs/note-{n}.md"},
            rationale="Read the note for facts to cite.",
            expected_evidence=["execution"],
        )
        for n in range(count)
    ]
    return json.dumps(Plan(candidates=calls).model_dump(), indent=indent)


TEN_ASSERTS = (
    "half.py\n```python\ndef half(x):\n    return x / 2\n```\n\ntest_half.py\n```python\n"
    + "".join(f"def test_half_{n}():\n    assert half({2 * n}.0) == {n}.0\n\n" for n in range(10))
)
FIXTURE = "DATES = [\n" + "    datetime.date(1900, 12, 25),\n" * 10 + "]\n"
REPORT = (
    "# Water\n\n"
    + "=" * 79
    + "\n\n| file | figure |\n|---|---|\n"
    + "".join(f"| note-{n}.md | {n * 1000} m3 [source: docs/note-{n}.md] |\n" for n in range(12))
    + "\n## Sources\n\n"
    + "".join(f"- [source: docs/note-{n}.md]\n" for n in range(12))
)
LEGITIMATE = {
    "a plan of 5 read_file calls": _plan_of_reads(5, 2),
    "a plan of 8 read_file calls, compact": _plan_of_reads(8, None),
    "a test file of 10 similar asserts": TEN_ASSERTS,
    "ten equal lines of a fixture": FIXTURE,
    "a report with a rule, a table and its sources": REPORT,
}


@pytest.mark.parametrize("name", LEGITIMATE)
def test_legitimate_repetitive_text_never_trips_at_any_length(name: str) -> None:
    text = LEGITIMATE[name]
    assert [n for n in range(1, len(text) + 1) if repeats(text[:n])] == []


def test_no_reply_the_real_model_gave_ever_trips() -> None:
    """Every recorded reply of the 1.5B, at every length it had while streaming: among them a
    plan that named three calls twice (never three times running)."""
    replies = [r.text for path in RECORDED for e in load_cassette(path) if (r := e.reply) is not None]
    assert len(replies) > 30
    assert [t[:60] for t in replies if any(repeats(t[:n]) for n in range(1, len(t) + 1))] == []


def test_a_runaway_trips_within_its_span() -> None:
    block = '{"tool": "read_file", "params": {"path": "source:docs/intro.md"}}, '
    text = '{"candidates": [' + block * 20
    first = next(n for n in range(1, len(text) + 1) if repeats(text[:n]))
    assert first == len('{"candidates": [') + len(block) * -(-MIN_SPAN // len(block))  # 9 copies of 67
    assert repeats("\n" * MIN_SPAN) == 1 and repeats("\n" * (MIN_SPAN - 1)) == 0  # a grammar's endless blank


@pytest.mark.parametrize(
    ("name", "kind"),
    [("a plan of 5 read_file calls", "plan"), ("a test file of 10 similar asserts", "write")],
)
def test_legitimate_repetitive_replies_pass_the_stream(
    server: ModelServer, name: str, kind: CallKind
) -> None:
    server.answer = LEGITIMATE[name]
    payload = PLAN if kind == "plan" else WriteInput(goal="Write `half` in half.py, tests in test_half.py")
    result = client_of(server).call(kind, payload)
    assert result.ok and result.attempts == 1 and result.raw == LEGITIMATE[name]


# --- caps that fit each call kind ----------------------------------------------------------------


def recorded_tokens() -> dict[str, list[int]]:
    """Completion tokens of every reply of the real model, by kind (tests/data/real-model)."""
    found: dict[str, list[int]] = {}
    for path in RECORDED:
        for entry in load_cassette(path):
            if entry.reply is not None:
                found.setdefault(entry.kind, []).append(entry.reply.completion_tokens)
    return found


def test_each_cap_fits_the_real_models_replies_with_room() -> None:
    for kind, tokens in recorded_tokens().items():
        assert REPLY_TOKENS[kind] >= 2.5 * max(tokens), kind  # type: ignore[index]
    assert REPLY_TOKENS["plan"] >= 8 * 128  # 8 candidates (deep mode) at the most one took


def test_a_plan_the_real_model_gave_passes_under_its_cap(server: ModelServer) -> None:
    """The longest plan recorded (511 tokens, with a `run_python` holding code), streamed."""
    entries = load_cassette(ROOT / "tests" / "data" / "real-model" / "reservoir-question.cassette.jsonl")
    longest = max(
        (e.reply for e in entries if e.kind == "plan" and e.reply), key=lambda r: r.completion_tokens
    )
    server.answer = longest.text
    result = client_of(server).call("plan", PLAN)
    assert result.ok and result.attempts == 1 and len(result.output.candidates) == 4  # type: ignore[union-attr]


def worst_seconds(kind: CallKind, attempts: int = 3) -> tuple[float, float]:
    """(a runaway's generation at a CPU model's 5 tokens/s, every attempt's timeout in all)."""
    cap = REPLY_TOKENS[kind]
    runaway = cap if kind == "write" else cap + cap // 2
    return runaway / CPU_TOKENS_PER_S, attempts * reply_timeout(cap, None)


def test_the_time_a_call_kind_takes_is_bounded() -> None:
    """docs/design.md, "Bounded model time (issue 33)": the figures it gives."""
    assert {kind: worst_seconds(kind) for kind in ("plan", "synthesize", "write")} == {
        "plan": (460.8, 3 * 580.8),
        "synthesize": (153.6, 3 * 273.6),
        "write": (409.6, 3 * 734.4),
    }
    assert all(worst_seconds(kind)[0] <= 2 * REPLY_TOKENS[kind] / CPU_TOKENS_PER_S for kind in REPLY_TOKENS)
    assert all(
        reply_timeout(cap, None) >= PROMPT_SECONDS + cap / CPU_TOKENS_PER_S for cap in REPLY_TOKENS.values()
    )
    before = 3 * 4096 / CPU_TOKENS_PER_S  # a plan's three attempts, each to 4,096 tokens
    assert worst_seconds("plan")[0] < before / 5


# --- a plan that carries a whole file ------------------------------------------------------------


class FilePlanner(CustomLLM):
    """Plans a `write_file` holding a whole file, cut at the plan's cap (as the 1.5B's runaway
    plans did); told it was cut, plans reading the spec instead. Everything else: offline."""

    def __init__(self) -> None:
        super().__init__()
        self.plans: list[tuple[int, str]] = []  # (max_tokens asked, finish reason)

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, _ = parse_request(messages)
        content, finish = respond(messages), "stop"
        if kind == "plan" and "and was stopped." in str(messages[-1]["content"]):
            read = Candidate(tool="read_file", params={"path": "source:spec/slugify.md"})
            content = Plan(candidates=[read]).model_dump_json()
        elif kind == "plan":
            code = "import re\\n" + "x = 1\\n" * 400  # never closed: the cap comes first
            content, finish = (
                '{"candidates": [{"tool": "write_file", "params": {"path": "slug.py", "content": "' + code,
                "length",
            )
        if kind == "plan":
            self.plans.append((kwargs["optional_params"]["max_tokens"], finish))
        choice = {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}}
        return ModelResponse(
            model=model, choices=[choice], usage={"prompt_tokens": 100, "completion_tokens": 20}
        )


def test_a_plan_whose_file_does_not_fit_is_asked_again_and_the_write_step_writes_the_file(
    tmp_path: Path,
) -> None:
    """A plan names calls; files come from the `write` step (its cap is 2,048). With sources too
    many to read whole the planner leads: its plan holding slug.py is cut at 1,536 tokens, asked
    again for 768 it reads the spec, and once the planner has nothing new, Cairn asks for the
    files alone and writes them."""
    fake = FilePlanner()
    saved = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [*saved, {"provider": "files", "custom_handler": fake}]
    try:
        config = RunConfig(workspace=str(tmp_path / "ws"), model="files/m", max_iterations=6)
        goal = tomllib.loads((ROOT / "bench" / "agent_tasks" / "slugify" / "task.toml").read_text())["goal"]
        result = run_whole_task(config, "c", goal, [padded_spec(tmp_path / "spec")])
    finally:
        litellm.custom_provider_map = saved
    assert result.complete
    assert fake.plans[:2] == [(1536, "length"), (768, "stop")]
    state = Workspace(tmp_path / "ws").task("c").state()
    plans = [c for c in state.model_calls if c.kind == "plan"]
    assert plans and all(c.ok and c.attempts == 2 for c in plans)  # each cut once, then answered
    wrote = [c for c in state.calls if c.tool == "write_file"]
    assert [c.params["path"] for c in wrote] == ["slug.py", "test_slug.py"]
    asked = [c.iteration for c in state.model_calls if c.kind == "write"]
    assert asked == [wrote[0].iteration]  # the write step's files, not the plan's
    assert "def slugify" in (Workspace(tmp_path / "ws").task("c").artifacts / "slug.py").read_text()


# --- recorded, replayed, shown ------------------------------------------------------------------


def test_a_streamed_runaway_is_recorded_and_replayed(server: ModelServer, tmp_path: Path) -> None:
    server.mode = "repeat"
    cassette = tmp_path / "runaway.jsonl"
    forget_cassettes()
    recorded = client_of(server, record=cassette).call("plan", PLAN)
    entries = load_cassette(cassette)
    assert [e.reply.finish_reason for e in entries if e.reply] == ["repetition", "repetition"]
    assert entries[0].reply is not None and repeats(entries[0].reply.text)
    asked = len(server.requests)
    replayed = ModelClient(f"replay:{cassette}").call("plan", PLAN)
    forget_cassettes()
    assert len(server.requests) == asked  # the replay asked no one
    assert (replayed.ok, replayed.error, replayed.attempts) == (
        recorded.ok,
        recorded.error,
        recorded.attempts,
    )
    assert replayed.cost.completion_tokens == recorded.cost.completion_tokens


def test_the_runaway_is_in_the_history_and_in_cairn_show(server: ModelServer, tmp_path: Path) -> None:
    server.mode = "repeat"
    result: LLMResult[Any] = client_of(server).call("plan", PLAN)
    session = create_task(RunConfig(workspace=str(tmp_path)), "t", "Summarise the notes.")
    record_model_call(session, CallKey(task_id="t", iteration=1, index=0, kind="plan"), result)
    (call,) = [c for c in Workspace(tmp_path).task("t").state().model_calls if c.kind == "plan"]
    assert not call.ok and call.attempts == 2 and call.error == result.error
    assert call.cost.completion_tokens == result.cost.completion_tokens > 0
    shown = _rendered(usage_table(Workspace(tmp_path).task("t").state().model_calls))
    assert f"failed plan t/1/0/plan (2 attempts, {call.cost.completion_tokens:,} tokens" in shown
    assert "plan reply repeated itself after" in shown


def _rendered(table: Any) -> str:
    console = Console(width=400, record=True)
    console.print(table)
    return console.export_text()


def test_cairn_show_prints_a_failed_calls_reason_as_it_is() -> None:
    failed = ModelCall(
        key="t/2/0/plan", kind="plan", model="m", ok=False, attempts=1, error="[source: x] cut"
    )
    assert "): [source: x] cut" in _rendered(usage_table([failed]))  # not read as markup
