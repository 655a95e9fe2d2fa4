"""ModelClient: retries with the validation error, failures as results, JSON extraction, guards."""

from __future__ import annotations

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Iterator
from typing import Any

import litellm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from litellm import Usage
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.tasks.messages.schemas import CompressInput, DetectTaskTypeInput, ExtractConstraintInput
from cairn.tasks.model.capabilities import context_window, count_tokens
from cairn.tasks.model.failures import ModelOutputError
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.model.network_guard import block_network_models
from cairn.tasks.model.salvage import parse_model_json

Script = list[str | tuple[str, str] | Exception]


class ScriptedLLM(CustomLLM):
    """A fake model: plays scripted replies in order and keeps every request it saw."""

    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = list(script)
        self.requests: list[list[dict[str, str]]] = []

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        self.requests.append([dict(m) for m in messages])
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        text, finish = step if isinstance(step, tuple) else (step, "stop")
        return ModelResponse(
            model=model,
            choices=[
                {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}
            ],
            usage=Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15),
        )


@pytest.fixture(autouse=True)
def no_network_models() -> Iterator[None]:
    undo = block_network_models()
    yield
    undo()


@pytest.fixture
def scripted() -> Iterator[Any]:
    """Register a scripted provider `scripted/...`; returns a function script -> handler."""
    saved = list(litellm.custom_provider_map)

    def install(script: Script) -> ScriptedLLM:
        handler = ScriptedLLM(script)
        others = [e for e in litellm.custom_provider_map if e["provider"] != "scripted"]
        litellm.custom_provider_map = [*others, {"provider": "scripted", "custom_handler": handler}]
        return handler

    yield install
    litellm.custom_provider_map = saved


RULE = ExtractConstraintInput(message="Never use tabs.")


def test_valid_reply_first_time(scripted: Any) -> None:
    scripted(['{"rule": "Never use tabs."}'])
    result = ModelClient("scripted/m").call("extract_constraint", RULE)
    assert result.ok and result.output is not None and result.output.rule == "Never use tabs."
    assert result.attempts == 1 and result.error is None
    assert (result.cost.prompt_tokens, result.cost.completion_tokens) == (10, 5)
    assert result.cost.seconds >= 0


def test_invalid_json_is_retried_with_the_error(scripted: Any) -> None:
    handler = scripted(["I think the rule is: never use tabs", '{"rule": "Never use tabs."}'])
    result = ModelClient("scripted/m").call("extract_constraint", RULE)
    assert result.ok and result.attempts == 2
    retry = handler.requests[1]
    assert retry[-2] == {"role": "assistant", "content": "I think the rule is: never use tabs"}
    assert "Your reply was invalid" in retry[-1]["content"]
    assert "no valid JSON object" in retry[-1]["content"]
    assert result.cost.prompt_tokens == 20  # both attempts are paid for


def test_schema_errors_exhaust_attempts_into_a_failed_result(scripted: Any) -> None:
    handler = scripted(['{"wrong": 1}'] * 3)
    result = ModelClient("scripted/m", max_attempts=3).call("extract_constraint", RULE)
    assert not result.ok and result.output is None and result.attempts == 3
    assert result.error is not None and "schema validation failed at rule" in result.error
    assert "\n" not in result.error
    assert "schema validation failed at rule" in handler.requests[2][-1]["content"]
    assert result.raw == '{"wrong": 1}'


def test_truncated_reply_is_an_error_not_a_crash(scripted: Any) -> None:
    scripted([('{"rule": "Never use', "length")] * 3)
    result = ModelClient("scripted/m", max_attempts=3).call("extract_constraint", RULE)
    assert not result.ok and result.attempts == 2  # a reply cut at its cap is asked again once, for half
    assert result.error == (
        "extract_constraint reply was cut at its cap of 256 tokens; asked again, "
        "it was cut at its cap of 128 tokens: not tried again"
    )
    assert "truncated" in result.errors[0]


def test_code_fenced_json_with_prose_is_accepted(scripted: Any) -> None:
    scripted(
        ['Here you go:\n```json\n{"task_type": "coding_task", "rationale": "code",}\n```\nAnything else?']
    )
    result = ModelClient("scripted/m").call("detect_task_type", DetectTaskTypeInput(goal="fix the bug"))
    assert result.ok and result.output is not None and result.output.task_type == "coding_task"


def test_provider_exception_becomes_a_failed_result(scripted: Any) -> None:
    scripted([RuntimeError("upstream exploded\nwith a traceback")] * 2)
    result = ModelClient("scripted/m", max_attempts=2, retry_wait=0).call("extract_constraint", RULE)
    assert not result.ok and result.attempts == 2 and len(result.errors) == 2
    assert result.error is not None and "upstream exploded" in result.error and "\n" not in result.error


def test_a_transient_error_is_tried_again_and_recorded(scripted: Any) -> None:
    scripted([RuntimeError("connection reset"), '{"rule": "Never use tabs."}'])
    result = ModelClient("scripted/m", retry_wait=0).call("extract_constraint", RULE)
    assert result.ok and result.attempts == 2 and "connection reset" in result.errors[0]


def test_mock_response_exception_becomes_a_failed_result() -> None:
    client = ModelClient(
        "gpt-4o-mini", litellm_kwargs={"mock_response": Exception("rate limited")}, retry_wait=0
    )
    result = client.call("extract_constraint", RULE)
    assert not result.ok and result.error is not None and "rate limited" in result.error


def test_mock_response_counts_tokens_and_cost() -> None:
    client = ModelClient("gpt-4o-mini", litellm_kwargs={"mock_response": '{"rule": "N/A"}'})
    result = client.call("extract_constraint", ExtractConstraintInput(message="hello"))
    assert result.ok and result.output is not None and not result.output.found
    assert result.cost.tokens > 0 and result.cost.usd > 0


def test_real_network_requests_are_refused() -> None:
    result = ModelClient("gpt-4o-mini").call("extract_constraint", RULE)
    assert not result.ok and result.error is not None and "blocked in tests" in result.error


def test_payload_of_the_wrong_kind_is_a_programming_error() -> None:
    with pytest.raises(TypeError):
        ModelClient("cairn/offline").call("extract_constraint", DetectTaskTypeInput(goal="x"))  # type: ignore[call-overload]


def test_offline_calls_cost_tokens_but_no_money() -> None:
    payload = CompressInput(
        goal="reservoir size",
        tool="read_file",
        params={"path": "a.md"},
        outcome="success",
        output="The reservoir holds 1,260,000 cubic metres.",
    )
    result = ModelClient("cairn/offline").call("compress", payload)
    assert result.ok and result.cost.prompt_tokens > 100 and result.cost.completion_tokens > 0
    assert result.cost.usd == 0.0


def test_context_window_and_token_counts() -> None:
    assert context_window("cairn/offline") == 32768
    assert context_window("gpt-4o-mini") == 128000
    assert context_window("nobody/unknown-model-xyz") == 8192
    assert count_tokens("cairn/offline", "hello world") == 2
    assert count_tokens("nobody/unknown-model-xyz", "hello world, again") > 0
    assert count_tokens("gpt-4o-mini", "") == 0


# --- parse_model_json ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('  \n{"a": [1, 2]}\n', {"a": [1, 2]}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('Sure, here it is: {"a": "b"} Let me know!', {"a": "b"}),
        ('Note {this} first. {"a": 1}', {"a": 1}),
        ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
        ('{"a": "keep ,} inside strings",}', {"a": "keep ,} inside strings"}),
        ('{"a": "escaped \\" quote ,]",}', {"a": 'escaped " quote ,]'}),
    ],
)
def test_parse_model_json_accepts_common_shapes(text: str, expected: Any) -> None:
    assert parse_model_json(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty reply"),
        ("   ", "empty reply"),
        ("N/A", "no valid JSON"),
        ('{"rule": "Never use', "truncated"),
        ('```json\n{"a": [1, 2\n```', "truncated"),
    ],
)
def test_parse_model_json_rejects_with_one_line(text: str, message: str) -> None:
    with pytest.raises(ModelOutputError, match=message) as info:
        parse_model_json(text)
    assert "\n" not in str(info.value)


JSON_NOISE = st.text(alphabet='{}[]",:\\ \n`abcjson0123.-+eE', max_size=80)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(), JSON_NOISE, st.builds("".join, st.lists(st.sampled_from(["{", "[", '"', "```", "\\"])))
    )
)
def test_parse_model_json_raises_only_model_output_error(text: str) -> None:
    try:
        parse_model_json(text)
    except ModelOutputError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5),
    st.sampled_from(["", "Sure! ", "Result:\n"]),
)
def test_parse_model_json_round_trips_objects(value: dict[str, Any], prose: str) -> None:
    assert parse_model_json(prose + json.dumps(value)) == value
    assert parse_model_json(f"```json\n{json.dumps(value, indent=2)}\n```") == value
