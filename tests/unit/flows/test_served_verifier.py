"""A served model proposes, the verifier decides: the model's answer is judged by the model itself
(a `judge` call per candidate, its yes read as a probability), recorded in the task's history, and
the verifier of the served kind weighs that yes with what the lines say. Whatever it cannot prove
is still given, marked unverified; the task does not ask the same model again about the same lines.
In process, with a model that is a function of its request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import AskInput, DeliverInput, DeliverOutput, JudgeInput
from cairn.tasks.offline import respond
from cairn.tasks.verify.model import Logistic, Thresholds, Verifier, load_verifier, use_verifier
from tests.unit.scripted import provided, run_whole_task
from tests.unit.tasks.team_docs import FILES


class Proposer(CustomLLM):
    """Answers `deliver` with a fixed answer, the question asked plainly (`ask`) with another (the
    same unless given), `judge` yes when the value is the one it believes, with the odds a served
    model gives; everything else as `cairn/offline`."""

    def __init__(self, answer: str, believed: str, plainly: str | None = None) -> None:
        super().__init__()
        self.answer, self.believed, self.plainly = answer, believed, plainly or answer
        self.judged: list[JudgeInput] = []
        self.asked: list[AskInput] = []

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        _, payload = parse_request(messages)
        logprobs = None
        if isinstance(payload, DeliverInput):
            text = DeliverOutput(answer=self.answer).model_dump_json()
        elif isinstance(payload, AskInput):
            self.asked.append(payload)
            text = self.plainly
        elif isinstance(payload, JudgeInput):
            self.judged.append(payload)
            yes = payload.answer == self.believed
            text = "Yes" if yes else "No"
            top = [
                {"token": "Yes", "logprob": -0.05 if yes else -3.0},
                {"token": "No", "logprob": -3.0 if yes else -0.05},
            ]
            logprobs = {"content": [{"token": text, "logprob": -0.05, "top_logprobs": top}]}
        else:
            text = respond(messages)
        choice: dict[str, Any] = {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": text},
        }
        if logprobs is not None:
            choice["logprobs"] = logprobs
        return ModelResponse(
            model=model, choices=[choice], usage={"prompt_tokens": 60, "completion_tokens": 1}
        )


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    """The shipped reader, an offline verifier that proves nothing, and a served one that believes
    the model's yes: what the decision does with the yes is under test, not the fitted numbers."""
    shipped = load_verifier()
    never = Logistic(names=[], mean=[], scale=[], weights=[], bias=-10.0)
    served = Logistic(names=["judge_logit"], mean=[0.0], scale=[1.0], weights=[1.0], bias=0.0)
    verifier = Verifier(
        ranker=shipped.ranker,
        offline=never,
        served=served,
        thresholds={
            "offline": Thresholds(complete=0.99, absent=0.0),
            "served": Thresholds(complete=0.9, absent=0.01),
        },
    )
    path = tmp_path / "weights.json"
    path.write_text(verifier.model_dump_json(), encoding="utf-8")
    yield path
    use_verifier(None)


def run(tmp_path: Path, docs: Path, weights: Path, model: Proposer, goal: str) -> tuple[Any, str, Any]:
    config = RunConfig(
        workspace=str(tmp_path / "ws"), model="fn/model", verifier=str(weights), max_iterations=4
    )
    with provided(model):
        result = run_whole_task(config, "t", goal, [docs])
    answer = Path(str(result.report_path)).read_text(encoding="utf-8") if result.report_path else ""
    return result, answer, Workspace(tmp_path / "ws").task("t").state()


def test_the_models_answer_it_judges_yes_is_proven_and_the_judgement_is_in_the_history(
    tmp_path: Path, docs: Path, weights: Path
) -> None:
    model = Proposer("Priya Nandakumar leads Team Falcon.", believed="Priya Nandakumar")
    result, answer, state = run(tmp_path, docs, weights, model, "Who leads Team Falcon?")
    assert result.complete and answer.startswith("Who leads Team Falcon? Priya Nandakumar.")
    assert any(j.value == "Priya Nandakumar" and j.p_yes > 0.9 for j in state.judged)
    judge_calls = [c for c in state.model_calls if c.kind == "judge"]
    assert judge_calls and all(c.ok for c in judge_calls)
    assert {j.question for j in model.judged} == {"Who leads Team Falcon?"}


def test_an_answer_the_model_does_not_stand_by_is_given_unverified_and_not_asked_again(
    tmp_path: Path, docs: Path, weights: Path
) -> None:
    model = Proposer("Tomasz Wierzbicki leads Team Falcon.", believed="nobody")
    result, answer, state = run(tmp_path, docs, weights, model, "Who leads Team Falcon?")
    assert not result.complete and result.stop_reason.startswith("unverified")
    assert "\nWho leads Team Falcon? Unverified: Tomasz Wierzbicki.\n" in answer  # under the banner
    assert sum(c.kind == "deliver" for c in state.model_calls) == 1  # one answer, judged once


def test_a_question_cairn_cannot_prove_is_asked_plainly_and_the_models_own_answer_is_given(
    tmp_path: Path, docs: Path, weights: Path
) -> None:
    """Cairn is never less right than its model: the deliver prompt drew another answer from the
    same model than the question asked plainly (a SQuAD question the local 1.5B answered `America`
    plainly and `France` through Cairn); the plain answer is what Cairn gives, unverified."""
    model = Proposer("Tomasz Wierzbicki leads it.", believed="nobody", plainly="Priya Nandakumar")
    result, answer, state = run(tmp_path, docs, weights, model, "Who leads Team Falcon?")
    assert not result.complete and "\nWho leads Team Falcon? Unverified: Priya Nandakumar.\n" in answer
    assert "Tomasz" not in answer
    asked = [c for c in state.model_calls if c.kind == "ask"]
    assert len(asked) == 1 and asked[0].ok
    assert model.asked[0].question == "Who leads Team Falcon?"
    assert any(f.source == "source:docs/teams.md" and "Priya" in f.text for f in model.asked[0].files)


def test_the_plain_answer_the_model_stands_by_is_proven(tmp_path: Path, docs: Path, weights: Path) -> None:
    model = Proposer("Tomasz Wierzbicki leads it.", believed="Priya Nandakumar", plainly="Priya Nandakumar")
    result, answer, _ = run(tmp_path, docs, weights, model, "Who leads Team Falcon?")
    assert result.complete and answer.startswith("Who leads Team Falcon? Priya Nandakumar.")


def test_an_answer_cairn_proves_is_not_asked_again_plainly(tmp_path: Path, docs: Path, weights: Path) -> None:
    model = Proposer("Priya Nandakumar leads Team Falcon.", believed="Priya Nandakumar", plainly="Tomasz")
    result, _, state = run(tmp_path, docs, weights, model, "Who leads Team Falcon?")
    assert result.complete and not model.asked and not any(c.kind == "ask" for c in state.model_calls)
