"""Each check before a run is made once (issue 34): the model's preflight, whether the task can go
on (its history, its repository) and the interrupted calls only a person can settle. `cairn run`
and `cairn resume` make them under their claim and say so (`TaskRequest.checked`); the flow's
opening (`open_task`) trusts that under the same claim only, and makes them itself for any other
run: a library caller, a worker's run, the UI's Retry. Counted by what the checks do: a probe
request reaching the model's provider, a tampered history refused, an interrupted call stopped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig
from cairn.flows.loop.claim import TaskLock, held
from cairn.flows.loop.request import Checked, TaskRequest
from cairn.flows.loop.start import checked_model, open_task
from cairn.flows.loop.uncertain import UncertainCalls
from cairn.flows.steps.executor import InProcessExecutor
from cairn.memory.log.history import HistoryTampered
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.model.probe import _ASK
from tests.unit.flows.test_history_guard import edit_line
from tests.unit.flows.test_uncertain_calls import interrupted, kept
from tests.unit.flows.test_uncertain_calls import scripted as scripted  # the fixture

GOAL = "Count once."


def _request(config: RunConfig, checked: Checked | None = None) -> TaskRequest:
    return TaskRequest.new(GOAL, config, task_id="t").model_copy(update={"checked": checked})


def _open(request: TaskRequest, claim: TaskLock) -> None:
    executor = InProcessExecutor(ModelClient(request.config.model, max_attempts=1))
    open_task(request, executor, claim, kept(request.config))


class ProbeCounter(CustomLLM):
    """A model provider that answers the preflight's probe and counts how often it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.probes = 0

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        self.probes += _ASK in str(messages)
        content = '{"ok": true, "words": ["one", "two", "three", "four", "five"]}'
        choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        usage = {"prompt_tokens": 30, "completion_tokens": 20, "total_tokens": 50}
        return ModelResponse(model=model, choices=[choice], usage=usage)


@pytest.fixture()
def model_server() -> Iterator[ProbeCounter]:
    server = ProbeCounter()
    before = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [*before, {"provider": "probed", "custom_handler": server}]
    yield server
    litellm.custom_provider_map = before


def test_the_model_is_probed_by_whoever_checks_the_run(tmp_path: Path, model_server: ProbeCounter) -> None:
    config = RunConfig(workspace=str(tmp_path), model="probed/small", model_response_format="json_object")
    with TaskLock(tmp_path, "t") as claim:
        library = checked_model(_request(config), claim)  # no command probed it: the flow does
        assert model_server.probes == 1 and library.config.model_probe is not None
        by_command = checked_model(_request(config, Checked(claim=claim.token)), claim)
        assert model_server.probes == 1 and by_command.config.model_probe is None  # trusted, not asked
        stranger = checked_model(_request(config, Checked(claim="another-claim")), claim)
        assert model_server.probes == 2 and stranger.config.model_probe is not None


def test_an_interrupted_call_stops_a_run_no_command_checked(tmp_path: Path, scripted: object) -> None:
    config = interrupted(tmp_path)
    with TaskLock(tmp_path, "t") as claim:
        with pytest.raises(UncertainCalls, match="bump"):
            _open(_request(config), claim)  # a library caller, a worker, the UI's Retry
        with pytest.raises(UncertainCalls, match="bump"):
            _open(_request(config, Checked(claim="a-stored-token")), claim)  # not this claim's
        _open(_request(config, Checked(claim=claim.token)), claim)  # the command checked: not again


def test_a_tampered_history_stops_a_run_no_command_checked(tmp_path: Path, scripted: object) -> None:
    config = interrupted(tmp_path).model_copy(update={"on_uncertain": "rerun"})
    edit_line(tmp_path / "tasks" / "t" / "history.jsonl", 1, GOAL.encode(), b"Count twice")
    with TaskLock(tmp_path, "t") as claim:
        with pytest.raises(HistoryTampered, match="line 1"):
            _open(_request(config), claim)
        _open(_request(config, Checked(claim=claim.token)), claim)  # checked under this claim


def test_a_command_hands_its_claim_to_the_flow_by_its_token(tmp_path: Path) -> None:
    with TaskLock(tmp_path, "t", flow_run_id="") as claim:
        assert held(tmp_path, "t", claim.token) is claim
        assert held(tmp_path, "t", "another-token") is None
        claim.runs("run-1")  # the flow names its run in the command's claim: no second claim
        assert (tmp_path / "locks" / "t.lock").read_text(encoding="utf-8").count("run-1") == 1
    assert held(tmp_path, "t", claim.token) is None  # let go


def test_a_stored_run_carries_no_checks() -> None:
    request = _request(RunConfig(workspace="ws"), Checked(claim="token"))
    assert "checked" not in request.flow_parameters(stored=True)  # a Retry replays these: it checks
    assert request.flow_parameters()["checked"] == Checked(claim="token")  # in process, to the flow
    again = TaskRequest.from_parameters(request.flow_parameters(stored=True) | {"checked": {"claim": "x"}})
    assert again.checked == Checked(claim="x")
