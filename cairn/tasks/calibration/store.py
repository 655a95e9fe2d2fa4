"""A model's calibration as stored under `CAIRN_HOME/calibration/<slug of the model id>.json`:
where its judge's P(yes) proves a line (`proven`) or says the files do not (`absent`), and the
figures those thresholds rest on. `proven` is None where no threshold reached the bound: that
model's word alone then proves nothing.

>>> calibration_path("openai/qwen2.5-coder-1.5b-instruct", Path("/h")).as_posix()
'/h/calibration/openai-qwen2.5-coder-1.5b-instruct.json'
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from cairn.core import CairnError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class CalibrationUnreadable(CairnError):
    """A stored calibration file that is not one (hand-edited, cut short)."""


class Calibration(BaseModel):
    """How far one model's judgement can be trusted, measured on labelled items."""

    model_config = ConfigDict(frozen=True)

    model: str
    proven: float | None  # P(yes) >= proven: proven on the judge's word; None: never
    absent: float | None  # P(yes) < absent: the line does not state it; None: never
    target: float  # the lower bound on precision `proven` had to reach
    held_out_precision: float | None  # on folds the threshold was not fitted on, pooled
    held_out_lower: float | None  # its Wilson lower bound (95%)
    held_out_recall: float
    held_out_proven: int  # items the held-out thresholds proved
    fold_thresholds: list[float | None]
    precision: float | None  # at `proven`, on every item (what it was fitted on)
    lower: float | None
    recall: float
    absent_positives: float | None  # share of the positives under `absent`
    absent_negatives: float | None  # share of the negatives under `absent`
    n: int  # items judged
    positives: int
    failed: int  # items whose judge call failed (left out of n)
    graded: bool  # P(yes) came as odds (logprobs), not only the reply's yes or no
    labelled_set: str  # `shipped` or the file, with its content's hash
    measured: str  # ISO date


def slug(model: str) -> str:
    """`model` as a file name: runs of other characters than letters, digits, `.`, `_`, `-` as `-`."""
    return _UNSAFE.sub("-", model).strip("-.") or "model"


def calibration_path(model: str, home: Path) -> Path:
    return home / "calibration" / f"{slug(model)}.json"


def save_calibration(calibration: Calibration, home: Path) -> Path:
    path = calibration_path(calibration.model, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(calibration.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return path


def load_calibration(model: str, home: Path) -> Calibration | None:
    """`model`'s stored calibration, or None where it was never calibrated (or its file holds
    another model whose id has the same slug); raises `CalibrationUnreadable` for a broken file."""
    path = calibration_path(model, home)
    if not path.is_file():
        return None
    try:
        found = Calibration.model_validate_json(path.read_bytes())
    except (ValidationError, ValueError):
        raise CalibrationUnreadable(
            f"{path} is not a calibration: run `cairn calibrate --model {model}`"
        ) from None
    return found if found.model == model else None
