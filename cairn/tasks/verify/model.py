"""The fitted weights: a logistic model for the reader (which value of a sentence answers) and one
for the verifier (is this value, with these quotes, the answer), with the two thresholds it
decides by. They ship as data (`data/weights.json`), written by
`bench/verifier_fit.py`, which says what they were fitted on and what they measured.

>>> model = Logistic(names=["cov"], mean=[0.5], scale=[0.25], weights=[2.0], bias=-1.0)
>>> round(model.probability({"cov": 1.0}), 3), round(model.probability({}), 3)
(0.953, 0.007)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from pydantic import Field

from cairn.core import Frozen

DATA = "weights.json"
SHIPPED = Path(__file__).resolve().parent / "data"  # the weights and tables Cairn ships


class Logistic(Frozen):
    """P(yes) = sigmoid(bias + sum of weight * (feature - mean) / scale); a feature not given is 0."""

    names: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float

    def logit(self, features: Mapping[str, float]) -> float:
        total = self.bias
        for name, mean, scale, weight in zip(self.names, self.mean, self.scale, self.weights, strict=True):
            total += weight * (features.get(name, 0.0) - mean) / scale
        return total

    def probability(self, features: Mapping[str, float]) -> float:
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, self.logit(features)))))


class Thresholds(Frozen):
    """`complete`: at or above it a value is proven (set where precision held >= 0.95 on folds the
    fit never saw); `absent`: below it for every candidate, after every source was read, the files
    do not say (set so that at most 5% of answerable questions fall under it)."""

    complete: float
    absent: float


class Verifier(Frozen):
    """Everything the reader and the verifier decide by, as fitted."""

    fitted: str = ""  # what on, in words
    ranker: Logistic
    offline: Logistic
    thresholds: Thresholds
    measured: dict[str, float] = Field(default_factory=dict)  # the fit's figures on held-out folds


_chosen: list[Path | None] = [None]  # the weights this process judges by (`use_verifier`)


def use_verifier(path: str | Path | None) -> None:
    """Judge by the weights at `path` from now on in this process (a run's `verifier` setting,
    set once where the run starts); None: the weights Cairn ships."""
    _chosen[0] = Path(path) if path is not None else None


def load_verifier(path: Path | None = None) -> Verifier:
    """The weights at `path`, else the ones `use_verifier` chose, else the ones Cairn ships."""
    return _read(path if path is not None else _chosen[0])


@cache
def _read(path: Path | None) -> Verifier:
    if path is not None:
        return Verifier.model_validate_json(path.read_text(encoding="utf-8"))
    return Verifier.model_validate_json((SHIPPED / DATA).read_text(encoding="utf-8"))


__all__ = ["Logistic", "Thresholds", "Verifier", "load_verifier", "use_verifier"]
