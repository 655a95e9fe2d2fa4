"""Candidates for recall past the default, side by side, as re-rankings of the default's own legs.

Issue 19 asked for query rewriting, time-aware ranking, a second hop and help for answers that
share no word with the question. The product's default (`bench/recall.py`'s `default`: static
MiniLM, hybrid alpha 0.3, the participant stage) is rebuilt here from a store's two legs
(`mode="keyword"` and `mode="vector"`, 100 each, as a hybrid query fuses) so that each candidate
changes one thing; none of them is in the product (reasons and figures: `docs/design.md`, issue 19).
`delta@10` is the change of recall@10 against `product` and `se@10` its paired standard error over
the questions: a candidate that does not clear about twice its `se@10` is noise on this split.

- `vector-prf`: a second vector query, the question's vector plus 0.6 x the mean of the top 3 (Rocchio).
- `expansion`: a second keyword query of the conversation's own words nearest (cosine >= 0.75,
  2 per word) to each content word of the question, fused at 0.2 of the keyword leg.
- `short-turn-prior`: a turn with fewer than 8 content words loses up to 0.1 ("Thanks!", "Wow!").
- `reply-lift`: at query time too, the reply to a question in the top 50 gains 0.25 x its score.
- `session-diversity`: the third and later hits of one session lose 0.02.
- `zscore-fusion` / `rrf-fusion`: the legs fused by z-scores, or by reciprocal rank (k = 60).

    python bench/recall_variants.py [--data PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from cairn.memory.dialog import question_answered, speaker_of, turn_memories, turn_vectors
from cairn.memory.embed.static_embedding import StaticEmbedder
from cairn.memory.embed.words import FUNCTION_WORDS
from cairn.memory.store.fusion import minmax, relative_score_fusion
from cairn.memory.store.protocol import SearchFilter, SearchMode, SearchQuery
from cairn.memory.store.rerank import participant_scores, rerank_depth
from cairn.memory.store.sqlite_store import SQLiteStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall import DEFAULT_DATA, KS, conversation_turns, questions

ALPHA, LEG = 0.3, 100
_WORD = re.compile(r"[a-z]+")
Scores = dict[str, float]  # record key -> score


class Conversation:
    """One LoCoMo conversation in a store, with what the variants read about its turns."""

    def __init__(self, sample: dict[str, Any], embedder: StaticEmbedder, path: Path) -> None:
        self.tenant, turns = sample["sample_id"], conversation_turns(sample)
        memories, vectors = turn_memories(turns, self.tenant), turn_vectors(turns, embedder)
        self.embedder, self.store = embedder, SQLiteStore(path / f"{self.tenant}.db", embedder)
        self.store.upsert(memories, vectors)
        self.vectors = {m.key: vectors[n] for n, m in enumerate(memories)}
        self.source = {m.key: m.source or "" for m in memories}
        self.speaker = {m.key: speaker_of(m) for m in memories}
        self.session = {m.key: m.thread_id for m in memories}
        self.words = {m.key: _content_words(m.content.split(": ", 1)[-1]) for m in memories}
        vocab = sorted({w for ws in self.words.values() for w in ws if len(w) > 2})
        self.vocab, self.vocab_vectors = vocab, embedder.embed(vocab)
        by_source = {m.source: m.key for m in memories}
        self.reply = {  # a question's key -> the key of the reply that answers it
            by_source[question.turn_id]: by_source[turn.turn_id]
            for index, turn in enumerate(turns)
            if (question := question_answered(turns, index))
        }

    def leg(self, mode: SearchMode, text: str, vector: Any = None) -> Scores:
        query = SearchQuery(text=text, mode=mode, k=LEG, filter=SearchFilter(tenants=[self.tenant]))
        return {hit.memory.key: hit.score for hit in self.store.search(query, vector)}

    def nearest_words(self, word: str, n: int = 2, floor: float = 0.75) -> list[str]:
        sims = self.vocab_vectors @ self.embedder.embed([word])[0]
        best = np.argsort(-sims)[: n + 1]
        return [self.vocab[i] for i in best if sims[i] >= floor and self.vocab[i][:5] != word[:5]][:n]


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in FUNCTION_WORDS]


def _participants(c: Conversation, text: str, scores: Scores) -> Scores:
    """The product's rerank stage over the product's head."""
    head = sorted(scores, key=lambda key: (-scores[key], key))[: rerank_depth(max(KS))]
    return participant_scores(text, {key: scores[key] for key in head}, {key: c.speaker[key] for key in head})


def _fused(vector: Scores, keyword: Scores) -> Scores:
    return {key: f.score for key, f in relative_score_fusion(vector, keyword, ALPHA).items()}


def product(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    return _participants(c, text, _fused(vector, keyword))


def vector_prf(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    first = product(c, text, vector, keyword)
    top = sorted(first, key=lambda key: (-first[key], key))[:3]
    again = c.embedder.embed([text])[0] + 0.6 * np.mean([c.vectors[key] for key in top], axis=0)
    return product(c, text, c.leg("vector", text, (again / np.linalg.norm(again)).tolist()), keyword)


def expansion(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    names = {w for s in c.speaker.values() if s for w in _content_words(s)}
    extra = [n for w in _content_words(text) if w not in names for n in c.nearest_words(w)]
    if extra:
        more = c.leg("keyword", " ".join(dict.fromkeys(extra)))
        keyword = minmax({key: keyword.get(key, 0.0) + 0.2 * more.get(key, 0.0) for key in keyword | more})
    return product(c, text, vector, keyword)


def short_turn_prior(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    scores = product(c, text, vector, keyword)
    return {key: s - 0.1 * max(0.0, (8 - len(c.words[key])) / 8) for key, s in scores.items()}


def reply_lift(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    scores = product(c, text, vector, keyword)
    out = dict(scores)
    for key in sorted(scores, key=lambda key: (-scores[key], key))[:50]:
        if reply := c.reply.get(key):
            out[reply] = out.get(reply, 0.0) + 0.25 * scores[key]
    return out


def session_diversity(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    scores, seen, out = product(c, text, vector, keyword), dict[str | None, int](), {}
    for key in sorted(scores, key=lambda key: (-scores[key], key)):
        seen[c.session[key]] = seen.get(c.session[key], 0) + 1
        out[key] = scores[key] - (0.02 if seen[c.session[key]] > 2 else 0.0)
    return out


def zscore_fusion(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    def z(leg: Scores) -> tuple[Scores, float]:
        values = np.array(list(leg.values())) if leg else np.zeros(1)
        mean, sd = float(values.mean()), float(values.std()) or 1.0
        return {key: (s - mean) / sd for key, s in leg.items()}, (float(values.min()) - mean) / sd

    (zv, v_floor), (zk, k_floor) = z(vector), z(keyword)
    fused = {k: ALPHA * zv.get(k, v_floor) + (1 - ALPHA) * zk.get(k, k_floor) for k in vector | keyword}
    return _participants(c, text, minmax(fused))


def rrf_fusion(c: Conversation, text: str, vector: Scores, keyword: Scores) -> Scores:
    def ranks(leg: Scores) -> dict[str, int]:
        return {key: r for r, key in enumerate(sorted(leg, key=lambda key: (-leg[key], key)))}

    rv, rk = ranks(vector), ranks(keyword)
    fused = {k: ALPHA / (60 + rv.get(k, 2 * LEG)) + (1 - ALPHA) / (60 + rk.get(k, 2 * LEG)) for k in rv | rk}
    return _participants(c, text, minmax(fused))


Variant = Callable[[Conversation, str, Scores, Scores], Scores]
VARIANTS: dict[str, Variant] = {
    "product": product,
    "vector-prf": vector_prf,
    "expansion": expansion,
    "short-turn-prior": short_turn_prior,
    "reply-lift": reply_lift,
    "session-diversity": session_diversity,
    "zscore-fusion": zscore_fusion,
    "rrf-fusion": rrf_fusion,
}


def run(data: Path) -> dict[str, dict[str, float]]:
    rows: dict[str, list[list[float]]] = {name: [] for name in VARIANTS}
    embedder = StaticEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        for sample in json.loads(data.read_text()):
            c = Conversation(sample, embedder, Path(tmp))
            for text, gold in questions(sample):
                vector, keyword = c.leg("vector", text), c.leg("keyword", text)
                for name, variant in VARIANTS.items():
                    scores = variant(c, text, vector, keyword)
                    found = [c.source[key] for key in sorted(scores, key=lambda key: (-scores[key], key))]
                    rows[name].append([len(gold & set(found[:k])) / len(gold) for k in KS])
            c.store.close()
    return {name: _summary(np.array(r), np.array(rows["product"])) for name, r in rows.items()}


def _summary(rows: Any, base: Any) -> dict[str, float]:
    delta = rows[:, 1] - base[:, 1]
    report = {f"recall@{k}": round(float(rows[:, i].mean()), 4) for i, k in enumerate(KS)}
    se = float(delta.std() / np.sqrt(len(delta)))
    return {**report, "delta@10": round(float(delta.mean()), 4), "se@10": round(se, 4)}


def _cell(column: str, value: float) -> str:
    return (
        f"{value:+.4f}" if column == "delta@10" else f"{value:.4f}" if column == "se@10" else f"{value:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    report = run(args.data)
    if args.json:
        print(json.dumps(report))
        return
    table = Table(title=f"Recall candidates over the default ({args.data.name}, categories 1-4)")
    for column in ("variant", *next(iter(report.values()))):
        table.add_column(column)
    for name, row in report.items():
        table.add_row(name, *(_cell(col, value) for col, value in row.items()))
    Console().print(table)


if __name__ == "__main__":
    main()
