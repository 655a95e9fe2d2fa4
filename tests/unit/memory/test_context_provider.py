"""MemoryContextProvider: extraction, storage, recall, relevance threshold, thread isolation,
deduplication, TTL, decay, an injected extractor, and the example chat loop run offline."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from cairn.core import now
from cairn.memory.context.extract import ChatMessage, Extracted, heuristic_facts
from cairn.memory.context.provider import DAY, MemoryContextProvider, new_messages
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.sqlite_store import SQLiteStore

ROOT = Path(__file__).resolve().parents[3]


def user(text: str) -> ChatMessage:
    return {"role": "user", "content": text}


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "memory.db", HashingEmbedder())


def test_heuristics_find_facts_and_preferences_and_skip_questions() -> None:
    text = (
        "I prefer aisle seats. I'm a nurse. I work at the city hospital. I live in Porto with my wife. "
        "My cat is called Miso. Remember that my passport expires in May. Do I like tea? Nice weather."
    )
    found = [
        (f.kind, f.content)
        for f in heuristic_facts([user(text), {"role": "assistant", "content": "I like it"}])
    ]
    assert found == [
        ("preference", "User prefers aisle seats"),
        ("fact", "User is a nurse"),
        ("fact", "User works at the city hospital"),
        ("fact", "User lives in Porto with their wife"),
        ("fact", "User's cat is called Miso"),
        ("fact", "User's passport expires in May"),
    ]


def test_after_run_stores_with_thread_and_before_run_recalls_above_threshold(store: SQLiteStore) -> None:
    provider = MemoryContextProvider(store, "alice", ttl_seconds=3600)
    stored = provider.after_run([user("I prefer Thai food for dinner. My dog is called Rex.")], "Noted!")
    assert {m.kind for m in stored} == {"preference", "fact"}
    kept = provider.memories()
    assert all(m.thread_id == "alice" and m.tenant == "chat:alice" and m.expires_at for m in kept)
    context = provider.before_run([user("What should I cook for dinner? Some Thai food?")])
    assert context.instructions is not None and "User prefers Thai food for dinner" in context.instructions
    assert "Rex" not in context.instructions  # below the minimum relevance for this question
    assert provider.before_run([user("Explain quantum chromodynamics")]).instructions is None
    assert provider.invoking is not None and MemoryContextProvider.invoked is MemoryContextProvider.after_run


def test_two_threads_never_see_each_other(store: SQLiteStore) -> None:
    alice = MemoryContextProvider(store, "alice", min_relevance=0.0)
    bob = MemoryContextProvider(store, "bob", min_relevance=0.0)
    alice.after_run([user("I prefer green tea in the morning.")], [])
    bob.after_run([user("I prefer black coffee in the morning.")], [])
    for provider, own, other in ((alice, "green tea", "coffee"), (bob, "black coffee", "tea")):
        context = provider.invoking([user("What do I drink in the morning, tea or coffee?")])
        assert context.instructions and own in context.instructions and other not in context.instructions
        assert {h.memory.thread_id for h in context.memories} == {provider.thread_id}


def test_restating_deduplicates_and_only_new_messages_are_read(store: SQLiteStore) -> None:
    provider = MemoryContextProvider(store, "t")
    history = [
        user("I use vim for editing."),
        {"role": "assistant", "content": "ok"},
        user("I use Vim for editing!"),
    ]
    assert new_messages(history) == [history[-1]]
    provider.after_run(history[:1], [])
    provider.after_run(history, [])
    assert [m.content for m in provider.memories()] == ["User uses Vim for editing"]


def test_ttl_and_decay(store: SQLiteStore) -> None:
    past = now() - 10 * DAY
    old = MemoryContextProvider(store, "t", ttl_seconds=DAY, clock=lambda: past)
    old.after_run([user("I prefer window seats on trains.")], [])
    assert old.memories() == []  # expired a day after it was stated, nine days ago

    stated = MemoryContextProvider(store, "u", half_life_days=7, min_relevance=0.0, clock=lambda: past)
    stated.after_run([user("I prefer window seats on trains.")], [])
    fresh = MemoryContextProvider(store, "u", half_life_days=7, min_relevance=0.0).search(
        "window seats trains"
    )
    stale = MemoryContextProvider(store, "u", half_life_days=None, min_relevance=0.0).search(
        "window seats trains"
    )
    assert fresh[0].score == pytest.approx(stale[0].score * 0.5 ** (10 / 7), rel=1e-3)
    gone = MemoryContextProvider(store, "u", half_life_days=1, min_relevance=0.2).search(
        "window seats trains"
    )
    assert stale[0].score >= 0.2 and gone == []  # decayed below the threshold


def test_an_injected_extractor_replaces_the_heuristics(store: SQLiteStore) -> None:
    seen: list[Sequence[ChatMessage]] = []

    def extractor(messages: Sequence[ChatMessage]) -> list[Extracted]:
        seen.append(messages)
        return [Extracted(kind="fact", content="User's project is called Cairn")]

    provider = MemoryContextProvider(store, "t", extractor=extractor)
    provider.after_run([user("hello")], [{"role": "assistant", "content": "hi"}])
    assert [m["role"] for m in seen[0]] == ["user", "assistant"]
    assert [m.content for m in provider.memories()] == ["User's project is called Cairn"]


def test_the_example_chat_loop_runs_offline(tmp_path: Path) -> None:
    script = "I prefer Thai food for dinner.\nMy dog is called Rex.\nWhat food do I prefer for dinner?\n"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    db = str(tmp_path / "chat.db")
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "chat_with_memory.py"), "--db", db, "--thread", "a"],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    replies = [line for line in run.stdout.splitlines() if line.startswith("assistant> ")]
    assert replies[0] == "assistant> Noted." and "User prefers Thai food for dinner" in replies[-1]
    stored = SQLiteStore(db, HashingEmbedder())
    assert {m.content for m in MemoryContextProvider(stored, "a").memories()} == {
        "User prefers Thai food for dinner",
        "User's dog is called Rex",
    }
    assert MemoryContextProvider(stored, "b").memories() == []
