"""Embedders: the static MiniLM table Cairn ships, Potion, and a hashing embedder for tests."""

from __future__ import annotations

from cairn.memory.embed.embeddings import (
    Embedder,
    HashingEmbedder,
    MiniLMEmbedder,
    Vectors,
    make_embedder,
    stem,
    tokens,
)
from cairn.memory.embed.potion_embedding import DATA, PotionEmbedder
from cairn.memory.embed.static_embedding import StaticEmbedder
from cairn.memory.embed.words import FUNCTION_WORDS

__all__ = [
    "DATA",
    "FUNCTION_WORDS",
    "Embedder",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "PotionEmbedder",
    "StaticEmbedder",
    "Vectors",
    "make_embedder",
    "stem",
    "tokens",
]
