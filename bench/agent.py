"""Task success: does a model finish real tasks with Cairn, and at what cost?

Runs every task of `bench/agent_tasks/` (see its README) as `cairn run` runs it (`run_task`, Prefect
in ephemeral mode unless `PREFECT_API_URL` is set), each in a fresh workspace, and reports per task:
complete (the validator's verdict), correct (the expected facts are in the delivered answer, the
benchmark's own tests pass against the code written), iterations, model calls (failed ones
apart), tokens and wall time; then totals and the success rate (complete and correct).

    python bench/agent.py                                  # cairn/offline
    python bench/agent.py --model openai/qwen2.5-coder-1.5b-instruct --tasks question,summary
    python bench/agent.py --json                           # {"tasks": [...], "success_rate": ...}

With the local real model (README, "A real model"), set its environment first (`local-llm.sh env`);
`--record DIR` keeps each task's replies as a cassette, `--keep DIR` its workspace.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "bench" / "agent_tasks"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


class Task(BaseModel):
    name: str
    goal: str
    sources: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    cites: int = 0
    check: str | None = None

    def source_dirs(self) -> list[Path]:
        base = TASKS / self.name
        return [ROOT / s.lstrip("/") if s.startswith("/") else base / s for s in self.sources]


class Outcome(BaseModel):
    task: str
    complete: bool
    correct: bool
    why: str  # what made it incorrect, or "ok"
    iterations: int
    model_calls: int
    failed_model_calls: int
    tokens: int
    usd: float
    seconds: float
    stop_reason: str | None


def load_tasks(names: list[str] | None) -> list[Task]:
    found = {p.parent.name: p for p in sorted(TASKS.glob("*/task.toml"))}
    unknown = sorted(set(names or []) - set(found))
    if unknown:
        raise SystemExit(f"bench/agent.py: unknown task(s) {', '.join(unknown)}; known: {', '.join(found)}")
    chosen = names or list(found)
    return [Task(name=n, **tomllib.loads(found[n].read_text(encoding="utf-8"))) for n in chosen]


def run_one(task: Task, model: str, max_iterations: int, root: Path, record: Path | None) -> Outcome:
    from cairn.flows.agent import run_task
    from cairn.flows.settings import Settings
    from cairn.memory.workspace import Workspace

    workspace = root / task.name
    config = Settings(workspace=workspace).run_config(
        model=model,
        max_iterations=max_iterations,
        record=str(record / f"{task.name}.jsonl") if record else None,
    )
    started = time.monotonic()
    result = run_task(task.goal, config, task_id=task.name, sources=[str(p) for p in task.source_dirs()])
    seconds = time.monotonic() - started
    state = Workspace(workspace).task(task.name).state()
    why = correctness(task, state.report_path, Workspace(workspace).task(task.name).artifacts)
    return Outcome(
        task=task.name,
        complete=result.complete,
        correct=why == "ok",
        why=why,
        iterations=result.iterations,
        model_calls=result.model_calls,
        failed_model_calls=result.failed_model_calls,
        tokens=result.tokens,
        usd=result.usd,
        seconds=round(seconds, 1),
        stop_reason=result.stop_reason,
    )


def correctness(task: Task, report: str | None, artifacts: Path) -> str:
    """ "ok", or what is wrong: a missing fact, too few citations, a failing check."""
    text = (
        Path(report).read_text(encoding="utf-8", errors="replace")
        if report and Path(report).is_file()
        else ""
    )
    if (task.facts or task.cites) and not text:
        return "no answer or report was delivered"
    missing = [fact for fact in task.facts if _plain(fact) not in _plain(text)]
    if missing:
        return f"missing {', '.join(missing)}"
    from cairn.tasks.evidence import cites

    cited = {c for c in cites(text) if c.startswith("source:")}
    if len(cited) < task.cites:
        return f"cites {len(cited)} source files, needs {task.cites}"
    if task.check:
        return _check(TASKS / task.name / task.check, artifacts)
    return "ok"


def _plain(text: str) -> str:
    """Lowercase, thousands separators gone: '1,260,000 m³' and '1260000 m³' read alike."""
    return re.sub(r"(?<=\d)[,\u2009\u202f ](?=\d{3}\b)", "", text.lower())


def _check(check: Path, artifacts: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="cairn-bench-check-") as tmp:
        for item in artifacts.glob("*.py"):
            shutil.copy(item, tmp)
        shutil.copy(check, Path(tmp) / check.name)
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", check.name],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=120,
        )
    if proc.returncode == 0:
        return "ok"
    last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
    return f"the benchmark's tests fail: {last}"


def summary(outcomes: list[Outcome], model: str) -> dict[str, Any]:
    solved = [o for o in outcomes if o.complete and o.correct]
    return {
        "model": model,
        "tasks": [o.model_dump() for o in outcomes],
        "success_rate": round(len(solved) / len(outcomes), 3) if outcomes else 0.0,
        "solved": len(solved),
        "model_calls": sum(o.model_calls for o in outcomes),
        "tokens": sum(o.tokens for o in outcomes),
        "tokens_per_solved_task": round(sum(o.tokens for o in solved) / len(solved)) if solved else None,
        "usd": round(sum(o.usd for o in outcomes), 6),
        "seconds": round(sum(o.seconds for o in outcomes), 1),
    }


def table(outcomes: list[Outcome], totals: dict[str, Any]) -> Table:
    out = Table(title=f"agent benchmark · {totals['model']}", title_justify="left")
    for col in (
        "task",
        "complete",
        "correct",
        "iterations",
        "model calls",
        "tokens",
        "seconds",
        "why / stop",
    ):
        out.add_column(col, justify="left" if col in ("task", "why / stop") else "right", overflow="fold")
    for o in outcomes:
        failed = f" ({o.failed_model_calls} failed)" if o.failed_model_calls else ""
        note = o.why if o.why != "ok" else ("" if o.complete else o.stop_reason or "")
        out.add_row(
            o.task,
            "yes" if o.complete else "no",
            "yes" if o.correct else "no",
            str(o.iterations),
            f"{o.model_calls}{failed}",
            f"{o.tokens:,}",
            f"{o.seconds:.0f}",
            note[:80],
        )
    rate = f"{totals['solved']}/{len(outcomes)} = {totals['success_rate']:.0%}"
    out.add_row(
        "total",
        rate,
        "",
        "",
        str(totals["model_calls"]),
        f"{totals['tokens']:,}",
        f"{totals['seconds']:.0f}",
        "",
    )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=os.environ.get("CAIRN_MODEL", "cairn/offline"))
    parser.add_argument("--tasks", help="comma list of task names (default: all)")
    parser.add_argument("--max-iterations", type=int, default=12)
    parser.add_argument("--record", type=Path, help="a folder for one cassette per task")
    parser.add_argument("--keep", type=Path, help="keep the workspaces in this folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    tasks = load_tasks([t for t in args.tasks.split(",") if t] if args.tasks else None)
    root = args.keep or Path(tempfile.mkdtemp(prefix="cairn-bench-agent-"))
    root.mkdir(parents=True, exist_ok=True)
    if args.record:
        args.record.mkdir(parents=True, exist_ok=True)
    from cairn.flows.preflight import preflight
    from cairn.flows.runtime import prepare
    from cairn.flows.settings import Settings

    prepare(root)  # before Prefect is imported
    preflight(Settings(workspace=root).run_config(model=args.model))
    console = Console(stderr=True)
    outcomes: list[Outcome] = []
    for task in tasks:
        console.print(f"[bold]{task.name}[/]: {task.goal}")
        outcomes.append(run_one(task, args.model, args.max_iterations, root, args.record))
        console.print(
            f"  -> complete {outcomes[-1].complete}, correct {outcomes[-1].correct} ({outcomes[-1].why})"
        )
    totals = summary(outcomes, args.model)
    if args.json:
        print(json.dumps(totals))
    else:
        Console(width=150).print(table(outcomes, totals))
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
