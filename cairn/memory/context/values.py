"""Goal-conditioned memory values learned with TD(lambda) (docs/design.md, "Memory intelligence").

A memory's value for a goal estimates how often using it ends in success. During an episode each
retrieval (`TDLambda.access`) decays every eligibility trace by `gamma * lambda` and sets the
accessed keys' traces to 1 (replacing traces: a memory read five times is not five times to blame).
At the episode's end (`end_episode(reward)`) every traced key moves toward the reward,
`v += alpha * trace * (reward - v)`, clipped to [0, 1]. A key whose value stays at or above
`promote_at` for `promote_after` consecutive episodes is reported for promotion (episodic ->
semantic; `cairn.memory.context.levels.promote` applies it).

Values live in the workspace's `memory.db`, in their own table `memory_values` reached through
their own sqlite3 connection: the store's schema stays the store's, and a value survives a
`cairn reindex` (which rebuilds records, not what was learned about them).

>>> values = ValueTable(":memory:")
>>> td = TDLambda(values, goal="coding_task")
>>> td.access(["k1"]); _ = td.end_episode(1.0)
>>> round(values.value("coding_task", "k1"), 2)
0.65
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from cairn.core import Frozen, now
from cairn.memory.store.protocol import SearchHit

INITIAL_VALUE = 0.5
_SCHEMA = """CREATE TABLE IF NOT EXISTS memory_values (
    goal TEXT NOT NULL, key TEXT NOT NULL, value REAL NOT NULL, streak INTEGER NOT NULL DEFAULT 0,
    episodes INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL, PRIMARY KEY (goal, key))"""


class ValueUpdate(Frozen):
    key: str
    old: float
    new: float
    streak: int  # consecutive episodes at or above the promotion threshold
    promote: bool = False


class ValueTable:
    """Per-(goal, key) values in a sqlite file (the workspace's memory.db) or `:memory:`."""

    def __init__(self, path: str | Path, initial: float = INITIAL_VALUE) -> None:
        self.initial = initial
        self.conn = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False)
        self.conn.execute("PRAGMA busy_timeout = 30000")
        self.conn.execute(_SCHEMA)

    def value(self, goal: str, key: str) -> float:
        return self.values(goal, [key])[key]

    def values(self, goal: str, keys: Iterable[str]) -> dict[str, float]:
        """Each key's value for the goal (`initial` when never learned)."""
        wanted = list(dict.fromkeys(keys))
        found = {key: self.initial for key in wanted}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ", ".join("?" * len(part))
            sql = f"SELECT key, value FROM memory_values WHERE goal = ? AND key IN ({marks})"
            rows = self.conn.execute(sql, [goal, *part])
            found.update({key: value for key, value in rows})
        return found

    def streak(self, goal: str, key: str) -> int:
        row = self.conn.execute("SELECT streak FROM memory_values WHERE goal = ? AND key = ?", [goal, key])
        found = row.fetchone()
        return int(found[0]) if found else 0

    def save(self, goal: str, updates: Sequence[ValueUpdate]) -> None:
        at = now()
        with self.conn:  # one transaction per episode
            self.conn.executemany(
                "INSERT INTO memory_values (goal, key, value, streak, episodes, updated_at)"
                " VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (goal, key) DO UPDATE SET value = excluded.value,"
                " streak = excluded.streak, episodes = episodes + 1, updated_at = excluded.updated_at",
                [(goal, u.key, u.new, u.streak, at) for u in updates],
            )

    def close(self) -> None:
        self.conn.close()


class TDLambda:
    """One episode's learner for one goal (see the module docstring for the rule).

    >>> td = TDLambda(ValueTable(":memory:"), goal="research_task", alpha=0.5)
    >>> td.access(["useful"]); td.access(["other"])
    >>> [(u.key, round(u.new, 2)) for u in td.end_episode(1.0)]
    [('useful', 0.7), ('other', 0.75)]
    """

    def __init__(
        self,
        values: ValueTable,
        goal: str,
        *,
        alpha: float = 0.3,
        lam: float = 0.8,
        gamma: float = 1.0,
        promote_at: float = 0.8,
        promote_after: int = 3,
    ) -> None:
        self.values, self.goal = values, goal
        self.alpha, self.lam, self.gamma = alpha, lam, gamma
        self.promote_at, self.promote_after = promote_at, promote_after
        self.traces: dict[str, float] = {}
        self.step_reward = 0.0

    def access(self, keys: Iterable[str], reward: float = 0.0) -> None:
        """One step of the episode: these memories were retrieved (and `reward` was observed)."""
        decay = self.gamma * self.lam
        self.traces = {key: trace * decay for key, trace in self.traces.items()}
        for key in keys:
            self.traces[key] = 1.0
        self.step_reward += reward

    def end_episode(self, reward: float) -> list[ValueUpdate]:
        """Update every traced key toward the episode's reward (plus step rewards, clipped to [0, 1]),
        persist, reset the traces, and report promotions."""
        target = _clip(reward + self.step_reward)
        current = self.values.values(self.goal, self.traces)
        updates = [self._update(key, trace, current[key], target) for key, trace in self.traces.items()]
        self.values.save(self.goal, updates)
        self.traces, self.step_reward = {}, 0.0
        return updates

    def _update(self, key: str, trace: float, old: float, target: float) -> ValueUpdate:
        new = _clip(old + self.alpha * trace * (target - old))
        streak = self.values.streak(self.goal, key) + 1 if new >= self.promote_at else 0
        return ValueUpdate(key=key, old=old, new=new, streak=streak, promote=streak >= self.promote_after)


def rerank(hits: Sequence[SearchHit], values: dict[str, float], weight: float = 0.3) -> list[SearchHit]:
    """Hits ordered by `(1 - weight) * score + weight * value`; the combined score replaces `score`.

    >>> rerank([], {})
    []
    """

    def combined(hit: SearchHit) -> float:
        value = values.get(hit.memory.key, INITIAL_VALUE)
        return (1.0 - weight) * hit.score + weight * value

    scored = [hit.model_copy(update={"score": combined(hit)}) for hit in hits]
    return sorted(scored, key=lambda h: (-h.score, h.memory.key))


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))
