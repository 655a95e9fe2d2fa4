"""Where a judge's P(yes) can be trusted: the `proven` threshold, the `absent` one, and precision
measured on folds the threshold was not fitted on.

A line is proven on the judge's word when its P(yes) >= `proven`: the lowest threshold whose
precision's Wilson lower bound (95%, two-sided) reaches `target` on the items it is fitted on, so
recall is as high as that bound allows. It is absent when P(yes) < `absent`: the highest threshold
under which at most `miss` of the positives fall. Held out: the groups are dealt into `k` folds;
each fold is decided with the threshold fitted on the others, and the decisions are pooled.

>>> wilson_lower(73, 73) >= 0.95, wilson_lower(72, 72) >= 0.95
(True, False)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

Z_95 = 1.959963984540054  # the standard normal's 97.5th percentile: a two-sided 95% interval
TARGET = 0.95  # precision's lower bound a `proven` threshold must reach
MISS = 0.02  # share of the positives the `absent` threshold may put under it
FOLDS = 5


@dataclass(frozen=True)
class Scored:
    """One labelled item's P(yes) as the judge gave it."""

    p_yes: float
    label: bool
    group: str


class Point(BaseModel):
    """What deciding `proven` at P(yes) >= `threshold` gives over some items."""

    threshold: float | None  # None: nothing is proven
    proven: int  # items decided proven
    right: int  # of those, labelled true
    positives: int  # items labelled true
    precision: float | None
    lower: float | None  # precision's Wilson lower bound
    recall: float


def wilson_lower(successes: int, trials: int, z: float = Z_95) -> float | None:
    """The lower end of the Wilson score interval for a proportion (None with no trials).

    >>> round(wilson_lower(8, 10), 3), wilson_lower(0, 0)
    (0.49, None)
    """
    if trials == 0:
        return None
    p = successes / trials
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return max(0.0, (p + z * z / (2 * trials) - spread) / (1 + z * z / trials))


def point(scored: Sequence[Scored], threshold: float | None) -> Point:
    """Precision, its lower bound and recall of `proven` at `threshold` over `scored`."""
    decided = [s for s in scored if threshold is not None and s.p_yes >= threshold]
    return _tally(threshold, len(decided), sum(s.label for s in decided), sum(s.label for s in scored))


def candidates(scored: Sequence[Scored]) -> list[float]:
    """Every P(yes) given, ascending: the thresholds worth trying."""
    return sorted({s.p_yes for s in scored})


def choose_proven(scored: Sequence[Scored], target: float = TARGET) -> float | None:
    """The lowest threshold whose precision's lower bound reaches `target`; None where none does."""
    for threshold in candidates(scored):
        if (lower := point(scored, threshold).lower) is not None and lower >= target:
            return threshold
    return None


def choose_absent(scored: Sequence[Scored], miss: float = MISS) -> float | None:
    """The highest threshold under which at most `miss` of the positives fall (None without any).

    >>> choose_absent([Scored(p, True, "g") for p in (0.1, 0.5, 0.9)] + [Scored(0.0, False, "g")])
    0.1
    """
    positives = sorted(s.p_yes for s in scored if s.label)
    if not positives:
        return None
    allowed = math.floor(miss * len(positives))
    under = [t for t in candidates(scored) if sum(p < t for p in positives) <= allowed]
    return max(under)


def folds(scored: Sequence[Scored], k: int = FOLDS) -> list[set[str]]:
    """The groups dealt into at most `k` folds, largest first, each to the fold holding fewest items."""
    sizes: dict[str, int] = {}
    for s in scored:
        sizes[s.group] = sizes.get(s.group, 0) + 1
    dealt: list[set[str]] = [set() for _ in range(min(k, len(sizes)))]
    held = [0] * len(dealt)
    for group in sorted(sizes, key=lambda g: (-sizes[g], g)):
        fewest = held.index(min(held))
        dealt[fewest].add(group)
        held[fewest] += sizes[group]
    return dealt


def held_out(
    scored: Sequence[Scored], k: int = FOLDS, target: float = TARGET
) -> tuple[Point, list[float | None]]:
    """The pooled decisions of each fold at the threshold fitted on the other folds (threshold
    None in the point), and each fold's threshold; a single group gives no fold to hold out."""
    dealt = folds(scored, k)
    if len(dealt) < 2:
        return _tally(None, 0, 0, sum(s.label for s in scored)), []
    proven = right = 0
    chosen: list[float | None] = []
    for fold in dealt:
        fitted = choose_proven([s for s in scored if s.group not in fold], target)
        found = point([s for s in scored if s.group in fold], fitted)
        proven, right = proven + found.proven, right + found.right
        chosen.append(fitted)
    return _tally(None, proven, right, sum(s.label for s in scored)), chosen


def _tally(threshold: float | None, proven: int, right: int, positives: int) -> Point:
    return Point(
        threshold=threshold,
        proven=proven,
        right=right,
        positives=positives,
        precision=right / proven if proven else None,
        lower=wilson_lower(right, proven),
        recall=right / positives if positives else 0.0,
    )
