"""The long-task bench's tables, drawn from its JSON result (so `--json` and the tables agree)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from long_suites.timing import MARKS


def print_tables(out: dict[str, Any], console: Console) -> None:
    """Every table the result has: the corpus runs, their own time, their traps, the coding task."""
    title = f"{out['model']} · seed {out['seed']}"
    if out["corpus"]:
        console.print(corpus_table(out["corpus"], f"long corpus · {title}"))
        console.print(own_table(out["corpus"]))
        console.print(traps_table(out["corpus"]))
    if out.get("humaneval"):
        console.print(humaneval_table(out["humaneval"], f"HumanEval as one task · {title}"))
    if out.get("library"):
        console.print(humaneval_table(out["library"], f"generated library as one task · {title}"))
    if out.get("root"):
        console.print(f"kept in {out['root']}")


def one_line(outcome: dict[str, Any]) -> str:
    """A run's progress line: rows right of the truth, and how the task ended.

    >>> one_line({"n": 50, "score": {"right": 3, "wrong": 1, "truth": 50},
    ...           "run": {"status": "incomplete", "stop_reason": "not_stated", "error": None}})
    'right 3/50, wrong 1; incomplete (not_stated)'
    """
    score, run = outcome["score"], outcome["run"]
    ended = f"error: {run['error']}" if run["error"] else f"{run['status']} ({run['stop_reason']})"
    return f"right {score['right']}/{score['truth']}, wrong {score['wrong']}; {ended}"


def corpus_table(runs: list[dict[str, Any]], title: str) -> Table:
    columns: tuple[str, ...] = ("N", "right", "wrong", "missing", "precision", "recall", "iterations")
    columns += ("tokens", "seconds")
    columns += ("own@5 s", "own@200 s", "200/5", "status", "stop reason")
    table = _table(title, columns, left={"status", "stop reason"})
    for outcome in runs:
        s, run = outcome["score"], outcome["run"]
        own = run["own"].get("own_s", {}) if run["own"] else {}
        table.add_row(
            str(outcome["n"]),
            str(s["right"]),
            str(s["wrong"]),
            str(s["missing"]),
            _num(s["precision"], 3),
            _num(s["recall"], 3),
            str(run["iterations"]),
            f"{run['tokens']:,}",
            f"{run['seconds']:.0f}",
            _num(own.get("5"), 2),
            _num(own.get("200"), 2),
            _num(run["own"].get("ratio_200_5") if run["own"] else None, 2),
            "error" if run["error"] else str(run["status"]),
            (run["error"] or run["stop_reason"] or "")[:60],
        )
    return table


def own_table(runs: list[dict[str, Any]]) -> Table:
    """Cairn's own seconds per iteration at the marks reached, the last, and the growth ratios."""
    columns = ("N", "iterations", *(f"@{m}" for m in MARKS), "last", "200/5", "last/5")
    table = _table("Cairn's own seconds per iteration (wall less model)", columns, left=set())
    for outcome in runs:
        own = outcome["run"]["own"] or {}
        marks = own.get("own_s", {})
        last = own.get("last")
        table.add_row(
            str(outcome["n"]),
            str(last if last is not None else 0),
            *(_num(marks.get(str(m)), 2) for m in MARKS),
            _num(own.get("own_last_s"), 2),
            _num(own.get("ratio_200_5"), 2),
            _num(own.get("ratio_last_5"), 2),
        )
    return table


def traps_table(runs: list[dict[str, Any]]) -> Table:
    """Whether each distractor's rows came out right, and what the wrong rows got wrong."""
    columns = ("N", "delivered", "memo's correction", "not given", "near names", "wrong rows", "e.g.")
    table = _table("distractors", columns, left={"wrong rows", "e.g."})
    for outcome in runs:
        s = outcome["score"]
        traps = s["distractors"]
        table.add_row(
            str(outcome["n"]),
            str(s["delivered"]),
            _yes(traps.get("corrected")),
            _yes(traps.get("not_given")),
            _yes(traps.get("near_name")),
            ", ".join(f"{k} {v}" for k, v in sorted(s["wrong_reasons"].items())) or "-",
            (s["examples"] or ["-"])[0][:70],
        )
    return table


def humaneval_table(coding: dict[str, Any], title: str) -> Table:
    """Per problem: Cairn's one module and the baseline's answer to it, pass or fail; then totals."""
    cairn = coding["cairn"]
    baseline = coding["baseline"]
    columns = ("problem", "function", "cairn", "baseline", "why (cairn)")
    table = _table(title, columns, left={"problem", "function", "why (cairn)"})
    theirs = baseline["problems"] if baseline else [None] * len(cairn["problems"])
    for mine, other in zip(cairn["problems"], theirs, strict=True):
        table.add_row(
            mine["task_id"],
            mine["entry_point"],
            _pass(mine["passed"]),
            _pass(other["passed"]) if other else "-",
            mine["why"][:60],
        )
    run = cairn["run"]
    passed = sum(p["passed"] for p in cairn["problems"])
    base = f"{sum(p['passed'] for p in theirs if p)}/{len(theirs)}" if baseline else "-"
    table.add_row("total", "", f"{passed}/{len(cairn['problems'])}", base, "")
    table.add_row("tokens", "", f"{run['tokens']:,}", f"{baseline['tokens']:,}" if baseline else "-", "")
    table.add_row(
        "seconds", "", f"{run['seconds']:.0f}", f"{baseline['seconds']:.0f}" if baseline else "-", ""
    )
    ended = run["error"] or f"{run['status']} ({run['stop_reason']}), {run['iterations']} iterations"
    table.add_row("cairn ended", "", "", "", ended[:60])
    table.add_row("model calls", "", f"{run['model_calls']}", f"{len(theirs)}" if baseline else "-", "")
    own = run["own"] or {}
    marks = ", ".join(f"@{i} {s:.2f}" for i, s in own.get("own_s", {}).items())
    table.add_row("cairn own s", "", "", "", f"{marks or '-'}; last {_num(own.get('own_last_s'), 2)}")
    return table


def _table(title: str, columns: tuple[str, ...], left: set[str]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, justify="left" if column in left else "right", overflow="fold")
    return table


def _num(value: float | None, places: int) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def _yes(value: bool | None) -> str:
    return "-" if value is None else "right" if value else "not right"


def _pass(value: bool) -> str:
    return "pass" if value else "fail"
