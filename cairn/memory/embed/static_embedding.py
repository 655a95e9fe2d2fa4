"""`StaticEmbedder`: the offline default embedder — a table of word-piece vectors, averaged.

A static embedding model keeps one vector per token of a transformer's vocabulary; a text's vector
is the mean of its tokens' rows, so embedding is a table look-up (no model runs, no torch, nothing
downloaded). Cairn ships one in `memory/embed/static_minilm/`: all-MiniLM-L6-v2 (Apache-2.0) distilled
the Model2Vec way by `bench/distill_static.py` (each token through the transformer alone, weighted
by smooth inverse frequency, int8 rows with a scale each); see `memory/embed/static_minilm/NOTICE.md`.
It knows that "kids" and "children" are near, which feature hashing cannot.

Function words are dropped before tokenising (the list the keyword index drops): in a mean they only
pull every text towards the same point.

>>> embedder = StaticEmbedder()
>>> v = embedder.embed(["my kids love the beach", "our children enjoy the sea", "a tax form"])
>>> bool(v[0] @ v[1] > v[0] @ v[2])
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cairn.memory.embed.words import FUNCTION_WORDS

DATA = Path(__file__).resolve().parent / "static_minilm"
NAME = "static-minilm"
_WORD = re.compile(r"\w+")  # punctuation carries no topic either
_CHUNK_TOKENS = 8192  # token rows gathered at once (12 MB of float32)
_MAX_TOKENS = 512  # a long text's vector is its first 512 word pieces' mean (as the teacher's was)


class StaticEmbedder:
    """Word-piece vectors averaged per text (see the module docstring); 384 dimensions."""

    def __init__(self, data: Path = DATA) -> None:
        self._table, self._scale, self._tokenizer = _load(data)

    @property
    def dim(self) -> int:
        return int(self._table.shape[1])

    @property
    def name(self) -> str:
        return NAME

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        ids = self.token_ids(texts)
        for start, stop in _chunks([len(row) for row in ids]):
            out[start:stop] = self._sums(ids[start:stop])
        norms = np.linalg.norm(out, axis=1, keepdims=True)  # the mean's direction: no need to divide
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def _sums(self, ids: list[list[int]]) -> npt.NDArray[np.float32]:
        """Each text's sum of token vectors (zeros for a text without tokens)."""
        out = np.zeros((len(ids), self.dim), dtype=np.float32)
        lengths = np.array([len(row) for row in ids], dtype=np.int64)
        filled = lengths > 0
        if not filled.any():
            return out
        flat = np.fromiter((i for row in ids for i in row), dtype=np.int64, count=int(lengths.sum()))
        rows = self._table[flat].astype(np.float32)
        rows *= self._scale[flat]
        starts = np.concatenate([[0], np.cumsum(lengths[filled])[:-1]])
        out[filled] = np.add.reduceat(rows, starts, axis=0)
        return out

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word-piece ids, function words left out."""
        encoded = self._tokenizer.encode_batch(content_words(texts), add_special_tokens=False)
        return [e.ids[:_MAX_TOKENS] for e in encoded]


def content_words(texts: Sequence[str]) -> list[str]:
    """Each text's words, function words and punctuation left out."""
    return [" ".join(w for w in _WORD.findall(t) if w.lower() not in FUNCTION_WORDS) for t in texts]


def _chunks(lengths: list[int], budget: int = _CHUNK_TOKENS) -> list[tuple[int, int]]:
    """Consecutive (start, stop) text ranges of about `budget` tokens: bounded temporaries."""
    chunks, start, held = [], 0, 0
    for index, length in enumerate(lengths):
        if held and held + length > budget:
            chunks.append((start, index))
            start, held = index, 0
        held += length
    return [*chunks, (start, len(lengths))] if lengths else []


@cache
def _load(data: Path) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], Any]:
    """The int8 table, its per-row scales and the WordPiece tokenizer; read once per process."""
    from tokenizers import BertWordPieceTokenizer

    with np.load(data / "table.npz") as arrays:
        table, scale = arrays["table"], arrays["scale"]
    tokenizer: Any = BertWordPieceTokenizer(str(data / "vocab.txt"), lowercase=True, strip_accents=None)
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return table, scale, tokenizer
