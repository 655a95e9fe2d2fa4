"""A served model answers, and its own yes/no decides only as far as it was measured to be
trusted: the question is asked once, as a user would ask it (the files, then the question); the
model's yes on its value and line (a `judge` call, its odds read as a probability) proves the
part only at the threshold `cairn calibrate` stored for that model. Whatever is not proven is
still given as the model wrote it, marked unverified; the task does not ask the same model again
about the same lines. In process, with a model that is a function of its request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import RunConfig
from cairn.flows.steps.session import judge_line
from cairn.memory.log.workspace import Workspace
from cairn.tasks.calibration import Calibration, save_calibration
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import AskInput, DeliverInput, DeliverOutput, JudgeInput
from cairn.tasks.offline import respond
from tests.unit.scripted import provided, run_whole_task

MODEL = "fn/model"
GOAL = "Who leads Team Falcon?"
NOTES = "Since the spring, Team Falcon has been led by Priya Nandakumar.\n"


class Proposer(CustomLLM):
    """Answers the question asked plainly (`ask`) and `deliver` with a fixed answer, `judge` yes
    when the value is the one it believes, with the odds a served model gives; everything else as
    `cairn/offline`."""

    def __init__(self, answer: str, believed: str) -> None:
        super().__init__()
        self.answer, self.believed = answer, believed
        self.judged: list[JudgeInput] = []
        self.asked: list[AskInput] = []

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        _, payload = parse_request(messages)
        logprobs = None
        if isinstance(payload, DeliverInput):
            text = DeliverOutput(answer=self.answer).model_dump_json()
        elif isinstance(payload, AskInput):
            self.asked.append(payload)
            text = self.answer
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
    """Prose with no heading, table or label: nothing Cairn's structural judge proves, so what is
    under test is the model's word."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(NOTES, encoding="utf-8")
    return folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`CAIRN_HOME`, where `cairn calibrate` stores what it measured of each model."""
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def calibrated(home: Path, proven: float | None) -> None:
    fields: dict[str, object] = {"model": MODEL, "proven": proven, "absent": 0.2, "target": 0.95}
    fields |= {"held_out_precision": 0.97, "held_out_lower": 0.95, "held_out_recall": 0.5}
    fields |= {"held_out_proven": 80, "fold_thresholds": [proven], "precision": 0.97, "lower": 0.95}
    fields |= {"recall": 0.5, "absent_positives": 0.01, "absent_negatives": 0.3, "n": 240, "positives": 120}
    fields |= {"failed": 0, "graded": True, "labelled_set": "shipped", "measured": "2026-12-01"}
    save_calibration(Calibration.model_validate(fields), home)


def run(tmp_path: Path, docs: Path, model: Proposer) -> tuple[Any, str, Any]:
    config = RunConfig(workspace=str(tmp_path / "ws"), model=MODEL, max_iterations=4)
    with provided(model):
        result = run_whole_task(config, "t", GOAL, [docs])
    answer = Path(str(result.report_path)).read_text(encoding="utf-8") if result.report_path else ""
    return result, answer, Workspace(tmp_path / "ws").task("t").state()


def test_the_models_yes_proves_at_its_calibrated_threshold_and_is_in_the_history(
    tmp_path: Path, docs: Path, home: Path
) -> None:
    calibrated(home, proven=0.9)
    model = Proposer("Priya Nandakumar leads Team Falcon.", believed="Priya Nandakumar")
    result, answer, state = run(tmp_path, docs, model)
    assert result.complete and answer.startswith("Priya Nandakumar leads Team Falcon.")  # as written
    assert any(j.value == "Priya Nandakumar" and j.p_yes > 0.9 for j in state.judged)
    assert [p.judge for p in state.verdict.parts] == [f"{MODEL} (calibrated)"]
    judge_calls = [c for c in state.model_calls if c.kind == "judge"]
    assert judge_calls and all(c.ok for c in judge_calls)
    assert {j.question for j in model.judged} == {GOAL}


def test_the_question_is_asked_once_as_a_user_would_ask_it(tmp_path: Path, docs: Path, home: Path) -> None:
    calibrated(home, proven=0.9)
    model = Proposer("Tomasz Wierzbicki leads it.", believed="nobody")
    result, answer, state = run(tmp_path, docs, model)
    assert not result.complete and result.stop_reason.startswith("unverified")
    assert "\nTomasz Wierzbicki leads it.\n" in answer  # under the banner, the model's words unchanged
    assert [c.kind for c in state.model_calls].count("ask") == 1
    assert not any(c.kind == "deliver" for c in state.model_calls)
    assert model.asked[0].question == GOAL
    assert any(f.source == "source:docs/notes.md" and "Priya" in f.text for f in model.asked[0].files)


def test_an_uncalibrated_models_yes_proves_nothing_and_is_not_asked(
    tmp_path: Path, docs: Path, home: Path
) -> None:
    model = Proposer("Priya Nandakumar leads Team Falcon.", believed="Priya Nandakumar")
    result, answer, state = run(tmp_path, docs, model)
    assert not result.complete and "\nPriya Nandakumar leads Team Falcon.\n" in answer
    assert not model.judged and not any(c.kind == "judge" for c in state.model_calls)
    assert "uncalibrated: `cairn calibrate --model fn/model`" in judge_line(MODEL)


def test_a_model_whose_calibration_found_no_threshold_is_not_asked_to_judge(
    tmp_path: Path, docs: Path, home: Path
) -> None:
    calibrated(home, proven=None)
    model = Proposer("Priya Nandakumar leads Team Falcon.", believed="Priya Nandakumar")
    result, _, _ = run(tmp_path, docs, model)
    assert not result.complete and not model.judged
    assert "no threshold reached" in judge_line(MODEL)
