"""Fit the reader and the verifier on labelled questions, measure them on folds the fit never saw,
and write the weights Cairn ships (`cairn/tasks/verify/data/weights.json`).

    python bench/verifier_fit.py                     # every dataset; writes the weights and the folds
    python bench/verifier_fit.py --json --no-write   # the figures only

The examples (`bench/verifier/examples.py`) are questions over the files a run of them reads:
SQuAD 2.0's development articles, LoCoMo's development conversations, Cairn's own house questions
and the near misses made from them. Folds are groups of shared text (an article, a conversation):
every figure printed is measured on a fold by weights fitted on the others, through the functions
`cairn run` decides with (`cairn.tasks.verify`). Steps:

1. the reader's candidates of each question (its sentences' values) and their inputs;
2. the ranker (is this value the answer, if there is one), fitted on the answerable questions;
3. the verifier (is it, with these quotes), fitted on each question's best few candidates;
4. the thresholds: `complete` where precision of the best candidate holds >= 0.95 on every family of
   data (SQuAD, LoCoMo, Cairn's own), `absent` under which at most 5% of answerable questions fall;
5. the weights fitted on everything, written with the thresholds and the figures, and per SQuAD
   article the weights fitted without it (`bench/verifier/folds/`), which `bench/agent.py --suite
   squad` judges that article's questions with.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from agent_suites.squad import FOLDS, slug  # noqa: E402
from agent_suites.tally import wilson_lower  # noqa: E402
from verifier.examples import DATASETS, Example, load  # noqa: E402
from verifier.fitting import best_threshold, fit, lowest_share, matrix, probabilities  # noqa: E402

from cairn.tasks.verify.decision import KEPT, verifier_features  # noqa: E402
from cairn.tasks.verify.features import Asking  # noqa: E402
from cairn.tasks.verify.model import DATA, Logistic, Thresholds, Verifier  # noqa: E402
from cairn.tasks.verify.question import read_question  # noqa: E402
from cairn.tasks.verify.reader import candidates, every_candidate  # noqa: E402

WEIGHTS = ROOT / "cairn" / "tasks" / "verify" / "data" / DATA
FAMILIES = {"squad": "squad", "squad-removed": "squad", "locomo": "locomo", "locomo-5": "locomo",
            "near-locomo": "locomo", "house": "house", "near-house": "house", "ledger": "house"}  # fmt: skip
PRECISION = 0.95
ABSENT_SHARE = 0.05
NEGATIVES = 30  # wrong candidates per question the ranker is fitted on (all right ones are kept)
ZERO = Logistic(names=[], mean=[], scale=[], weights=[], bias=0.0)


@dataclass
class Worked:
    """One example's candidates as the fit sees them."""

    example: Example
    rows: list[dict[str, float]] = field(default_factory=list)  # the ranker's inputs
    right: list[bool] = field(default_factory=list)
    verifier_rows: list[dict[str, float]] = field(default_factory=list)
    verifier_right: list[bool] = field(default_factory=list)
    verifier_texts: list[str] = field(default_factory=list)
    best: tuple[float, bool] = (0.0, False)  # the verifier's best candidate: its probability, right

    @property
    def answerable(self) -> bool:
        return self.example.right is not None


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="cairn-verifier-fit-"))
    examples = load(tuple(args.datasets.split(",")), root)
    if args.limit:
        examples = _sample(examples, args.limit)
    log(f"{len(examples)} examples")
    worked = _cached(args.cache, examples)
    ranker_names = sorted({name for w in worked for row in w.rows for name in row})
    groups = sorted({w.example.group for w in worked})
    rankers = {g: _fit_ranker(worked, ranker_names, lambda w, g=g: w.example.group != g) for g in groups}
    ranker = _fit_ranker(worked, ranker_names, lambda w: True)
    for w in _progress(worked, "verifier inputs"):
        _verifier_inputs(w, rankers[w.example.group])
    names = sorted({name for w in worked for row in w.verifier_rows for name in row})
    verifiers = {g: _fit_verifier(worked, names, lambda w, g=g: w.example.group != g) for g in groups}
    for w in worked:
        _best(w, verifiers[w.example.group], names)
    thresholds = _thresholds(worked)
    verifier = _fit_verifier(worked, names, lambda w: True)
    figures = measured(worked, thresholds)
    if args.dump:
        _dump(worked, args.dump)
    weights = Verifier(
        fitted=_fitted_on(worked),
        ranker=ranker,
        offline=verifier,
        thresholds=thresholds,
        measured={k: v for k, v in _flat(figures).items() if isinstance(v, float | int)},
    )
    if not args.no_write:
        _write(weights, args.out)
        _write_folds(worked, rankers, verifiers, thresholds, args.folds)
    report = {"thresholds": thresholds.model_dump(), "figures": figures,
              "seconds": round(time.monotonic() - started, 1)}  # fmt: skip
    print(json.dumps(report) if args.json else _table(report))


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma list of " + ", ".join(DATASETS))
    parser.add_argument("--limit", type=int, help="at most this many examples per dataset (a quick look)")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="where the weights go")
    parser.add_argument(
        "--folds", type=Path, default=FOLDS, help="where each SQuAD article's fold weights go"
    )
    parser.add_argument("--no-write", action="store_true", help="measure only")
    parser.add_argument("--cache", type=Path, help="keep the candidates' inputs here, and reuse them")
    parser.add_argument("--dump", type=Path, help="write each question's best candidate here (JSON lines)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args(argv)


def _cached(cache: Path | None, examples: list[Example]) -> list[Worked]:
    """The reader's inputs of every example, computed, or read back from `cache` (same examples)."""
    import pickle

    digest = hashlib.sha256("\n".join(e.name for e in examples).encode()).hexdigest()[:12]
    key = cache / f"{len(examples)}-{digest}.pickle" if cache else None
    if key is not None and key.is_file():
        rows = pickle.loads(key.read_bytes())
        return [Worked(e, r, y) for e, (r, y) in zip(examples, rows, strict=True)]
    worked = [_reader_inputs(e) for e in _progress(examples, "candidates")]
    if key is not None:
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_bytes(pickle.dumps([(w.rows, w.right) for w in worked]))
    return worked


def _dump(worked: list[Worked], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for w in worked:
            row = {"name": w.example.name, "dataset": w.example.dataset, "group": w.example.group,
                   "question": w.example.question, "answerable": w.answerable, "p": w.best[0],
                   "right": w.best[1], "rows": w.verifier_rows, "rights": w.verifier_right,
                   "texts": w.verifier_texts}  # fmt: skip
            out.write(json.dumps(row) + "\n")


def _sample(examples: list[Example], limit: int) -> list[Example]:
    by: dict[str, list[Example]] = defaultdict(list)
    for e in examples:
        by[e.dataset].append(e)
    rng = random.Random(0)
    return [e for found in by.values() for e in rng.sample(found, min(limit, len(found)))]


def _reader_inputs(example: Example) -> Worked:
    read = example.sources()
    asking = Asking.of(read_question(example.question), read)
    found = every_candidate(asking, read, ZERO)
    right = _grader(example)
    return Worked(example, [c.features for c in found], [right(c.text) for c in found])


def _grader(example: Example) -> Any:
    seen: dict[str, bool] = {}

    def right(value: str) -> bool:
        if example.right is None:
            return False
        if value not in seen:
            seen[value] = example.right(value)
        return seen[value]

    return right


def _balanced(chosen: Sequence[Worked]) -> dict[str, float]:
    """A weight per dataset so that each counts as much as the others."""
    sizes: dict[str, int] = defaultdict(int)
    for w in chosen:
        sizes[w.example.dataset] += 1
    return {d: len(chosen) / (len(sizes) * n) for d, n in sizes.items()}


def _fit_ranker(worked: list[Worked], names: list[str], keep: Any) -> Logistic:
    chosen = [w for w in worked if keep(w) and w.answerable and any(w.right)]
    rng = random.Random(0)
    rows, ys, weights = [], [], []
    share = _balanced(chosen)
    for w in chosen:
        wrong = [n for n, ok in enumerate(w.right) if not ok]
        picked = [n for n, ok in enumerate(w.right) if ok] + rng.sample(wrong, min(NEGATIVES, len(wrong)))
        for n in picked:
            rows.append(w.rows[n])
            ys.append(w.right[n])
            weights.append(share[w.example.dataset])
    return fit(names, matrix(rows, names), np.array(ys), np.array(weights))


def _verifier_inputs(w: Worked, ranker: Logistic) -> None:
    read = w.example.sources()
    asking = Asking.of(read_question(w.example.question), read)
    ranked = candidates(asking, read, ranker)[:KEPT]
    right = _grader(w.example)
    w.verifier_rows = [verifier_features(asking, read, c, ranked) for c in ranked]
    w.verifier_right = [right(c.text) for c in ranked]
    w.verifier_texts = [c.text for c in ranked]


def _fit_verifier(worked: list[Worked], names: list[str], keep: Any) -> Logistic:
    chosen = [w for w in worked if keep(w)]
    share = _balanced(chosen)
    rows = [row for w in chosen for row in w.verifier_rows]
    ys = [ok for w in chosen for ok in w.verifier_right]
    weights = [share[w.example.dataset] for w in chosen for _ in w.verifier_rows]
    return fit(names, matrix(rows, names), np.array(ys), np.array(weights))


def _best(w: Worked, verifier: Logistic, names: list[str]) -> None:
    if not w.verifier_rows:
        w.best = (0.0, False)
        return
    p = probabilities(verifier, matrix(w.verifier_rows, names))
    n = int(np.argmax(p))
    w.best = (float(p[n]), w.verifier_right[n])


def _thresholds(worked: list[Worked]) -> Thresholds:
    by: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for w in worked:
        by[FAMILIES[w.example.dataset]].append(w.best)
    complete = max(_family_threshold(scored) for scored in by.values())
    answerable = [w.best[0] for w in worked if w.answerable]
    return Thresholds(
        complete=round(complete, 4), absent=round(min(lowest_share(answerable, ABSENT_SHARE), complete), 4)
    )


def _family_threshold(scored: list[tuple[float, bool]]) -> float:
    """Where one family's best answers are right >= 95% of the time, or, where no share of them
    is, just above its most probable one: none of that family completes."""
    threshold, _, taken = best_threshold(scored, PRECISION)
    return threshold if taken else min(1.0, max((p for p, _ in scored), default=0.0) + 1e-4)


def measured(worked: list[Worked], thresholds: Thresholds) -> dict[str, Any]:
    """Per dataset, on held-out folds: complete, right, precision, false not stated."""
    out: dict[str, Any] = {}
    for dataset in dict.fromkeys(w.example.dataset for w in worked):
        found = [w for w in worked if w.example.dataset == dataset]
        complete = [w for w in found if w.best[0] >= thresholds.complete]
        trusted = sum(w.best[1] for w in complete)
        answerable = [w for w in found if w.answerable]
        absent = [w for w in answerable if w.best[0] < thresholds.absent]
        right = [w for w in answerable if w.best[1] and w.best[0] >= thresholds.absent]
        lower = wilson_lower(trusted, len(complete))
        out[dataset] = {
            "questions": len(found),
            "answerable": len(answerable),
            "complete": len(complete),
            "complete_and_right": trusted,
            "precision": round(trusted / len(complete), 3) if complete else None,
            "precision_lower_95": None if lower is None else round(lower, 3),
            "right_answerable": len(right),
            "false_not_stated": len(absent),
            "not_stated_unanswerable": sum(w.best[0] < thresholds.absent for w in found if not w.answerable),
        }
    return out


def _flat(figures: dict[str, Any]) -> dict[str, Any]:
    return {f"{d}.{k}": v for d, row in figures.items() for k, v in row.items() if v is not None}


def _fitted_on(worked: list[Worked]) -> str:
    sizes: dict[str, int] = defaultdict(int)
    for w in worked:
        sizes[w.example.dataset] += 1
    return "; ".join(f"{d}: {n} questions" for d, n in sizes.items())


def _write(weights: Verifier, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(weights.model_dump_json(indent=1) + "\n", encoding="utf-8")
    log(f"wrote {out}")


def _write_folds(
    worked: list[Worked],
    rankers: dict[str, Logistic],
    verifiers: dict[str, Logistic],
    thresholds: Thresholds,
    folds: Path,
) -> None:
    """Per SQuAD article, the weights fitted without it (bench/agent.py judges it with them)."""
    folds.mkdir(parents=True, exist_ok=True)
    articles = {w.example.group for w in worked if FAMILIES[w.example.dataset] == "squad"}
    for article in sorted(articles):
        path = folds / f"{slug(article)}.json"
        fold = Verifier(fitted=f"every example but {article}'s", ranker=rankers[article],
                        offline=verifiers[article], thresholds=thresholds)  # fmt: skip
        path.write_text(fold.model_dump_json(indent=1) + "\n", encoding="utf-8")
    log(f"wrote {len(articles)} fold files to {folds}")


def _table(report: dict[str, Any]) -> str:
    t = report["thresholds"]
    lines = [f"verifier: complete >= {t['complete']:.3f}, absent < {t['absent']:.3f}",
             f"{'dataset':<14}{'questions':>10}{'answerable':>11}{'complete':>9}{'right':>7}"
             f"{'precision (95% >=)':>20}{'right ans.':>11}{'false not stated':>18}"]  # fmt: skip
    for dataset, f in report["figures"].items():
        precision = "-" if f["precision"] is None else f"{f['precision']:.3f} ({f['precision_lower_95']:.3f})"
        lines.append(
            f"{dataset:<14}{f['questions']:>10}{f['answerable']:>11}{f['complete']:>9}{f['complete_and_right']:>7}"
            f"{precision:>20}{f['right_answerable']:>11}{f['false_not_stated']:>18}"
        )
    lines.append(f"{report['seconds']:.0f} s")
    return "\n".join(lines)


def _progress(items: Sequence[Any], what: str) -> Any:
    started = time.monotonic()
    for n, item in enumerate(items, start=1):
        if n % 250 == 0:
            log(f"{what}: {n}/{len(items)} ({time.monotonic() - started:.0f} s)")
        yield item


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
