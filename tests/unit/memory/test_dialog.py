"""Conversation turns as memory records."""

from __future__ import annotations

from pathlib import Path

from cairn.memory.dialog import Turn, turn_memories, turn_vectors
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.protocol import SearchFilter, SearchQuery
from cairn.memory.store.sqlite_store import SQLiteStore


def _turns() -> list[Turn]:
    lines = [("s1", "Ann", "I adopted a dog"), ("s1", "Bo", "What breed?"), ("s1", "Ann", "A beagle")]
    lines += [("s2", "Bo", "How is the beagle?"), ("s2", "Ann", "Great, we hike daily")]
    return [
        Turn(speaker=who, text=text, turn_id=f"D{i}", session=session, when=f"{session} day")
        for i, (session, who, text) in enumerate(lines)
    ]


def test_turn_has_date_and_speaker_and_its_same_session_neighbours_as_context() -> None:
    memories = turn_memories(_turns(), "chat", context=1)
    assert memories[2].content == "[s1 day] Ann: A beagle"
    assert memories[2].context == "Bo: What breed?\nBo: What breed?"  # answers it; s2 is another sitting
    assert memories[3].context == "Ann: Great, we hike daily"
    assert turn_memories(_turns(), "chat", context=0)[0].context is None
    assert [m.source for m in memories] == ["D0", "D1", "D2", "D3", "D4"]
    assert {m.thread_id for m in memories} == {"s1", "s2"} and memories[0].kind == "document_chunk"


def test_keys_identify_the_turn_not_its_context() -> None:
    narrow = turn_memories(_turns(), "chat", context=0)
    wide = turn_memories(_turns(), "chat", context=2)
    assert [m.key for m in narrow] == [m.key for m in wide]
    assert len({m.key for m in wide}) == 5


def test_image_captions_are_indexed_and_empty_turns_skipped() -> None:
    turns = [
        Turn(speaker="Ann", text="Look!", image_caption="a dog on a beach"),
        Turn(speaker="Bo", text=" "),
    ]
    memories = turn_memories(turns, "chat")
    assert len(memories) == 1 and "a dog on a beach" in memories[0].content
    assert turn_vectors(turns, HashingEmbedder(dim=16)).shape == (1, 16)


def test_a_turn_is_found_by_its_neighbours_words_but_ranks_below_one_that_says_them(tmp_path: Path) -> None:
    turns = [
        Turn(speaker="Bo", text="Did you like the pottery class?", turn_id="q", session="s"),
        Turn(speaker="Ann", text="Yes, it was amazing!", turn_id="a", session="s"),
        Turn(speaker="Ann", text="Something else entirely", turn_id="x", session="t"),
    ]
    embedder = HashingEmbedder(dim=32)
    with SQLiteStore(tmp_path / "chat.db", embedder) as store:
        store.upsert(turn_memories(turns, "chat", context=1), turn_vectors(turns, embedder))
        query = SearchQuery(text="pottery class", mode="keyword", filter=SearchFilter(tenants=["chat"]))
        hits = store.search(query)
    assert [h.memory.source for h in hits] == ["q", "a"]
    assert hits[0].score > hits[1].score  # min-max normalised: the weaker match scores 0


def test_a_reply_is_found_by_the_question_it_answers_before_a_turn_that_only_neighbours_it(
    tmp_path: Path,
) -> None:
    turns = [
        Turn(speaker="Bo", text="Nice. How often do you work out?", turn_id="q", session="s"),
        Turn(speaker="Ann", text="Three times a week.", turn_id="reply", session="s"),
        Turn(speaker="Bo", text="Cool, same for me.", turn_id="later", session="s"),
        Turn(speaker="Ann", text="I bake bread on Sundays", turn_id="x", session="t"),
    ]
    embedder = HashingEmbedder(dim=64)
    memories, vectors = turn_memories(turns, "chat"), turn_vectors(turns, embedder)
    with SQLiteStore(tmp_path / "chat.db", embedder) as store:
        store.upsert(memories, vectors)
        query = SearchQuery(text="work out how often", mode="keyword", filter=SearchFilter(tenants=["chat"]))
        assert [h.memory.source for h in store.search(query)] == ["q", "reply", "later"]
    alone = embedder.embed(["Ann: Three times a week.", "Bo: Cool, same for me."])
    question = embedder.embed(["Bo: Nice. How often do you work out?"])[0]
    assert vectors[1] @ question > alone[0] @ question  # the reply's vector leans towards it
    assert (vectors[2] == alone[1]).all()  # a turn after a statement is embedded alone
