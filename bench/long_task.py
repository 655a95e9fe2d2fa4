"""Long tasks that finish: Cairn on a generated corpus of N services, and on K HumanEval problems
given as one task.

For each N (`--n 50,250,1000`), a seeded corpus of N service notes (prose, Markdown tables, CSV,
JSON, with a correcting memo, a service with no budget and near names) and the goal "Summarise,
for every service described in the corpus, the team that owns it and its p95 latency budget."
Cairn runs it as `cairn run` does (`run_task`, a fresh workspace per run); its report's `## Ledger`
table is scored against the truth: rows right, wrong and missing, precision and recall. Beside
them: iterations, tokens, wall seconds, and Cairn's own seconds per iteration (wall time less the
model's, from the task's history) at iterations 1, 5, 50, 100 and 200, and how they grew. A report
without a ledger table delivered nothing: no row is guessed from prose.

`--humaneval K` adds the long coding task: HumanEval's first K problems (from `--offset`) as one
module, each graded by its own hidden tests, beside the baseline (the same model asked each
problem in turn; left out with `cairn/offline` or `--no-baseline`).

    python bench/long_task.py                                  # N = 50, cairn/offline
    python bench/long_task.py --n 50,250,1000 --batch 4 --json
    python bench/long_task.py --n 50 --humaneval 10 --model openai/qwen2.5-coder-1.5b-instruct
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from long_suites import humaneval_one, library, report  # noqa: E402
from long_suites.corpus import GOAL, MIN_N, write_corpus  # noqa: E402
from long_suites.grade import Score, parse_ledger, score  # noqa: E402
from long_suites.timing import iteration_times, own_time_summary  # noqa: E402


class CairnRun(BaseModel):
    """One Cairn run of the bench: how the task ended, what it cost, and how its time went."""

    task_id: str
    status: str | None = None
    stop_reason: str | None = None
    iterations: int = 0
    model_calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    report_path: str | None = None
    own: dict[str, Any] = {}
    error: str | None = None  # the run raised: what, in one line


class CorpusOutcome(BaseModel):
    n: int
    run: CairnRun
    score: Score


def run_cairn(goal: str, args: argparse.Namespace, workspace: Path, task_id: str, **kwargs: Any) -> CairnRun:
    """One task, run as `bench/agent.py` runs it; an exception is recorded, never raised."""
    from cairn.flows.settings import Settings

    started = time.monotonic()
    found = CairnRun(task_id=task_id)
    try:
        config = Settings(workspace=workspace).run_config(
            model=args.model, max_iterations=args.max_iterations, read_batch=args.batch
        )
        from cairn.flows.prefect.flow import run_task  # Prefect, once the configuration holds

        result = run_task(goal, config, task_id=task_id, **kwargs)
        found = found.model_copy(update=_result_fields(result))
    except Exception as exc:  # one run's failure is a row of the bench, not its end
        first = str(exc).splitlines()[0] if str(exc) else ""
        found = found.model_copy(update={"error": f"{type(exc).__name__}: {first}"[:200]})
    history = workspace / "tasks" / task_id / "history.jsonl"
    own = own_time_summary(iteration_times(history)) if history.is_file() else {}
    return found.model_copy(update={"seconds": round(time.monotonic() - started, 1), "own": own})


def _result_fields(result: Any) -> dict[str, Any]:
    return {
        "status": result.status,
        "stop_reason": result.stop_reason,
        "iterations": result.iterations,
        "model_calls": result.model_calls,
        "tokens": result.tokens,
        "report_path": result.report_path,
    }


def run_corpus(n: int, args: argparse.Namespace, root: Path) -> CorpusOutcome:
    """Write the corpus of N, run Cairn on it, and score the ledger its report delivers."""
    corpus = root / f"corpus-{n}"
    truth = write_corpus(corpus, n, args.seed)
    # The truth stays outside the corpus folder, which is all Cairn may read.
    (root / f"truth-{n}.json").write_text(json.dumps([t.model_dump() for t in truth], indent=1), "utf-8")
    run = run_cairn(GOAL, args, root / f"cairn-{n}", f"long-{n}", sources=[str(corpus)])
    return CorpusOutcome(n=n, run=run, score=score(parse_ledger(_report_text(run)), truth))


def _report_text(run: CairnRun) -> str:
    path = Path(run.report_path) if run.report_path else None
    return path.read_text(encoding="utf-8", errors="replace") if path and path.is_file() else ""


def run_humaneval(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """K HumanEval problems as one Cairn task, each graded by its hidden tests; the baseline beside it."""
    from agent_suites import humaneval

    chosen = humaneval_one.problems(args.humaneval, args.offset)
    prompts = [task.baseline_prompt for task in humaneval.load(len(chosen), args.offset)]
    coding = run_coding(args, root, chosen, humaneval_one.goal(chosen), prompts, f"humaneval-{len(chosen)}")
    return {"k": len(chosen), "offset": args.offset, **coding}


def run_library(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """The generated library of N functions (`long_suites.library`) as one Cairn task, each function
    graded by its hidden cases; the baseline asks for each function alone."""
    chosen = library.library(args.library, args.seed)
    prompts = [library_prompt(p) for p in chosen]
    coding = run_coding(args, root, chosen, library.goal(chosen), prompts, f"library-{len(chosen)}")
    return {"k": len(chosen), "seed": args.seed, **coding}


def library_prompt(problem: dict[str, Any]) -> str:
    """The baseline's prompt for one library function: HumanEval's words, its helpers and stub."""
    return (
        "Complete this Python function. Reply with the whole function, its imports included, in one "
        f"fenced code block.\n\n```python\n{problem['prompt']}```"
    )


def run_coding(
    args: argparse.Namespace,
    root: Path,
    chosen: list[dict[str, Any]],
    goal: str,
    prompts: list[str],
    task_id: str,
) -> dict[str, Any]:
    """One coding goal over `chosen` as one Cairn task, each problem graded by its hidden tests."""
    workspace = root / f"cairn-{task_id}"
    run = run_cairn(goal, args, workspace, task_id, task_type="coding_task")
    artifacts = workspace / "tasks" / task_id / "artifacts"
    cairn = humaneval_one.grade_all(chosen, artifacts)
    baseline = (
        _baseline(chosen, prompts, args, root / f"baseline-{task_id}") if _with_baseline(args) else None
    )
    return {
        "cairn": {"run": run.model_dump(), "problems": [r.model_dump() for r in cairn]},
        "baseline": baseline,
    }


def _with_baseline(args: argparse.Namespace) -> bool:
    return not args.no_baseline and not args.model.startswith("cairn/")  # the offline model asks nothing


def _baseline(
    chosen: list[dict[str, Any]], prompts: list[str], args: argparse.Namespace, root: Path
) -> dict[str, Any]:
    """Each problem asked in turn with its own prompt, graded as Cairn's module is."""
    from agent_suites.common import ask_plainly, code_blocks

    results, tokens, seconds = [], 0, 0.0
    for problem, prompt in zip(chosen, prompts, strict=True):
        reply = ask_plainly(args.model, prompt, timeout=args.timeout)
        folder = root / str(problem["task_id"]).replace("/", "-").lower()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / humaneval_one.MODULE).write_text(code_blocks(reply.text)[0], encoding="utf-8")
        graded = humaneval_one.grade_one(problem, folder)
        results.append(graded.model_copy(update={"why": reply.error}) if reply.error else graded)
        tokens, seconds = tokens + reply.tokens, seconds + reply.seconds
    return {"problems": [r.model_dump() for r in results], "tokens": tokens, "seconds": round(seconds, 1)}


def sizes(text: str) -> list[int]:
    """`--n`'s comma list of corpus sizes, each at least the generator's minimum.

    >>> sizes("50,250, 1000")
    [50, 250, 1000]
    """
    try:
        found = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma list of whole numbers: {text!r}") from None
    if not found or min(found) < MIN_N:
        raise argparse.ArgumentTypeError(f"each size must be at least {MIN_N}: {text!r}")
    return found


def batch(text: str) -> int:
    """`--batch`: sources a coverage goal reads per iteration (RunConfig.read_batch), to force a
    long run of small iterations.

    >>> batch("2")
    2
    """
    value = int(text)
    if not 1 <= value <= 10_000:  # RunConfig.read_batch's range
        raise argparse.ArgumentTypeError(f"--batch takes 1 to 10000, not {value}")
    return value


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=sizes, default=[50], help="corpus sizes, a comma list (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="the corpus generator's seed")
    parser.add_argument("--model", default=os.environ.get("CAIRN_MODEL", "cairn/offline"))
    parser.add_argument("--max-iterations", type=int, help="Cairn's cap (default: Cairn's own)")
    parser.add_argument("--batch", type=batch, help="sources read per iteration (RunConfig.read_batch)")
    parser.add_argument("--humaneval", type=int, metavar="K", help="also K HumanEval problems as one task")
    parser.add_argument("--offset", type=int, default=0, help="--humaneval: skip this many problems first")
    parser.add_argument(
        "--library",
        type=int,
        metavar="N",
        help="also a generated library of N functions as one task (--seed)",
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="the baseline's request timeout (s)")
    parser.add_argument("--no-baseline", action="store_true", help="--humaneval: run Cairn only")
    parser.add_argument("--no-corpus", action="store_true", help="run only --humaneval and --library")
    parser.add_argument("--keep", type=Path, help="keep corpora, truths and workspaces in this folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="cairn-bench-long-"))
    root.mkdir(parents=True, exist_ok=True)
    from cairn.flows.loop.preflight import preflight
    from cairn.flows.runtime import prepare
    from cairn.flows.settings import Settings

    prepare(root)  # before Prefect is imported
    preflight(Settings(workspace=root).run_config(model=args.model))
    console = Console(stderr=True)
    corpora: list[CorpusOutcome] = []
    for n in [] if args.no_corpus else args.n:
        console.print(f"[bold]N = {n}[/]: {GOAL}")
        corpora.append(run_corpus(n, args, root))
        console.print(f"  {report.one_line(corpora[-1].model_dump())}")
    coding = run_humaneval(args, root) if args.humaneval else None
    written = run_library(args, root) if args.library else None
    out = {"model": args.model, "seed": args.seed, "root": str(root) if args.keep else None}
    out |= {"corpus": [c.model_dump() for c in corpora], "humaneval": coding, "library": written}
    if args.json:
        print(json.dumps(out))
    else:
        report.print_tables(out, Console(width=180))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
