"""`PotionEmbedder` computes what Model2Vec's `encode` does, on a tiny table made here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from cairn.memory.embed.potion_embedding import PotionEmbedder

VOCAB = ["[PAD]", "[UNK]", "kid", "##s", "child", "tax", "the"]


@pytest.fixture(scope="module")
def rows() -> np.ndarray:
    return np.random.default_rng(3).standard_normal((len(VOCAB), 8)).astype(np.float32)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory, rows: np.ndarray) -> Path:
    folder = tmp_path_factory.mktemp("potion")
    tokenizer = Tokenizer(models.WordPiece({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.save(str(folder / "tokenizer.json"))
    np.savez(folder / "table.npz", table=rows, scale=np.ones((len(VOCAB), 1), dtype=np.float32))
    return folder


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def test_a_text_is_the_unit_mean_of_its_rows_without_unknown_pieces(data: Path, rows: np.ndarray) -> None:
    embedder = PotionEmbedder(data)
    kids, zebra_kids, nothing = embedder.embed(["The KIDS", "zebra kids", "zebra"])
    assert embedder.dim == 8 and embedder.name == "potion-base-8m"
    assert np.allclose(kids, _unit(rows[6] + rows[2] + rows[3]), atol=1e-6)
    assert np.allclose(zebra_kids, _unit(rows[2] + rows[3]), atol=1e-6)  # "zebra" is [UNK]: dropped
    assert not nothing.any()


def test_content_words_drops_function_words_first(data: Path, rows: np.ndarray) -> None:
    embedder = PotionEmbedder(data, content_words=True)
    assert embedder.name == "potion-base-8m-content"
    assert np.allclose(embedder.embed(["the child!"])[0], _unit(rows[4]), atol=1e-6)
