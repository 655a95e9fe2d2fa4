"""Retrieval recall on the LoCoMo dev split: does search find the dialog turns a question needs?

Per conversation, every turn is indexed (via `cairn.memory.dialog`) in a temporary `SQLiteStore`; each
question of categories 1-4 is searched and recall@k = |gold turns in the top k| / |gold turns|,
averaged over questions. Configurations: each search setting x each available embedder (the
shipped static MiniLM, feature hashing, MiniLM itself when the `minilm` extra is installed, and
Model2Vec's potion-base-8M, whole and on content words only, when `bench/convert_potion.py` has
made `memory/potion_base_8m/`),
plus other ways to index a turn (hybrid search only): no neighbours as context, the neighbours
folded into its content at full weight, and a reply without the question it answers (in neither
its context nor its vector, or in only one of them). "default" is the product's offline default:
hybrid search with its rerank stage, the static embedder, neighbours as context and each reply
indexed with the question it answers.
Candidates beyond the default (pseudo-relevance feedback, expansion, priors, other fusions) are
compared with it in `bench/recall_variants.py`.

`--backends sqlite,weaviate` runs the same on each store backend (Weaviate: `WEAVIATE_URL`, or the
pinned release built and started for the run, `bench/stores.py`) and reports
`{backend: {configuration: recall}, "fusion_gap": {backend: gap}}`. The gap is the largest
difference, over every question, between a backend's own hybrid scores (Weaviate fuses one
tenant's legs on the server) and `cairn.memory.store.fusion.relative_score_fusion` applied to the same
backend's vector and keyword legs: about 0 shows that both backends fuse with the same formula.

    python bench/recall.py [--data PATH] [--json] [--embedders static-minilm,hashing] [--by-category]
                           [--backends sqlite,weaviate]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stores import OpenStore, backend_list, backend_stores  # noqa: E402
from cairn.core import Memory  # noqa: E402
from cairn.memory.dialog import Turn, turn_memories, turn_vectors  # noqa: E402
from cairn.memory.embed import potion_embedding  # noqa: E402
from cairn.memory.embed.embeddings import Embedder, HashingEmbedder, Vectors  # noqa: E402
from cairn.memory.embed.static_embedding import StaticEmbedder  # noqa: E402
from cairn.memory.store import fusion  # noqa: E402
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchMode, SearchQuery  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
KS = (5, 10, 25)
# Named search settings, side by side: mode, alpha (None: `SearchQuery`'s default, the product's)
# and whether the rerank stage runs (`cairn.memory.store.rerank`; hybrid only).
Setting = tuple[SearchMode, float | None, bool]
SETTINGS: dict[str, Setting] = {
    "hybrid": ("hybrid", None, True),
    "hybrid-no-rerank": ("hybrid", None, False),
    "keyword": ("keyword", None, True),
    "vector": ("vector", None, True),
    "hybrid-alpha-0.2": ("hybrid", 0.2, True),
    "hybrid-alpha-0.4": ("hybrid", 0.4, True),
    "hybrid-alpha-0.5": ("hybrid", 0.5, True),
}
DEFAULT_CONFIG = ("hybrid", "static-minilm")


Indexed = tuple[list[Memory], Vectors]


def _turn_only(turns: Sequence[Turn], tenant: str, embedder: Embedder) -> Indexed:
    return turn_memories(turns, tenant, context=0), turn_vectors(turns, embedder)


def _neighbours_in_content(turns: Sequence[Turn], tenant: str, embedder: Embedder) -> Indexed:
    """Cairn's first indexing: the neighbours appended to the content, weighted like the turn."""
    memories = [
        m.model_copy(update={"content": "\n".join(filter(None, [m.content, m.context])), "context": None})
        for m in turn_memories(turns, tenant)
    ]
    return memories, turn_vectors(turns, embedder)


def _unanswered(turns: Sequence[Turn], tenant: str, embedder: Embedder) -> Indexed:
    """Before issue 19's last step: a reply indexed without the question it answers."""
    return turn_memories(turns, tenant, answered=False), turn_vectors(turns, embedder, answered=False)


def _answered_in_context_only(turns: Sequence[Turn], tenant: str, embedder: Embedder) -> Indexed:
    return turn_memories(turns, tenant), turn_vectors(turns, embedder, answered=False)


def _answered_in_vector_only(turns: Sequence[Turn], tenant: str, embedder: Embedder) -> Indexed:
    return turn_memories(turns, tenant, answered=False), turn_vectors(turns, embedder)


# Other ways to index a turn, compared with the product's (`turn_memories`, `turn_vectors`) under
# hybrid search.
INDEXINGS: dict[str, Callable[[Sequence[Turn], str, Embedder], Indexed]] = {
    "turn-only": _turn_only,
    "neighbours-in-content": _neighbours_in_content,
    "unanswered": _unanswered,
    "answered-in-context-only": _answered_in_context_only,
    "answered-in-vector-only": _answered_in_vector_only,
}


def conversation_turns(sample: dict[str, Any]) -> list[Turn]:
    """LoCoMo's sessions as `Turn`s, in order, with each session's date."""
    conv = sample["conversation"]
    sessions = sorted(
        int(name.split("_")[1]) for name in conv if name.startswith("session_") and "date" not in name
    )
    turns = []
    for n in sessions:
        when = conv.get(f"session_{n}_date_time")
        for raw in conv[f"session_{n}"]:
            turns.append(
                Turn(
                    speaker=raw["speaker"],
                    text=raw["text"],
                    turn_id=raw["dia_id"],
                    session=f"session_{n}",
                    when=_date_part(when),
                    timestamp=_timestamp(when),
                    image_caption=raw.get("blip_caption"),
                )
            )
    return turns


def _date_part(when: str | None) -> str | None:
    return when.split(" on ", 1)[-1] if when else None  # "1:56 pm on 8 May, 2023" -> "8 May, 2023"


def _timestamp(when: str | None) -> float | None:
    try:
        return datetime.strptime(when or "", "%I:%M %p on %d %B, %Y").timestamp()
    except ValueError:
        return None


def embedders() -> dict[str, Embedder]:
    found: dict[str, Embedder] = {"static-minilm": StaticEmbedder(), "hashing": HashingEmbedder()}
    # potion-base-8M, a candidate (`convert_potion.py`)
    if potion_embedding.DATA.joinpath("table.npz").exists():
        found["potion-base-8m"] = potion_embedding.PotionEmbedder()
        found["potion-base-8m-content"] = potion_embedding.PotionEmbedder(content_words=True)
    try:
        from cairn.memory.embed.embeddings import MiniLMEmbedder

        found["minilm"] = MiniLMEmbedder()
    except ImportError:
        pass
    return found


CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def _scored(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """The questions recall is measured on: categories 1-4, with evidence."""
    return [qa for qa in sample["qa"] if qa["category"] in CATEGORIES and qa.get("evidence")]


def questions(sample: dict[str, Any]) -> Iterator[tuple[str, set[str]]]:
    for qa in _scored(sample):
        yield qa["question"], set(qa["evidence"])


def categories(sample: dict[str, Any]) -> list[str]:
    """The category of each question `questions` yields, in the same order."""
    return [CATEGORIES[qa["category"]] for qa in _scored(sample)]


def recall_for(
    sample: dict[str, Any], embedder: Embedder, open_store: OpenStore, gap: bool = False
) -> dict[str, list[list[float]]]:
    """Per configuration, per question: recall at each k (with `gap`, `fusion-gap`: its gap)."""
    tenant, turns = sample["sample_id"], conversation_turns(sample)
    vectors = turn_vectors(turns, embedder)
    store = open_store(f"{tenant}-{embedder.name}-product", embedder)
    results = _searched(sample, embedder, store, turn_memories(turns, tenant), vectors, SETTINGS, gap)
    for name, index in INDEXINGS.items():
        memories, indexed = index(turns, tenant, embedder)
        found = _searched(
            sample,
            embedder,
            open_store(f"{tenant}-{embedder.name}-{name}", embedder),
            memories,
            indexed,
            {"hybrid": SETTINGS["hybrid"]},
        )
        results[f"hybrid-{name}"] = found["hybrid"]
    return results


def _searched(
    sample: dict[str, Any],
    embedder: Embedder,
    store: MemoryStore,
    memories: list[Memory],
    vectors: Any,
    settings: dict[str, Setting],
    gap: bool = False,
) -> dict[str, list[list[float]]]:
    tenant = sample["sample_id"]
    store.upsert(memories, vectors)
    results: dict[str, list[list[float]]] = {name: [] for name in settings}
    gaps: list[list[float]] = []
    for text, gold in questions(sample):
        vector = embedder.embed([text])[0].tolist()
        where = SearchFilter(tenants=[tenant])
        for name, (mode, alpha, rerank) in settings.items():
            chosen = {} if alpha is None else {"alpha": alpha}
            query = SearchQuery(text=text, mode=mode, k=max(KS), filter=where, rerank=rerank, **chosen)
            found = [hit.memory.source for hit in store.search(query, vector)]
            results[name].append([len(gold & set(found[:k])) / len(gold) for k in KS])
        if gap:  # is the backend's hybrid the client's formula applied to its own legs?
            gaps.append([fusion_gap(store, text, vector, where, (memories, vectors))] * len(KS))
    store.close()
    return results | ({"fusion-gap": gaps} if gaps else {})


def fusion_gap(
    store: MemoryStore, text: str, vector: list[float], where: SearchFilter, indexed: Indexed
) -> float:
    """The largest |hybrid score - relative_score_fusion(vector leg, keyword leg)| of one query on
    one store, all at the legs' depth and without the rerank stage. The vector leg is exact cosine
    similarity over the indexed vectors (a store's vector search clips negative similarities to 0,
    which its hybrid leg does not); the keyword leg is the store's own (min-max normalised again:
    no change)."""
    depth = fusion.HYBRID_LEG_LIMIT

    def hits(mode: SearchMode) -> dict[str, float]:
        query = SearchQuery(text=text, mode=mode, k=depth, filter=where, rerank=False)
        return {hit.memory.key: hit.score for hit in store.search(query, vector)}

    memories, vectors = indexed
    rows = np.asarray(vectors, dtype=np.float64)
    query = np.asarray(vector, dtype=np.float64)
    similarity = rows @ query / (np.linalg.norm(rows, axis=1) * np.linalg.norm(query) + 1e-12)
    nearest = {memories[i].key: float(similarity[i]) for i in np.argsort(-similarity, kind="stable")[:depth]}
    fused = fusion.relative_score_fusion(nearest, hits("keyword"), SearchQuery(text=text).alpha)
    return max(
        (abs(score - fused[key].score) for key, score in hits("hybrid").items() if key in fused), default=0.0
    )


def run(
    data: Path,
    only: set[str] | None = None,
    by_category: bool = False,
    backend: str = "sqlite",
    gap: bool = False,
) -> dict[str, dict[str, float]]:
    samples = json.loads(data.read_text())
    scores: dict[str, list[list[float]]] = {}
    found = {name: e for name, e in embedders().items() if only is None or name in only}
    with (
        tempfile.TemporaryDirectory() as tmp,
        backend_stores(backend, Path(tmp)) as open_store,
        Progress(console=Console(stderr=True), transient=True) as bar,
    ):
        step = bar.add_task(
            f"indexing and searching conversations ({backend})", total=len(found) * len(samples)
        )
        for name, embedder in found.items():
            for sample in samples:
                for mode, rows in recall_for(sample, embedder, open_store, gap).items():
                    scores.setdefault(f"{mode}/{name}", []).extend(rows)
                bar.advance(step)
    gaps = {config: rows for config, rows in scores.items() if config.startswith("fusion-gap/")}
    kinds = [kind for sample in samples for kind in categories(sample)]
    report = {c: _mean(rows, kinds if by_category else None) for c, rows in scores.items() if c not in gaps}
    report |= {config: {"max": float(f"{max(r[0] for r in rows):.2e}")} for config, rows in gaps.items()}
    default = "/".join(DEFAULT_CONFIG)
    return {"default": report[default], **report} if default in report else report


def _mean(rows: list[list[float]], kinds: list[str] | None = None) -> dict[str, float]:
    """Mean recall at each k; with `kinds` (each row's category), also recall@10 per category."""
    means = {f"recall@{k}": round(sum(r[i] for r in rows) / len(rows), 4) for i, k in enumerate(KS)}
    for kind in dict.fromkeys(kinds or []):
        picked = [r[KS.index(10)] for r, k in zip(rows, kinds or [], strict=True) if k == kind]
        means[f"recall@10 {kind}"] = round(sum(picked) / len(picked), 4)
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--embedders", help="comma-separated names: only these (default: all found)")
    parser.add_argument("--by-category", action="store_true", help="also recall@10 per question category")
    parser.add_argument("--backends", help="comma list of sqlite, weaviate: each, side by side")
    args = parser.parse_args()
    only = set(args.embedders.split(",")) if args.embedders else None
    if args.backends:
        per_backend = {
            b: run(args.data, only, args.by_category, b, gap=True) for b in backend_list(args.backends)
        }
        if args.json:
            print(json.dumps(per_backend))
            return
        for backend, report in per_backend.items():
            _print(report, f"{backend}: LoCoMo retrieval recall ({args.data.name}, categories 1-4)")
        return
    report = run(args.data, only, args.by_category)
    if args.json:
        print(json.dumps(report))
        return
    _print(report, f"LoCoMo retrieval recall ({args.data.name}, categories 1-4)")


def _print(report: dict[str, dict[str, float]], title: str) -> None:
    table = Table(title=title)
    table.add_column("configuration", no_wrap=True)  # names are long; the figures can wrap instead
    columns = list(next(iter(report.values())))
    for column in columns:
        table.add_column(column)
    for config, row in report.items():
        if not config.startswith("fusion-gap/"):
            table.add_row(config, *(f"{row[column]:.3f}" for column in columns))
    Console().print(table)
    for config, row in report.items():
        if config.startswith("fusion-gap/"):
            Console().print(f"{config}: largest |hybrid - client fusion of its legs| = {row['max']:.2e}")


if __name__ == "__main__":
    main()
