"""Calibrate a model's judge: ask it each labelled item as a run asks it (a `judge` call through
`ModelClient`: the quoted line, the question, the value; P(yes) read from the first token's odds,
or 1 or 0 from its word where the server gives no odds), then fit and hold out the thresholds.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from cairn.core import CairnError
from cairn.tasks.calibration.labelled import LabelledItem
from cairn.tasks.calibration.store import Calibration
from cairn.tasks.calibration.thresholds import (
    FOLDS,
    TARGET,
    Point,
    Scored,
    candidates,
    choose_absent,
    choose_proven,
    held_out,
    point,
)
from cairn.tasks.messages.schemas import JudgeInput, JudgeOutput
from cairn.tasks.model.llm import ModelClient

ROWS = 12  # thresholds the table shows, besides the chosen ones
Progress = Callable[[int, int], None]


class NoJudgement(CairnError):
    """Not one labelled item got a judgement from the model."""


class Measured(BaseModel):
    """A calibration and what it was chosen from: the curve over every threshold tried."""

    calibration: Calibration
    curve: list[Point]  # every candidate threshold, on every item, ascending
    rows: list[Point]  # a dozen of them and the chosen one, for a table, descending


def judged(
    client: ModelClient, items: Sequence[LabelledItem], progress: Progress | None = None
) -> list[float | None]:
    """Each item's P(yes), None where the call failed."""
    found: list[float | None] = []
    for n, item in enumerate(items, start=1):
        result = client.call("judge", JudgeInput(question=item.question, answer=item.value, line=item.line))
        found.append(result.output.p_yes if result.ok and isinstance(result.output, JudgeOutput) else None)
        if progress is not None:
            progress(n, len(items))
    return found


def measure(
    model: str,
    items: Sequence[LabelledItem],
    p_yes: Sequence[float | None],
    labelled_set: str,
    k: int = FOLDS,
) -> Measured:
    """The thresholds for `model` from its judgements of `items` (`p_yes`, in the same order)."""
    scored = [Scored(p, i.label, i.group) for i, p in zip(items, p_yes, strict=True) if p is not None]
    if not scored:
        raise NoJudgement(f"{model} judged none of the {len(items)} items: every judge call failed")
    proven, absent = choose_proven(scored), choose_absent(scored)
    if proven is not None and absent is not None:
        absent = min(absent, proven)  # a line is never both proven and absent
    held, fold_thresholds = held_out(scored, k)
    at = point(scored, proven)
    calibration = Calibration(
        model=model,
        proven=proven,
        absent=absent,
        target=TARGET,
        held_out_precision=held.precision,
        held_out_lower=held.lower,
        held_out_recall=held.recall,
        held_out_proven=held.proven,
        fold_thresholds=fold_thresholds,
        precision=at.precision,
        lower=at.lower,
        recall=at.recall,
        absent_positives=_under(scored, absent, True),
        absent_negatives=_under(scored, absent, False),
        n=len(scored),
        positives=sum(s.label for s in scored),
        failed=len(items) - len(scored),
        graded=any(0.0 < s.p_yes < 1.0 for s in scored),
        labelled_set=labelled_set,
        measured=dt.date.today().isoformat(),
    )
    curve = [point(scored, t) for t in candidates(scored)]
    return Measured(calibration=calibration, curve=curve, rows=table_rows(curve, proven, absent))


def table_rows(curve: Sequence[Point], *chosen: float | None) -> list[Point]:
    """About `ROWS` points spread evenly over the curve, with the chosen thresholds', descending."""
    step = max(1, -(-len(curve) // ROWS))
    picked = {id(p): p for p in [*curve[::step], curve[-1]] if curve}
    picked |= {id(p): p for p in curve if p.threshold in chosen}
    return sorted(picked.values(), key=lambda p: p.threshold or 0.0, reverse=True)


def _under(scored: Sequence[Scored], absent: float | None, label: bool) -> float | None:
    some = [s for s in scored if s.label is label]
    if absent is None or not some:
        return None
    return sum(s.p_yes < absent for s in some) / len(some)
