"""The thresholds `cairn calibrate` chooses, on made-up judgements: a `proven` threshold where
precision's lower bound reaches 0.95 (and the one that maximises recall among those), none where
it does not, the `absent` threshold, folds by group, and the stored calibration read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.tasks.calibration import LabelledItem, load_calibration, measure, save_calibration
from cairn.tasks.calibration.store import CalibrationUnreadable, calibration_path
from cairn.tasks.calibration.thresholds import (
    Scored,
    choose_absent,
    choose_proven,
    folds,
    held_out,
    point,
    wilson_lower,
)


def _scored(p_true: list[float], p_false: list[float], groups: int = 10) -> list[Scored]:
    found = [Scored(p, True, f"g{n % groups}") for n, p in enumerate(p_true)]
    return found + [Scored(p, False, f"g{n % groups}") for n, p in enumerate(p_false)]


def test_wilson_lower_bound() -> None:
    assert round(wilson_lower(8, 10) or 0, 3) == 0.49
    assert wilson_lower(0, 0) is None
    assert (wilson_lower(73, 73) or 0) >= 0.95 > (wilson_lower(72, 72) or 0)


def test_the_lowest_threshold_whose_bound_reaches_the_target_is_chosen() -> None:
    # 200 positives from 0.9 up; 99 negatives at 0.3 and one at 0.95.
    scored = _scored([0.9 + i / 2000 for i in range(200)], [0.95] + [0.3] * 99)
    assert (point(scored, 0.96).lower or 0) >= 0.95  # a higher threshold passes too, with less recall
    chosen = choose_proven(scored)
    assert chosen == 0.9
    at = point(scored, chosen)
    assert (at.proven, at.right, at.recall) == (201, 200, 1.0)
    assert (at.lower or 0) >= 0.95
    assert (point(scored, 0.3).lower or 0) < 0.95  # one step lower takes the negatives in


def test_no_threshold_when_the_bound_is_never_reached() -> None:
    # Negatives everywhere the positives are: no P(yes) gives precision's bound 0.95.
    scored = _scored([0.6 + i / 250 for i in range(100)], [0.6 + i / 250 for i in range(0, 100, 5)])
    assert choose_proven(scored) is None
    held, fold_thresholds = held_out(scored, k=5)
    assert fold_thresholds == [None] * 5
    assert held.proven == 0 and held.precision is None and held.recall == 0.0


def test_too_few_items_never_reach_the_bound() -> None:
    # 72 perfect positives: precision 1, but its lower bound is 0.949.
    assert choose_proven(_scored([1.0] * 72, [0.0] * 72)) is None
    assert choose_proven(_scored([1.0] * 73, [0.0] * 73)) == 1.0


def test_absent_threshold_leaves_at_most_two_percent_of_the_positives_under_it() -> None:
    positives = [0.05, 0.1, 0.2] + [0.5 + i / 200 for i in range(97)]  # 100: two allowed under
    scored = _scored(positives, [0.0, 0.15, 0.3, 0.4])
    assert choose_absent(scored) == 0.2  # 0.05 and 0.1 under it; 0.3 would put three under
    assert choose_absent(_scored([], [0.1])) is None


def test_folds_never_split_a_group_and_balance_the_items() -> None:
    scored = _scored([0.5] * 60, [0.5] * 60, groups=11)
    dealt = folds(scored, k=5)
    assert len(dealt) == 5 and set().union(*dealt) == {f"g{n}" for n in range(11)}
    assert sum(len(f) for f in dealt) == 11
    sizes = [sum(s.group in f for s in scored) for f in dealt]
    assert max(sizes) - min(sizes) <= 12


def test_held_out_thresholds_are_fitted_without_their_fold() -> None:
    scored = _scored([0.9] * 200, [0.1] * 200, groups=10)
    held, fold_thresholds = held_out(scored, k=5)
    assert fold_thresholds == [0.9] * 5
    assert held.proven == 200 and held.precision == 1.0 and held.recall == 1.0
    assert (held.lower or 0) > 0.98


def test_measure_stores_and_loads_per_model(tmp_path: Path) -> None:
    items = [
        LabelledItem(question="q", line="l", value="v", label=n % 2 == 0, group=f"g{n % 7}")
        for n in range(300)
    ]
    p_yes: list[float | None] = [0.97 if i.label else 0.2 for i in items]
    p_yes[1] = None  # a failed judge call is left out
    measured = measure("openai/some-model", items, p_yes, "test")
    found = measured.calibration
    assert found.proven == 0.97 and found.absent == 0.97  # capped at `proven`: never both
    assert found.n == 299 and found.failed == 1 and found.positives == 150
    assert found.held_out_precision == 1.0 and (found.held_out_lower or 0) >= 0.95
    assert any(p.threshold == found.proven for p in measured.rows)
    path = save_calibration(found, tmp_path)
    assert path == calibration_path("openai/some-model", tmp_path)
    assert load_calibration("openai/some-model", tmp_path) == found
    assert load_calibration("openai/other", tmp_path) is None
    path.write_text("{", encoding="utf-8")
    with pytest.raises(CalibrationUnreadable):
        load_calibration("openai/some-model", tmp_path)
