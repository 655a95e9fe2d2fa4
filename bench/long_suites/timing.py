"""Cairn's own time per iteration, read from a task's `history.jsonl`.

An iteration's wall time runs from its `iteration_started` event to the next `iteration_started`
or `task_finished`: the plan, the tool calls, the record, and the validation and decision that
follow it. Its model time is the seconds of the `model_call` events recorded for it
(`call.iteration`, `call.cost.seconds`). What is left is Cairn's own: folding the state, building
prompts, searching memory, validating, writing the log. A task whose own time grows with the
iteration number will not finish a long run, whatever the model does.

A `model_probed` event opens a new run of the same task (a resume): the span open before it ends
at the last event of the earlier run, so the time the task lay stopped is nobody's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

MARKS = (1, 5, 50, 100, 200)  # the iterations reported, where the task reached them


class IterationTime(BaseModel):
    """One iteration's seconds: all of them, the model's, and the rest (Cairn's own)."""

    iteration: int
    wall_s: float
    model_s: float

    @property
    def own_s(self) -> float:
        # Not clamped: a negative figure would say the log's timestamps and call seconds disagree.
        return self.wall_s - self.model_s


def iteration_times(history: Path) -> list[IterationTime]:
    """Each iteration's wall, model and own seconds, in iteration order.

    >>> import json, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "history.jsonl"
    >>> call = {"key": "k", "iteration": 1, "cost": {"seconds": 1.5}}
    >>> events = [(0.0, {"type": "iteration_started", "iteration": 1}),
    ...           (2.0, {"type": "model_call", "call": call}),
    ...           (3.0, {"type": "task_finished"})]
    >>> _ = path.write_text("".join(json.dumps({"seq": i, "ts": ts, "event": e}) + "\\n"
    ...                             for i, (ts, e) in enumerate(events, 1)))
    >>> [(t.iteration, t.wall_s, t.model_s, t.own_s) for t in iteration_times(path)]
    [(1, 3.0, 1.5, 1.5)]
    """
    envelopes = list(_envelopes(history))
    walls = _walls(envelopes)
    models = _model_seconds(envelopes)
    return [
        IterationTime(iteration=i, wall_s=round(walls[i], 3), model_s=round(models.get(i, 0.0), 3))
        for i in sorted(walls)
    ]


def _envelopes(history: Path) -> Iterator[tuple[float, dict[str, Any]]]:
    """(ts, event) per line, in `seq` order; a line that does not parse is skipped (a torn tail)."""
    found: list[tuple[int, float, dict[str, Any]]] = []
    for line in history.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            envelope = json.loads(line)
            found.append((int(envelope["seq"]), float(envelope["ts"]), dict(envelope["event"])))
        except (ValueError, KeyError, TypeError):
            continue
    for _, ts, event in sorted(found, key=lambda item: item[0]):
        yield ts, event


def _walls(envelopes: Iterable[tuple[float, dict[str, Any]]]) -> dict[int, float]:
    walls: dict[int, float] = {}
    current: int | None = None
    start = last = 0.0
    for ts, event in envelopes:
        kind = event.get("type")
        if current is not None and kind in ("iteration_started", "task_finished", "model_probed"):
            end = last if kind == "model_probed" else ts
            walls[current] = walls.get(current, 0.0) + max(0.0, end - start)
            current = None
        if kind == "iteration_started":
            current, start = int(event["iteration"]), ts
        last = ts
    if current is not None:  # a run that stopped mid-iteration: its span ends at its last event
        walls[current] = walls.get(current, 0.0) + max(0.0, last - start)
    return walls


def _model_seconds(envelopes: Iterable[tuple[float, dict[str, Any]]]) -> dict[int, float]:
    """Model seconds per iteration; a call recorded twice (by key) counts once, as its last record."""
    calls: dict[str, tuple[int, float]] = {}
    for n, (_, event) in enumerate(envelopes):
        if event.get("type") != "model_call":
            continue
        call = event.get("call") or {}
        key = str(call.get("key") or f"unkeyed-{n}")
        calls[key] = (int(call.get("iteration", 0)), float((call.get("cost") or {}).get("seconds", 0.0)))
    seconds: dict[int, float] = {}
    for iteration, spent in calls.values():
        seconds[iteration] = seconds.get(iteration, 0.0) + spent
    return seconds


def own_time_summary(times: list[IterationTime]) -> dict[str, Any]:
    """Own seconds at the marked iterations (those reached), at the last, and how they grew.

    >>> times = [IterationTime(iteration=i, wall_s=1.0 + i / 10, model_s=1.0) for i in range(1, 8)]
    >>> own_time_summary(times)
    {'own_s': {'1': 0.1, '5': 0.5}, 'last': 7, 'own_last_s': 0.7, 'ratio_200_5': None, 'ratio_last_5': 1.4}
    """
    own = {t.iteration: t.own_s for t in times}
    marks = {str(i): round(own[i], 3) for i in MARKS if i in own}
    last = max(own) if own else None
    return {
        "own_s": marks,
        "last": last,
        "own_last_s": round(own[last], 3) if last is not None else None,
        "ratio_200_5": _ratio(own.get(200), own.get(5)),
        "ratio_last_5": _ratio(own.get(last) if last is not None else None, own.get(5)),
    }


def _ratio(late: float | None, early: float | None) -> float | None:
    if late is None or early is None or early <= 0:
        return None
    return round(late / early, 2)
