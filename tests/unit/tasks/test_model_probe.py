"""The model preflight learns what a server takes (issue 25), over HTTP to a model server on
loopback (`tests/model_server.py`): a strict JSON schema where the server takes one, JSON mode
where it refuses it, the speed it answered at (which scales the timeouts), and a server that does
not answer refused at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import ModelProbe, ModelProbed, RunConfig, UsageError
from cairn.flows.loop.preflight import learnt, record_probe
from cairn.flows.settings import Settings
from cairn.memory.log.workspace import Workspace
from cairn.tasks.calls import model_client
from cairn.tasks.messages.schemas import ExtractConstraintInput
from cairn.tasks.model.failures import ModelUnavailable
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.model.probe import candidates, probe
from cairn.tasks.model.reply_caps import PROMPT_SECONDS, REPLY_TOKENS, reply_timeout
from tests.model_server import ModelServer
from tests.unit.scripted import create_task


def _client(server: ModelServer, **options: object) -> ModelClient:
    kwargs = {"api_base": server.url, "api_key": "local"}
    return ModelClient("openai/small", litellm_kwargs=kwargs, **options)  # type: ignore[arg-type]


def _formats(server: ModelServer) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in server.requests]


def test_a_server_that_takes_a_strict_schema_gets_one() -> None:
    """llama.cpp's server takes one (as a grammar); litellm cannot know that of `openai/small`."""
    with ModelServer(delay=0.25) as server:
        found = probe(_client(server))
    assert found.response_format == "json_schema" and found.reason == "json_schema: the server took it"
    assert _formats(server) == ["json_schema"]  # one request
    assert server.requests[0]["response_format"]["json_schema"]["strict"] is True
    assert found.tokens_per_s == pytest.approx(20 / found.seconds, rel=0.05)  # the reply's 20 tokens
    assert found.seconds >= 0.25


def test_a_server_that_refuses_the_schema_falls_back_to_json_mode_and_says_why() -> None:
    with ModelServer(refuse_schema=True) as server:
        found = probe(_client(server))
        client = model_client_for(server, found)
        result = client.call("extract_constraint", ExtractConstraintInput(message="Never use tabs."))
    assert found.response_format == "json_object"
    assert found.reason.startswith("json_object: the server took it after json_schema refused")
    assert "must be json_object or text" in found.reason
    assert _formats(server) == ["json_schema", "json_object", "json_object"]  # tried once, then the call
    assert result.ok


def model_client_for(server: ModelServer, found: ModelProbe) -> ModelClient:
    """The run's client as `model_client` builds it from a probed configuration."""
    config = RunConfig(workspace="ws", model="openai/small", model_probe=found)
    built = model_client(config)
    built.litellm_kwargs = {"api_base": server.url, "api_key": "local"}
    return built


def test_a_format_set_by_hand_is_the_only_one_tried() -> None:
    with ModelServer(refuse_schema=True) as server, pytest.raises(ModelUnavailable) as refused:
        probe(_client(server, response_format="json_schema"))
    assert "took no reply format: json_schema refused" in str(refused.value)
    assert _formats(server) == ["json_schema"]


def test_a_stalled_server_is_refused_at_once_naming_it() -> None:
    with ModelServer(stall_seconds=5) as server, pytest.raises(ModelUnavailable) as refused:
        server.mode = "stall"
        probe(_client(server, timeout=0.5))
    assert f"model openai/small at {server.url} does not answer" in str(refused.value)
    assert "timeout" in str(refused.value).lower() and len(server.requests) == 1  # no other format tried


def test_candidates_follow_what_litellm_knows() -> None:
    assert candidates("openai/some-local-model", "auto") == ["json_schema", "json_object", "none"]
    assert candidates("gpt-4o", "auto")[0] == "json_schema"  # litellm knows it takes a schema
    assert candidates("openai/x", "json_object") == ["json_object"]


def test_timeouts_scale_with_the_reply_cap_and_the_measured_speed() -> None:
    slow = ModelProbe(model="openai/small", response_format="json_schema", reason="r", tokens_per_s=6.0)
    client = model_client(RunConfig(workspace="ws", model="openai/small", model_probe=slow))
    plan = client.timeout_for(REPLY_TOKENS["plan"])
    synthesize = client.timeout_for(REPLY_TOKENS["synthesize"])
    assert plan == PROMPT_SECONDS + 1.5 * 1536 / 6 and synthesize == PROMPT_SECONDS + 1.5 * 512 / 6
    assert plan > 1536 / 6 + 120 > synthesize > 120  # the plan's cap fits at 6 tokens/s: 120 s never did
    assert client.response_format == "json_schema"
    unmeasured = ModelClient("openai/small")  # a CPU model's speed: a capped plan reply can finish
    assert unmeasured.timeout_for(4096) == reply_timeout(4096, None) > 4096 / 8
    config = RunConfig(workspace="ws", model="openai/small", model_timeout=30, model_probe=slow)
    by_hand = model_client(config)
    assert by_hand.timeout_for(4096) == 30


def test_the_probe_is_recorded_once_in_the_history(tmp_path: Path) -> None:
    with ModelServer() as server:
        config = RunConfig(workspace=str(tmp_path), model="openai/small")
        base = config.model_copy(update={"model_probe": None})
        found = probe(_client(server))
    probed = base.model_copy(update={"model_probe": found})
    assert learnt(probed) is probed  # known: not asked again (a worker's retry reuses the run's)
    session = create_task(RunConfig(workspace=str(tmp_path)), "t", "Summarise the notes.")
    record_probe(session, probed.model_copy(update={"workspace": str(tmp_path)}))
    record_probe(session, probed.model_copy(update={"workspace": str(tmp_path)}))
    events = [e for e in Workspace(tmp_path).task("t").read().events if isinstance(e, ModelProbed)]
    assert [e.probe for e in events] == [found]
    assert Workspace(tmp_path).task("t").state().model_probe == found


def test_a_servers_own_request_fields_go_in_every_request_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama.cpp answers a repeated prompt from its cache, by other arithmetic than a fresh one:
    `cache_prompt=false` asks it not to, as `CAIRN_MODEL_REQUEST_FIELDS` sets it."""
    monkeypatch.setenv("CAIRN_MODEL_REQUEST_FIELDS", "cache_prompt=false, slot_id=0")
    config = Settings(workspace=tmp_path).run_config(model="openai/small")
    assert config.model_request_fields == ("cache_prompt=false", "slot_id=0")
    fields = model_client(config).litellm_kwargs
    assert fields == {"extra_body": {"cache_prompt": False, "slot_id": 0}}
    with ModelServer() as server:
        served = {**fields, "api_base": server.url, "api_key": "local"}
        asked = ExtractConstraintInput(message="Never use tabs.")
        result = ModelClient("openai/small", litellm_kwargs=served).call("extract_constraint", asked)
    assert result.ok
    assert [(r.get("cache_prompt"), r.get("slot_id")) for r in server.requests] == [(False, 0)]
    monkeypatch.setenv("CAIRN_MODEL_REQUEST_FIELDS", "cache_prompt")
    with pytest.raises(UsageError, match="CAIRN_MODEL_REQUEST_FIELDS"):
        Settings(workspace=tmp_path)
