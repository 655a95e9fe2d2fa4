"""TD(lambda) values as a ranking signal in the CONTEXT block, learned from episodes."""

from __future__ import annotations

from pathlib import Path

from cairn.core import Memory
from cairn.memory.context.relevant import search_snippets
from cairn.memory.context.values import TDLambda, ValueTable
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.log.state import TaskState
from cairn.memory.store.sqlite_store import SQLiteStore


def _chunk(key: str, text: str) -> Memory:
    return Memory(key=key, kind="document_chunk", content=text, tenant="t1", file_path=f"{key}.md")


def test_snippets_that_led_to_success_rank_first_for_the_next_task(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=64))
    store.upsert(
        [
            _chunk("a", "reservoir capacity figures for the town"),
            _chunk("b", "reservoir capacity figures for the town"),  # as relevant as "a": values decide
            _chunk("c", "the town council met on Tuesday about parks"),
            _chunk("d", "skate park opening hours and the library"),
            _chunk("e", "treatment plant filters and chlorine dosing"),
        ]
    )
    state = TaskState(task_id="t1", goal="reservoir capacity figures", task_type="research_task")
    values = ValueTable(tmp_path / "memory.db")
    before = [m.key for m in search_snippets(state, store, k=2)]

    loser = before[0]  # the top hit by relevance alone
    for outcome, key in ((0.0, loser), (1.0, next(k for k in before if k != loser))) * 4:
        episode = TDLambda(values, goal="research_task")
        episode.access([key])
        episode.end_episode(outcome)

    learner = TDLambda(values, goal="research_task")
    after = [m.key for m in search_snippets(state, store, k=2, learner=learner)]
    assert after[0] != loser and set(after) == set(before)
    assert set(learner.traces) == set(after)  # what was shown is what gets credit at the end

    other_goal = TDLambda(values, goal="coding_task")  # values are per goal
    assert [m.key for m in search_snippets(state, store, k=2, learner=other_goal)] == before
