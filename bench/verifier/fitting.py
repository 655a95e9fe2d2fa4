"""Logistic regression for the verifier, and the thresholds it decides by.

The fit is Newton's method on the L2-penalised log-loss (IRLS) over standardised inputs, with a
weight per example (so each dataset counts as much as the others, however many questions it has);
what it returns is the `Logistic` Cairn ships, inputs' means and scales included.

>>> import numpy as np
>>> X = np.array([[0.0], [0.2], [0.8], [1.0]]); y = np.array([0, 0, 1, 1])
>>> model = fit(["cov"], X, y, penalty=0.1)
>>> model.probability({"cov": 1.0}) > 0.9 > 0.1 > model.probability({"cov": 0.0})
True
>>> best_threshold([(0.9, True), (0.8, True), (0.7, False), (0.6, True)], 0.6)
(0.6, 3, 4)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from cairn.tasks.verify.model import Logistic

Matrix = npt.NDArray[np.float64]


def matrix(rows: Sequence[Mapping[str, float]], names: Sequence[str]) -> Matrix:
    """Rows of named inputs as a matrix in `names`' order (an input not given is 0)."""
    at = {name: n for n, name in enumerate(names)}
    out = np.zeros((len(rows), len(names)))
    for i, row in enumerate(rows):
        for name, value in row.items():
            if name in at:
                out[i, at[name]] = value
    return out


def fit(
    names: Sequence[str],
    X: Matrix,
    y: npt.NDArray[np.int_] | npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64] | None = None,
    penalty: float = 1.0,
    steps: int = 25,
) -> Logistic:
    """The penalised logistic regression of `y` on `X` (see the module docstring)."""
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    target = np.asarray(y, dtype=np.float64)
    w = np.ones(len(X)) if weights is None else np.asarray(weights, dtype=np.float64)
    beta = np.zeros(Z.shape[1])
    ridge = penalty * np.r_[np.ones(Z.shape[1] - 1), 0.0]
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ beta, -35, 35)))
        gradient = Z.T @ (w * (p - target)) + ridge * beta
        hessian = (Z * (w * p * (1 - p))[:, None]).T @ Z + np.diag(ridge)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-6:
            break
    return Logistic(
        names=list(names),
        mean=[float(v) for v in mean],
        scale=[float(v) for v in scale],
        weights=[float(v) for v in beta[:-1]],
        bias=float(beta[-1]),
    )


def probabilities(model: Logistic, X: Matrix) -> npt.NDArray[np.float64]:
    """The model's probability for each row of `X` (inputs in `model.names`' order)."""
    Z = (X - np.array(model.mean)) / np.array(model.scale)
    return 1.0 / (1.0 + np.exp(-np.clip(Z @ np.array(model.weights) + model.bias, -35, 35)))


def best_threshold(scored: Sequence[tuple[float, bool]], precision: float) -> tuple[float, int, int]:
    """The lowest probability at which the answers at or above it are right at least `precision`
    of the time, taking as many as possible: (threshold, right, taken). (1.0, 0, 0) when none."""
    ranked = sorted(scored, key=lambda t: -t[0])
    best = (1.0, 0, 0)
    right = 0
    for taken, (p, ok) in enumerate(ranked, start=1):
        right += ok
        if right / taken >= precision and (taken == len(ranked) or ranked[taken][0] < p):
            best = (p, right, taken)
    return best


def lowest_share(scored: Sequence[float], share: float) -> float:
    """The probability under which at most `share` of `scored` fall (the absence threshold).

    >>> lowest_share([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], 0.2)
    0.3
    """
    ranked = sorted(scored)
    if not ranked:
        return 0.0
    return ranked[int(share * len(ranked))]


__all__ = ["best_threshold", "fit", "lowest_share", "matrix", "probabilities"]
