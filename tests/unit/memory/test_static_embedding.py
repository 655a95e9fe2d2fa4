"""The default embedder (static MiniLM, shipped in the package) and the rerank stage of hybrid search."""

from __future__ import annotations

import numpy as np
import pytest

from cairn.core import Memory
from cairn.memory.dialog import Turn, turn_memories
from cairn.memory.embed import static_embedding
from cairn.memory.embed.embeddings import HashingEmbedder, make_embedder
from cairn.memory.embed.static_embedding import StaticEmbedder
from cairn.memory.store.protocol import SearchHit
from cairn.memory.store.rerank import PARTICIPANT_BOOST, named_participants, rerank


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return StaticEmbedder()


def test_the_offline_default_is_the_static_embedder() -> None:
    assert isinstance(make_embedder(None), StaticEmbedder)
    assert isinstance(make_embedder("hashing"), HashingEmbedder) and make_embedder("hashing-64").dim == 64


def test_vectors_are_unit_rows_and_repeatable(embedder: StaticEmbedder) -> None:
    texts = ["Deploy the billing service", "naïve café résumé", "", "the of and"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:2], axis=1), 1.0, atol=1e-5)
    assert not vectors[2:].any()  # nothing but function words: no direction
    assert np.array_equal(vectors, embedder.embed(texts))
    assert embedder.embed([]).shape == (0, 384)


def test_related_words_are_near_without_sharing_a_word(embedder: StaticEmbedder) -> None:
    kids, children, taxes = embedder.embed(["my kids", "our children", "quarterly tax returns"])
    assert kids @ children > 0.5 > kids @ taxes


def test_embedding_in_chunks_matches_one_text_at_a_time(
    embedder: StaticEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"turn {i}: we hiked up the mountain trail number {i}" for i in range(20)] + [""]
    monkeypatch.setattr(static_embedding, "_CHUNK_TOKENS", 7)  # a chunk every text or two
    chunked = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert np.allclose(chunked, alone, atol=1e-6)


def _hits(*pairs: tuple[Memory, float]) -> list[SearchHit]:
    return [SearchHit(memory=m, score=s) for m, s in pairs]


def test_rerank_lifts_the_named_participants_turns_only() -> None:
    ann, bo = turn_memories([Turn(speaker="Ann Lee", text="tea"), Turn(speaker="Bo", text="tea!")], "t")
    note = Memory(key="n", kind="fact", content="Ann Lee: not a dialog turn", tenant="t")
    hits = rerank("what tea does ann lee drink?", _hits((bo, 0.9), (ann, 0.8), (note, 0.85)))
    scores = {h.memory.key: h.score for h in hits}
    scale = 1 + PARTICIPANT_BOOST
    assert scores == pytest.approx({bo.key: 0.9 / scale, ann.key: 1.05 / scale, "n": 0.85 / scale})
    unchanged = _hits((bo, 0.9), (ann, 0.8))
    assert rerank("what tea does Cy drink?", unchanged) == unchanged


def test_a_participant_is_named_by_whole_words() -> None:
    speakers = {"Ann", "Annabel", "Jo Lee", None}
    assert named_participants("Did annabel's cat and ANN meet?", speakers) == {"Ann", "Annabel"}
    assert named_participants("what did Jo say to Lee?", speakers) == set()
