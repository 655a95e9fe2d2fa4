"""TD(lambda) memory values: learning from synthetic episodes, goal-conditioned ranking, persistence,
promotion after consistently high value, and level-wise retrieval sorted by value."""

from __future__ import annotations

import random
from pathlib import Path

from cairn.core import Memory
from cairn.memory.context.levels import apply_promotions, remember, retrieve
from cairn.memory.context.values import TDLambda, ValueTable, rerank
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.protocol import SearchHit
from cairn.memory.store.sqlite_store import SQLiteStore

KEYS = [f"sql:report:{i:016x}" for i in range(8)]
GOOD = set(KEYS[:2])


def _episodes(values: ValueTable, goal: str, helpful: set[str], n: int = 30, seed: int = 7) -> None:
    """Each episode retrieves three memories; it succeeds when one of `helpful` was among them."""
    rng = random.Random(seed)
    for _ in range(n):
        learner = TDLambda(values, goal)
        used = rng.sample(KEYS, 3)
        for key in used:
            learner.access([key])
        learner.end_episode(1.0 if helpful & set(used) else 0.0)


def _hits() -> list[SearchHit]:
    # Equal relevance, so the order is the learned value's alone.
    return [
        SearchHit(memory=Memory(key=k, kind="insight", content=k, tenant="shared"), score=0.6) for k in KEYS
    ]


def test_memories_that_lead_to_success_rise_and_rank_first_for_their_goal_only(tmp_path: Path) -> None:
    values = ValueTable(tmp_path / "memory.db")
    _episodes(values, "monthly-report", GOOD)
    _episodes(values, "schema-migration", set(KEYS[5:7]), seed=11)
    learned = values.values("monthly-report", KEYS)
    assert min(learned[k] for k in GOOD) > max(learned[k] for k in KEYS if k not in GOOD)
    assert all(0.0 <= v <= 1.0 for v in learned.values())

    ranked = rerank(_hits(), learned)
    assert {h.memory.key for h in ranked[:2]} == GOOD
    other = rerank(_hits(), values.values("schema-migration", KEYS))
    assert not GOOD & {h.memory.key for h in other[:2]}
    unknown = rerank(_hits(), values.values("never-seen", KEYS))
    assert [h.memory.key for h in unknown] == sorted(KEYS)  # no learning: relevance (then key) decides


def test_eligibility_traces_decay_and_values_clip(tmp_path: Path) -> None:
    values = ValueTable(":memory:")
    learner = TDLambda(values, "g", alpha=1.0, lam=0.5)
    learner.access(["early"])
    learner.access(["late"])
    assert learner.traces == {"early": 0.5, "late": 1.0}
    updates = {u.key: u.new for u in learner.end_episode(5.0)}  # reward clipped to 1
    assert updates == {"early": 0.75, "late": 1.0} and learner.traces == {}


def test_values_persist_and_consistently_valuable_memories_are_promoted(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    store = SQLiteStore(db, HashingEmbedder(dim=32))
    memory = remember(store, "Filter dates with BETWEEN", domain="sql", task_type="date_filter", agent="a")
    assert memory.level == "episodic"
    streaks = []
    for _ in range(5):
        learner = TDLambda(ValueTable(db), "report")  # a new connection each episode: values persist
        learner.access([memory.key])
        (update,) = learner.end_episode(1.0)
        streaks.append(update.streak)
        promoted = apply_promotions(store, [update])
    assert streaks == [0, 0, 1, 2, 3] and [m.level for m in promoted] == ["semantic"]
    assert store.get(memory.key, "shared").level == "semantic"  # type: ignore[union-attr]
    again = remember(store, "Filter dates with BETWEEN", domain="sql", task_type="date_filter", agent="b")
    assert again.level == "semantic" and again.agents == ["a", "b"]  # storing again never demotes


def test_retrieval_by_domain_and_task_type_per_level_sorted_by_goal_value(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=32))
    values = ValueTable(tmp_path / "memory.db")
    low = remember(store, "Quote identifiers", domain="sql", task_type="date_filter")
    high = remember(store, "Use ISO dates", domain="SQL", task_type="date_filter")
    remember(store, "Arrows point right", domain="mermaid", task_type="sequence_diagram")
    remember(store, "A semantic fact", domain="sql", task_type="date_filter", level="semantic")
    learner = TDLambda(values, "report")
    learner.access([high.key])
    learner.end_episode(1.0)

    found = retrieve(store, values, goal="report", level="episodic", domain="sql")
    assert [m.key for m in found] == [high.key, low.key]
    by_type = retrieve(
        store, values, goal="report", level="semantic", task_type="date_filter", learner=learner
    )
    assert [m.content for m in by_type] == ["A semantic fact"] and by_type[0].key in learner.traces
    assert store.get(high.key, "shared").access_count == 1  # type: ignore[union-attr]
