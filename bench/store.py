"""Store throughput and latency: inserts/s and top-10 query p50/p95, tenant-filtered.

Synthetic records: ~300-char texts drawn from a Zipf-distributed vocabulary and 384-dim unit
vectors around random topic centres, spread over 10 tenants. Queries are tenant-filtered (as
Cairn's are) and timed after one warm-up query per tenant (which loads that tenant's matrix).
Recall@10 compares vector hits with exact float64 brute force over the tenant. Inserts are timed
with vectors given (the store's own cost); `embed_per_s` is what the default embedder adds: texts
it embeds per second (the first 5,000 records' texts), `embed_hashing_per_s` the same for hashing.

`--backends sqlite,weaviate` runs the same workload on each backend in turn (Weaviate: the server
`WEAVIATE_URL` names, or the pinned release built and started for the run, `bench/stores.py`) and
reports `{backend: {size: figures}}`; without it, `{size: figures}` for the embedded store.
Weaviate's vector search is HNSW (approximate), so its recall@10 against exact search is a figure
of its own; hybrid on one tenant is one server query.

    python bench/store.py [--sizes 10000,100000] [--backends sqlite,weaviate] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stores import backend_list, backend_stores
from cairn.core import Memory
from cairn.memory.embed.embeddings import Embedder, HashingEmbedder, make_embedder
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchMode, SearchQuery

DIM, TENANTS, QUERIES, BATCH = 384, 10, 200, 1000
EMBEDDED = 5000  # texts embedded to time the embedders
MODES: tuple[SearchMode, ...] = ("vector", "keyword", "hybrid")


# Natural text is Zipfian with function words at the head; the store drops those from queries.
_FUNCTION_TEXT = (
    "the of and to a in is it you that he was for on are with as i his they be at one have this from "
    "or had by but not what all were we when your can there an which she do how their if will up "
    "other about out many then them these so some her would make like him into has look more"
)
FUNCTION_WORDS = _FUNCTION_TEXT.split()


class Corpus:
    """Deterministic synthetic records, vectors and queries."""

    def __init__(self, size: int, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        letters = np.array(list("etaoinshrdlucmfwypgbvk"))
        made = ["".join(self.rng.choice(letters, n)) for n in self.rng.integers(4, 10, 6000)]
        self.vocab = np.array(FUNCTION_WORDS + made)
        weights = 1.0 / np.arange(1, len(self.vocab) + 1) ** 1.05
        picks = self.rng.choice(len(self.vocab), size=(size, 60), p=weights / weights.sum())
        self.texts = [" ".join(self.vocab[row])[:300] for row in picks]
        self.tenants = [f"task-{i % TENANTS}" for i in range(size)]
        centres = self.rng.standard_normal((64, DIM))
        noisy = centres[self.rng.integers(0, 64, size)] + self.rng.standard_normal((size, DIM)) * 1.5
        self.vectors = (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)

    def memories(self) -> list[Memory]:
        return [
            Memory(key=f"m{i}", kind="fact", content=t, tenant=self.tenants[i])
            for i, t in enumerate(self.texts)
        ]

    def query(self) -> tuple[str, np.ndarray[Any, Any], str]:
        """Six consecutive words of a random record, its vector with noise, and its tenant."""
        source = int(self.rng.integers(0, len(self.texts)))
        words = self.texts[source].split()
        start = int(self.rng.integers(0, max(1, len(words) - 6)))
        noisy = self.vectors[source] + self.rng.standard_normal(DIM).astype(np.float32) * 0.05
        return " ".join(words[start : start + 6]), noisy / np.linalg.norm(noisy), self.tenants[source]


def insert(store: MemoryStore, corpus: Corpus, progress: Progress) -> float:
    memories = corpus.memories()
    task = progress.add_task(f"insert {len(memories)}", total=len(memories))
    started = time.perf_counter()
    for start in range(0, len(memories), BATCH):
        store.upsert(memories[start : start + BATCH], corpus.vectors[start : start + BATCH])
        progress.advance(task, min(BATCH, len(memories) - start))
    return len(memories) / (time.perf_counter() - started)


def embed_rate(embedder: Embedder, texts: list[str]) -> float:
    embedder.embed(texts[:10])  # loads what it needs once, as a process does
    started = time.perf_counter()
    embedder.embed(texts)
    return round(len(texts) / (time.perf_counter() - started))


def exact_top10(corpus: Corpus, vector: np.ndarray[Any, Any], tenant: str) -> set[str]:
    rows = np.array([i for i, t in enumerate(corpus.tenants) if t == tenant])
    scores = corpus.vectors[rows].astype(np.float64) @ vector.astype(np.float64)
    return {f"m{rows[i]}" for i in np.argsort(-scores, kind="stable")[:10]}


def measure(size: int, progress: Progress, backend: str = "sqlite") -> dict[str, float]:
    corpus = Corpus(size)
    with tempfile.TemporaryDirectory() as tmp, backend_stores(backend, Path(tmp)) as open_store:
        store = open_store(f"bench-{size}", HashingEmbedder(DIM))
        result: dict[str, float] = {"insert_per_s": round(insert(store, corpus, progress))}
        result["embed_per_s"] = embed_rate(make_embedder(None), corpus.texts[:EMBEDDED])
        result["embed_hashing_per_s"] = embed_rate(HashingEmbedder(DIM), corpus.texts[:EMBEDDED])
        for t in range(TENANTS):  # warm-up: load each tenant's matrix once
            store.search(
                SearchQuery(text="warm", filter=SearchFilter(tenants=[f"task-{t}"])), corpus.vectors[0]
            )
        result |= timed_queries(store, corpus, progress)
        store.close()
    return result


def timed_queries(store: MemoryStore, corpus: Corpus, progress: Progress) -> dict[str, float]:
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    recalls: list[float] = []
    task = progress.add_task("queries", total=QUERIES)
    for _ in range(QUERIES):
        text, vector, tenant = corpus.query()
        for mode in MODES:
            query = SearchQuery(text=text, mode=mode, k=10, filter=SearchFilter(tenants=[tenant]))
            started = time.perf_counter()
            hits = store.search(query, vector.tolist())
            times[mode].append((time.perf_counter() - started) * 1000)
            if mode == "vector":
                recalls.append(len({h.memory.key for h in hits} & exact_top10(corpus, vector, tenant)) / 10)
        progress.advance(task)
    out = {f"{m}_{p}_ms": round(_percentile(times[m], p), 3) for m in MODES for p in ("p50", "p95")}
    return out | {"recall_at_10": round(statistics.fmean(recalls), 4)}


def _percentile(values: list[float], which: str) -> float:
    return float(np.percentile(values, 50 if which == "p50" else 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated record counts")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--backends", help="comma list of sqlite, weaviate: each, side by side")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    console = Console(stderr=args.json)
    with Progress(console=console, transient=True) as progress:
        report = {
            backend: {str(size): measure(size, progress, backend) for size in sizes}
            for backend in backend_list(args.backends or "sqlite")
        }
    if args.json:
        print(json.dumps(report if args.backends else report["sqlite"]))
        return
    for backend, rows in report.items():
        console.print(_table(backend, rows))


def _table(backend: str, report: dict[str, dict[str, float]]) -> Table:
    name = {"sqlite": "SQLiteStore", "weaviate": "WeaviateStore"}[backend]
    table = Table(title=f"{name}, {DIM}-dim, {TENANTS} tenants, top-10, tenant-filtered")
    table.add_column("metric")
    for size in report:
        table.add_column(f"{int(size):,} records", justify="right")
    for metric in next(iter(report.values())):
        table.add_row(metric, *(str(report[size][metric]) for size in report))
    return table


if __name__ == "__main__":
    main()
