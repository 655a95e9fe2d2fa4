"""Cassettes: a recorded run replays exactly; a changed prompt is a clear error."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm import Usage
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.tasks.messages.schemas import (
    CompressInput,
    DetectTaskTypeInput,
    ExtractConstraintInput,
    PlanInput,
    SynthesizeInput,
)
from cairn.tasks.model.capabilities import context_window
from cairn.tasks.model.cassette import CassetteError, CassettePlayer, forget_cassettes, load_cassette
from cairn.tasks.model.llm import LLMResult, ModelClient
from cairn.tasks.model.network_guard import block_network_models

GOAL = "How big is the Alder Creek reservoir?"


@pytest.fixture(autouse=True)
def no_network_models() -> Iterator[None]:
    undo = block_network_models()
    forget_cassettes()
    yield
    forget_cassettes()
    undo()


def run(client: ModelClient) -> list[LLMResult[Any]]:
    """A small run touching several call kinds, interleaved."""
    return [
        client.call("detect_task_type", DetectTaskTypeInput(goal=GOAL)),
        client.call("extract_constraint", ExtractConstraintInput(message="Never guess numbers.")),
        client.call(
            "compress",
            CompressInput(
                goal=GOAL,
                tool="read_file",
                params={"path": "r.md"},
                outcome="success",
                output="The reservoir holds 1.26 million m3.",
            ),
        ),
        client.call(
            "compress",
            CompressInput(
                goal=GOAL,
                tool="read_file",
                params={"path": "h.md"},
                outcome="success",
                output="The town was founded in 1871.",
            ),
        ),
        client.call(
            "synthesize", SynthesizeInput(goal=GOAL, iteration=1, calls=["read_file(r.md) -> success"])
        ),
    ]


def test_record_then_replay_is_identical(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    recorded = run(ModelClient("cairn/offline", record=path))
    entries = load_cassette(path)
    assert [e.kind for e in entries] == [
        "detect_task_type",
        "extract_constraint",
        "compress",
        "compress",
        "synthesize",
    ]
    assert [e.occurrence for e in entries] == [0, 0, 0, 1, 0]
    assert all(e.model == "cairn/offline" and e.reply and e.reply.completion_tokens > 0 for e in entries)
    replayed = run(ModelClient(f"replay:{path}"))
    for before, after in zip(recorded, replayed, strict=True):
        assert after.ok and after.output == before.output and after.raw == before.raw
        assert after.cost.tokens == before.cost.tokens


def test_changed_prompt_is_an_error_naming_the_call(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    client = ModelClient("cairn/offline", record=path)
    client.call("detect_task_type", DetectTaskTypeInput(goal=GOAL))
    client.call("compress", CompressInput(goal=GOAL, tool="t", params={}, outcome="success", output="a"))
    replay = ModelClient(f"replay:{path}")
    replay.call("detect_task_type", DetectTaskTypeInput(goal=GOAL))
    changed = CompressInput(goal=GOAL, tool="t", params={}, outcome="success", output="b")
    with pytest.raises(CassetteError, match=r"mismatch at call #1 \(compress #0\)"):
        replay.call("compress", changed)
    loose = ModelClient(f"replay:{path}?match=kind")
    assert loose.call("compress", changed).ok  # kind + order only: the recorded reply is played


def test_exhausted_cassette_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    ModelClient("cairn/offline", record=path).call("detect_task_type", DetectTaskTypeInput(goal=GOAL))
    replay = ModelClient(f"replay:{path}", replay_match="kind")
    replay.call("detect_task_type", DetectTaskTypeInput(goal="anything"))
    with pytest.raises(CassetteError, match="exhausted"):
        replay.call("detect_task_type", DetectTaskTypeInput(goal="again"))
    with pytest.raises(CassetteError, match="exhausted"):
        replay.call("plan", _plan())


def _plan() -> PlanInput:
    return PlanInput(goal=GOAL, task_type="simple_question", iteration=1, tools=[])


class Flaky(CustomLLM):
    """Fails at the provider once, then answers badly once, then well."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: list[str | Exception] = [RuntimeError("503 upstream"), "oops", '{"rule": "N/A"}']

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return ModelResponse(
            model=model,
            usage=Usage(prompt_tokens=7, completion_tokens=3, total_tokens=10),
            choices=[
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}
            ],
        )


def test_failures_and_retries_replay_the_same_way(tmp_path: Path) -> None:
    saved = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [*saved, {"provider": "flaky", "custom_handler": Flaky()}]
    try:
        path = tmp_path / "run.jsonl"
        client = ModelClient("flaky/m", record=path, retry_wait=0)
        payload = ExtractConstraintInput(message="hello")
        first = client.call("extract_constraint", payload)
        failing = ModelClient("flaky/m", record=path, max_attempts=1).call("extract_constraint", payload)
    finally:
        litellm.custom_provider_map = saved
    # A transient provider error is tried again, then an invalid reply: each attempt is recorded.
    assert first.ok and first.attempts == 3 and first.cost.tokens == 20
    assert "503 upstream" in first.errors[0] and "JSON" in first.errors[1]
    assert not failing.ok and failing.error is not None  # nothing left to answer with
    assert context_window(f"replay:{path}") == 8192  # the recorded model's window (unknown model)
    replay = ModelClient(f"replay:{path}", retry_wait=0)
    again = replay.call("extract_constraint", payload)
    assert (again.ok, again.attempts, again.raw, again.cost.tokens, again.errors) == (
        True,
        3,
        first.raw,
        20,
        first.errors,
    )
    assert not ModelClient(f"replay:{path}", max_attempts=1).call("extract_constraint", payload).ok


def test_missing_cassette_and_player_model(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="not found"):
        ModelClient(f"replay:{tmp_path / 'none.jsonl'}")
    (tmp_path / "empty.jsonl").write_text("")
    assert CassettePlayer(tmp_path / "empty.jsonl").model is None
    (tmp_path / "bad.jsonl").write_text("{not json}\n")
    with pytest.raises(CassetteError, match=r"bad\.jsonl:1"):
        load_cassette(tmp_path / "bad.jsonl")


def test_clients_share_a_cassette_and_replay_tolerates_reordering(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    first, second = ModelClient("cairn/offline", record=path), ModelClient("cairn/offline", record=path)
    calls = [
        CompressInput(
            goal=GOAL,
            tool="read_file",
            params={"path": f"{n}.md"},
            outcome="success",
            output=f"The reservoir holds {n} million m3.",
        )
        for n in range(3)
    ]
    recorded = [
        first.call("compress", calls[0]),
        second.call("compress", calls[1]),
        first.call("compress", calls[2]),
    ]
    assert [(e.position, e.occurrence) for e in load_cassette(path)] == [(0, 0), (1, 1), (2, 2)]
    forget_cassettes()
    ModelClient("cairn/offline", record=path).call("detect_task_type", DetectTaskTypeInput(goal=GOAL))
    assert [e.position for e in load_cassette(path)] == [0, 1, 2, 3]  # continued, not truncated
    replay = ModelClient(f"replay:{path}")
    for index in (2, 0, 1):  # parallel calls may finish in any order
        assert replay.call("compress", calls[index]).raw == recorded[index].raw
