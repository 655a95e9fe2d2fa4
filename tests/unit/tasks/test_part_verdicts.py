"""The verifier seam's guard (`cairn.tasks.verifier.verified`): whatever a verifier says, a part is
proven only with its value on a line read, and absent only once every source was read."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import PartCheck, QuotedLine
from cairn.flows.steps.session import judge_line
from cairn.tasks.calibration import Calibration, save_calibration
from cairn.tasks.grounding import Read
from cairn.tasks.verifier import CairnJudge, PartToVerify, PartVerdict, VerifyRequest
from cairn.tasks.verifier.exact import holds, lines_holding
from cairn.tasks.verifier.seam import Status, VerifierError, verified

QUOTE = QuotedLine(source="source:d/teams.md", line=4, text="Team Falcon owns billing.")


def _request(
    *, quotes: list[QuotedLine], read_all: bool = False, cairn: PartCheck | None = None
) -> VerifyRequest:
    own = cairn or PartCheck(part="Which team owns billing?", answered=False, value="Team Falcon", why="0.5")
    part = PartToVerify(part=own.part, value="Team Falcon", quotes=quotes, cairn=own)
    return VerifyRequest(goal=own.part, answer="Team Falcon.", parts=[part], every_source_read=read_all)


class Says:
    def __init__(self, status: Status, n: int = 1) -> None:
        self.status, self.n = status, n

    def verify(self, request: VerifyRequest) -> list[PartVerdict]:
        return [PartVerdict(status=self.status, score=0.9) for _ in range(self.n)]


def test_proven_needs_the_value_on_a_line_read() -> None:
    assert verified(_request(quotes=[QUOTE]), Says("proven"))[0].status == "proven"
    found = verified(_request(quotes=[]), Says("proven"))[0]
    assert (found.status, found.value, found.why) == (
        "unverified",
        "Team Falcon",
        "no line read holds Team Falcon",
    )


def test_absent_needs_every_source_read() -> None:
    assert verified(_request(quotes=[], read_all=True), Says("absent"))[0].status == "absent"
    early = verified(_request(quotes=[]), Says("absent"))[0]
    assert early.status == "unverified"
    assert "not every source was read" in early.why


def test_the_default_is_cairns_own_judge() -> None:
    own = PartCheck(
        part="Which team owns billing?",
        answered=True,
        value="Team Falcon",
        quotes=[QUOTE],
        judge="cairn (offline)",
    )
    found = verified(_request(quotes=[QUOTE], cairn=own), CairnJudge())[0]
    assert (found.status, found.judge) == ("proven", "cairn (offline)")


def test_a_verifier_must_answer_every_part() -> None:
    with pytest.raises(VerifierError, match="gave 2 verdicts for 1 parts"):
        verified(_request(quotes=[QUOTE]), Says("proven", n=2))


def test_the_exact_check_normalises_case_unicode_and_numbers_only() -> None:
    reads = [Read("source:d/w.md", "Its centre is Śródmieście.\n| billing | 1,260,000 |", about="Warsaw")]
    assert [q.line for q in lines_holding("śródmieście", reads)] == [1]
    assert lines_holding("ródmieście", reads) == []  # a cut word is no word of the line
    assert [q.line for q in lines_holding("1260000", reads)] == [2]
    assert holds("The budget is 180 ms.", "180 ms") and not holds("The budget is 1800 ms.", "180 ms")
    assert holds("Ｔｅａｍ　Ｆａｌｃｏｎ", "team falcon")  # full-width forms fold (NFKC)


def _calibration(model: str, proven: float | None) -> Calibration:
    fields: dict[str, object] = {"model": model, "proven": proven, "absent": 0.4, "target": 0.95}
    fields |= {"held_out_precision": None, "held_out_lower": None, "held_out_recall": 0.0}
    fields |= {"held_out_proven": 0, "fold_thresholds": [], "precision": None, "lower": None}
    fields |= {"recall": 0.0, "absent_positives": None, "absent_negatives": None, "n": 10}
    fields |= {
        "positives": 5,
        "failed": 0,
        "graded": True,
        "labelled_set": "shipped",
        "measured": "2026-12-01",
    }
    return Calibration.model_validate(fields)


def test_a_served_models_word_proves_only_at_its_calibrated_threshold() -> None:
    said = _request(quotes=[QUOTE])
    said = said.model_copy(update={"parts": [said.parts[0].model_copy(update={"p_yes": 0.93})]})
    uncalibrated = verified(said, CairnJudge(model="openai/m"))[0]
    assert (
        uncalibrated.status == "unverified"
        and "uncalibrated: `cairn calibrate --model openai/m`" in uncalibrated.why
    )
    assert verified(said, CairnJudge("openai/m", calibrated=True, proven=None))[0].status == "unverified"
    strict = verified(said, CairnJudge("openai/m", calibrated=True, proven=0.95))[0]
    assert strict.status == "unverified" and "proves at 0.950" in strict.why
    trusted = verified(said, CairnJudge("openai/m", calibrated=True, proven=0.9))[0]
    assert (trusted.status, trusted.score, trusted.judge) == ("proven", 0.93, "openai/m (calibrated)")


def test_show_and_the_result_page_say_how_far_the_models_word_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path))
    assert "own judge" in judge_line("cairn/offline")
    assert "uncalibrated: `cairn calibrate --model openai/m`" in judge_line("openai/m")
    save_calibration(_calibration("openai/m", 0.9), tmp_path)
    assert judge_line("openai/m").endswith("its word proves at P(yes) >= 0.900")
