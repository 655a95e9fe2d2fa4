"""`bench/long_task.py`'s parts: the seeded corpus and its truth, the ledger's parser and scorer,
Cairn's own time per iteration from a hand-built history, HumanEval as one module, and the script's
command line. No model runs here."""

from __future__ import annotations

import argparse
import csv
import doctest
import io
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse
from rich.console import Console

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from long_suites import corpus, grade, humaneval_one, library, report, timing, wording  # noqa: E402
from long_suites.corpus import MEMO_DATE, TruthRow, build_corpus, write_corpus  # noqa: E402
from long_suites.grade import LedgerRow, parse_ledger, score  # noqa: E402
from long_suites.timing import iteration_times, own_time_summary  # noqa: E402

HEADER = "| service | the team that owns it | its p95 latency budget | source |\n|---|---|---|---|\n"


def _long_task() -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_long_task", ROOT / "bench" / "long_task.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "name", ["corpus", "wording", "grade", "timing", "humaneval_one", "library", "report", "long_task"]
)
def test_the_docstring_examples_run(name: str) -> None:
    modules = {"corpus": corpus, "wording": wording, "grade": grade, "timing": timing, "report": report}
    modules |= {"humaneval_one": humaneval_one, "library": library}
    module = _long_task() if name == "long_task" else modules[name]
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failed == 0


def test_every_library_function_has_helpers_first_and_a_reference_that_passes_its_hidden_cases() -> None:
    for seed in range(5):
        chosen = library.library(20, seed)
        names = [p["entry_point"] for p in chosen]
        assert len(names) == 20 == len(set(names))
        for n, problem in enumerate(chosen):
            helpers = library._BY_NAME[problem["entry_point"]].calls
            assert all(names.index(h) < n for h in helpers)  # a helper comes before its callers
        assert library.graded(chosen[0], library.reference(chosen[0]))
        assert not library.graded(chosen[0], chosen[0]["prompt"])  # a stub fails its hidden cases
    goal = library.goal(library.library(20, 1))
    assert "    return " not in goal.split("```python")[1]  # no reference body is shown


# The generator


def test_the_same_seed_gives_the_same_corpus_and_another_seed_another() -> None:
    assert build_corpus(60, seed=3) == build_corpus(60, seed=3)
    assert build_corpus(60, seed=3).files != build_corpus(60, seed=4).files


@pytest.mark.parametrize("n", [12, 50, 250, 1000])
def test_the_truth_has_n_rows_with_names_the_grader_tells_apart(n: int) -> None:
    truth = build_corpus(n, seed=0).truth
    assert len(truth) == n
    assert len({grade.item_key(row.service) for row in truth}) == n
    assert sum(row.budget_ms is None for row in truth) == 1


def test_a_corpus_smaller_than_its_distractors_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 12"):
        build_corpus(5)


@pytest.mark.parametrize(("n", "seed"), [(12, 0), (13, 4), (50, 1), (1000, 2)])
def test_every_format_is_there_at_every_size(n: int, seed: int) -> None:
    files = build_corpus(n, seed).files
    assert {_format(name, text) for name, text in files.items()} == {"prose", "table", "csv", "json"}


def test_a_lexical_sort_mixes_the_formats() -> None:
    files = build_corpus(250, seed=0).files
    kinds = [_format(name, text) for name, text in sorted(files.items())]
    registers = [k for k in kinds if k in ("table", "csv", "json")]
    runs = sum(1 for a, b in itertools.pairwise(registers) if a != b)
    assert runs >= 3  # not one block per format
    csv_at = [i for i, k in enumerate(kinds) if k == "csv"]
    assert max(csv_at) - min(csv_at) > len(csv_at)  # other files lie between them


def _format(name: str, text: str) -> str:
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".json"):
        return "json"
    return "table" if "| service | owner |" in text else "prose"


def test_every_register_row_agrees_with_the_truth_except_the_corrected_budget() -> None:
    built = build_corpus(100, seed=2)
    truth = {row.service: row for row in built.truth}
    rows = _register_rows(built.files)
    assert len(rows) >= 30
    for service, owner, budget in rows:
        assert truth[service].owner == owner
        if truth[service].kind != "corrected":
            assert truth[service].budget_ms == int(budget)


def _register_rows(files: dict[str, str]) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for name, text in files.items():
        if name.endswith(".json"):
            rows += [(r["service"], r["owner"], str(r["p95_latency_budget_ms"])) for r in json.loads(text)]
        elif name.endswith(".csv"):
            rows += [(r[0], r[1], r[2]) for r in list(csv.reader(io.StringIO(text)))[1:]]
        elif "| service | owner |" in text:
            rows += [
                (r.item, r.owner, r.budget) for r in parse_ledger("## Ledger\n" + text.split("\n\n", 2)[2])
            ]
    return rows


def test_the_memo_corrects_one_budget_and_the_truth_is_the_corrected_value() -> None:
    built = build_corpus(50, seed=0)
    [fixed] = [row for row in built.truth if row.kind == "corrected"]
    memo = built.files[f"memo-{MEMO_DATE}.md"]
    assert memo.startswith(f"# Memo, {MEMO_DATE}")
    stated = re.search(
        rf"budget of {re.escape(fixed.service)} is (\d+) ms, not the (\d+) ms that (\S+) gives", memo
    )
    assert stated, memo
    new, old, where = int(stated.group(1)), stated.group(2), stated.group(3)
    assert new == fixed.budget_ms and int(old) != new
    assert fixed.service in built.files[where] and old in built.files[where]


def test_one_service_has_no_budget_in_any_file() -> None:
    built = build_corpus(50, seed=0)
    [missing] = [row for row in built.truth if row.kind == "not_given"]
    assert missing.budget_ms is None
    naming = [text for text in built.files.values() if re.search(rf"\b{re.escape(missing.service)}\b", text)]
    assert len(naming) == 1
    assert "No p95 latency budget has been agreed" in naming[0]
    assert not re.search(r"\d+ ?ms", naming[0])


def test_two_pairs_of_near_names_with_their_own_owners_and_budgets() -> None:
    truth = build_corpus(50, seed=0).truth
    near = {row.service: row for row in truth if row.kind == "near_name"}
    twins = [name for name in near if name.endswith((" v2", "-api"))]
    assert len(near) == 4 and len(twins) == 2
    for twin in twins:
        base = near[twin.removesuffix(" v2").removesuffix("-api")]
        assert base.owner != near[twin].owner and base.budget_ms != near[twin].budget_ms
    assert any(" " in name.removesuffix(" v2") for name in twins)  # one pair of two-word names


def test_the_unrelated_files_name_no_service(tmp_path: Path) -> None:
    truth = write_corpus(tmp_path, 80, seed=5)
    for name in ("README.md", "minutes-2026-02-17.md", "oncall-handbook.md"):
        text = (tmp_path / name).read_text(encoding="utf-8").lower()
        assert not [row.service for row in truth if re.search(rf"\b{re.escape(row.service)}\b", text)]


# The ledger's parser


def test_the_ledger_table_is_read_however_it_is_spaced() -> None:
    text = (
        "# Services\n\nSome prose about Team Finch.\n\n## Ledger\n\n"
        "|service|team|budget|source|\n| :--- | --- |---:|---|\n"
        "|  ledger sync  |Team Finch|  180 ms |a.md|\n"
        "| billing-api | Team Wren | not given |\n"
        "| a \\| b | Team Tern | 20 | c.md | line 3 |\n\n"
        "| other | table | 1 | x |\n"
    )
    assert parse_ledger(text) == [
        LedgerRow(item="ledger sync", owner="Team Finch", budget="180 ms", source="a.md"),
        LedgerRow(item="billing-api", owner="Team Wren", budget="not given"),
        LedgerRow(item="a | b", owner="Team Tern", budget="20", source="c.md | line 3"),
    ]


def test_a_table_without_a_separator_still_has_its_header_first() -> None:
    rows = parse_ledger("## ledger\n| service | owner | budget |\n| kalo | Team Rook | 40 |\n")
    assert rows == [LedgerRow(item="kalo", owner="Team Rook", budget="40")]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "The ledger sync service is owned by Team Finch; its p95 latency budget is 180 ms.",
        "## Summary\n\n" + HEADER + "| ledger sync | Team Finch | 180 ms | a.md |\n",  # not under Ledger
        "## Ledger\n\nNo rows could be read.\n\n## Sources\n\n" + HEADER + "| x | Team Finch | 1 | a |\n",
    ],
)
def test_no_ledger_table_means_no_rows(text: str) -> None:
    assert parse_ledger(text) == []


# The scorer

TRUTH = [
    TruthRow(service="ledger sync", owner="Team Finch", budget_ms=180, kind="near_name"),
    TruthRow(service="ledger sync v2", owner="Team Wren", budget_ms=240, kind="near_name"),
    TruthRow(service="billing", owner="Team Tern", budget_ms=90),
    TruthRow(service="quirin", owner="Team Godwit", budget_ms=1330, kind="corrected"),
    TruthRow(service="lusor", owner="Team Stint", budget_ms=None, kind="not_given"),
    TruthRow(service="calqui", owner="Team Dipper", budget_ms=175),
]


def test_rows_right_wrong_and_missing_on_a_hand_built_report() -> None:
    rows = parse_ledger(
        "## Ledger\n\n" + HEADER + "| The Ledger-Sync service | finch | 180 | a.md |\n"
        "| ledger sync v2 | Team Finch | 180 ms | a.md |\n"  # the near name given its twin's values
        "| **quirin** | Team Godwit | 1145 ms | b.csv |\n"  # the old budget, before the memo
        "| lusor | Team Stint | not given | c.md |\n"
        "| ledger sync | Team Finch | 180 ms | a.md |\n"  # a second row for one item
        "| billing-api | Team Tern | 90 ms | d.md |\n"  # no such service
    )
    scored = score(rows, TRUTH)
    assert (scored.delivered, scored.right, scored.wrong, scored.missing) == (6, 2, 4, 2)
    assert scored.precision == pytest.approx(2 / 6, abs=1e-3)
    assert scored.recall == pytest.approx(2 / 6, abs=1e-3)
    assert scored.wrong_reasons == {"wrong_both": 1, "wrong_budget": 1, "duplicate": 1, "unknown_item": 1}
    assert scored.distractors == {"corrected": False, "near_name": False, "not_given": True}


@pytest.mark.parametrize(
    ("delivered", "truth"),
    [
        ("The Ledger_Sync Service", "ledger sync"),
        ("`ledger sync v2`", "ledger-sync v2"),
        ("the billing", "billing"),
    ],
)
def test_item_names_are_compared_loosely_but_near_names_stay_apart(delivered: str, truth: str) -> None:
    assert grade.item_key(delivered) == grade.item_key(truth)
    assert grade.item_key(delivered) != grade.item_key(truth + " v2")


def test_an_owner_is_a_team_with_or_without_its_word_or_citation() -> None:
    assert grade.owner_key("Team Finch [source: a.md]") == grade.owner_key("finch") == "finch"
    assert grade.owner_key("Team Finchley") != grade.owner_key("Team Finch")


def test_nothing_delivered_has_no_precision_and_misses_every_row() -> None:
    scored = score([], TRUTH)
    assert (scored.delivered, scored.right, scored.wrong, scored.missing) == (0, 0, 0, 6)
    assert scored.precision is None and scored.recall == 0.0


@pytest.mark.parametrize(
    ("cell", "truth", "matches"),
    [
        ("180 ms", 180, True),
        ("180", 180, True),
        ("1,180 ms", 1180, True),
        ("0.18 s", 180, True),
        ("180 ms (p95)", 180, True),
        ("180 ms [source: corpus-50/a.md:4]", 180, True),
        ("180 ms (a.md)", 180, True),
        ("180 ms, was 200 ms", 180, False),
        ("1800 ms", 180, False),
        ("not given", 180, False),
        ("Not given.", None, True),
        ("0 ms", None, False),
        ("", None, False),
    ],
)
def test_budgets_are_compared_as_milliseconds(cell: str, truth: int | None, matches: bool) -> None:
    assert grade.budget_matches(cell, truth) is matches


def test_a_ledger_written_from_the_truth_scores_full_marks() -> None:
    truth = build_corpus(250, seed=9).truth
    lines = [f"| {r.service} | {r.owner} | {_cell(r.budget_ms)} | x |" for r in truth]
    scored = score(parse_ledger("## Ledger\n\n" + HEADER + "\n".join(lines)), truth)
    assert (scored.right, scored.wrong, scored.missing, scored.precision, scored.recall) == (
        250,
        0,
        0,
        1.0,
        1.0,
    )
    assert all(scored.distractors.values())


def _cell(budget: int | None) -> str:
    return "not given" if budget is None else f"{budget} ms"


# Cairn's own time per iteration


def _history(path: Path, events: list[tuple[float, dict[str, Any]]]) -> Path:
    lines = [
        json.dumps({"seq": seq, "ts": ts, "prev": "", "hash": "", "event": e})
        for seq, (ts, e) in enumerate(events, 1)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _call(key: str, iteration: int, seconds: float) -> dict[str, Any]:
    return {"type": "model_call", "call": {"key": key, "iteration": iteration, "cost": {"seconds": seconds}}}


def test_own_time_is_each_iterations_span_less_its_model_calls(tmp_path: Path) -> None:
    history = _history(
        tmp_path / "history.jsonl",
        [
            (100.0, {"type": "task_created"}),
            (101.0, _call("t/0/0/detect", 0, 1.0)),  # before any iteration: nobody's
            (102.0, {"type": "iteration_started", "iteration": 1}),
            (104.0, _call("t/1/0/plan", 1, 1.5)),
            (105.0, {"type": "iteration_completed", "record": {"iteration": 1}}),
            (107.0, {"type": "validation"}),  # the validation after it is its time too
            (108.0, {"type": "iteration_started", "iteration": 2}),
            (110.0, _call("t/2/0/plan", 2, 1.0)),
            (111.0, _call("t/2/0/plan", 2, 1.0)),  # the same call recorded again counts once
            (112.0, {"type": "iteration_completed", "record": {"iteration": 2}}),
            (114.0, {"type": "task_finished"}),
        ],
    )
    times = [(t.iteration, t.wall_s, t.model_s, t.own_s) for t in iteration_times(history)]
    assert times == [(1, 6.0, 1.5, 4.5), (2, 6.0, 1.0, 5.0)]


def test_the_time_a_task_lay_stopped_before_a_resume_is_nobodys(tmp_path: Path) -> None:
    history = _history(
        tmp_path / "history.jsonl",
        [
            (0.0, {"type": "iteration_started", "iteration": 1}),
            (3.0, {"type": "iteration_completed", "record": {"iteration": 1}}),
            (4.0, {"type": "iteration_started", "iteration": 2}),
            (5.0, {"type": "tool_call"}),  # killed here
            (1000.0, {"type": "model_probed"}),  # resumed much later
            (1001.0, {"type": "iteration_started", "iteration": 2}),
            (1003.0, {"type": "task_finished"}),
        ],
    )
    assert [(t.iteration, t.wall_s) for t in iteration_times(history)] == [(1, 4.0), (2, 3.0)]


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    history = _history(tmp_path / "history.jsonl", [(0.0, {"type": "iteration_started", "iteration": 1})])
    with history.open("a", encoding="utf-8") as out:
        out.write('{"seq": 2, "ts": 5.0, "event": {"type": "task_fin')
    assert [(t.iteration, t.wall_s) for t in iteration_times(history)] == [(1, 0.0)]


def test_the_summary_gives_the_marks_reached_and_how_own_time_grew() -> None:
    times = [timing.IterationTime(iteration=i, wall_s=2.0 + i / 100, model_s=2.0) for i in range(1, 201)]
    summary = own_time_summary(times)
    assert summary["own_s"] == {"1": 0.01, "5": 0.05, "50": 0.5, "100": 1.0, "200": 2.0}
    assert (summary["last"], summary["ratio_200_5"], summary["ratio_last_5"]) == (200, 40.0, 40.0)
    assert own_time_summary([]) == {
        "own_s": {},
        "last": None,
        "own_last_s": None,
        "ratio_200_5": None,
        "ratio_last_5": None,
    }


# HumanEval as one task


def test_the_coding_goal_names_every_function_and_carries_every_prompt() -> None:
    chosen = humaneval_one.problems(3, offset=2)
    text = humaneval_one.goal(chosen)
    assert [p["task_id"] for p in chosen] == ["HumanEval/2", "HumanEval/3", "HumanEval/4"]
    for problem in chosen:
        assert problem["entry_point"] in text.splitlines()[0]
        assert problem["prompt"].strip() in text


def test_each_problem_is_graded_by_its_own_tests_against_the_one_module(tmp_path: Path) -> None:
    chosen = humaneval_one.problems(2)
    right = chosen[0]["prompt"] + chosen[0]["canonical_solution"]
    wrong = f"def {chosen[1]['entry_point']}(paren_string):\n    return []\n"
    (tmp_path / "solution.py").write_text(right + "\n\n" + wrong, encoding="utf-8")
    (tmp_path / "test_solution.py").write_text("def has_close_elements(): ...\n", encoding="utf-8")
    results = humaneval_one.grade_all(chosen, tmp_path)
    assert [r.passed for r in results] == [True, False]
    missing = humaneval_one.grade_one(humaneval_one.problems(1, offset=5)[0], tmp_path)
    assert not missing.passed and missing.why.startswith("no module defines")


# The script


def test_the_script_explains_itself() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "long_task.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for option in (
        "--n",
        "--seed",
        "--model",
        "--max-iterations",
        "--batch",
        "--keep",
        "--json",
        "--humaneval",
    ):
        assert option in done.stdout


@pytest.mark.parametrize("argv", [["--n", "5"], ["--n", "50,x"], ["--batch", "0"]])
def test_bad_arguments_are_refused(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        _long_task().arguments(argv)
    assert refused.value.code == 2


def test_a_run_that_raises_is_a_row_not_the_end(tmp_path: Path) -> None:
    bench = _long_task()
    args = argparse.Namespace(model="cairn/offline", max_iterations=0, batch=None)  # RunConfig refuses 0
    run = bench.run_cairn("goal", args, tmp_path / "ws", "long-50")
    assert run.error and run.status is None and run.own == {}


def test_the_tables_draw_a_run_that_delivered_nothing_and_one_that_failed() -> None:
    empty = score([], TRUTH).model_dump()
    fine = {"task_id": "long-50", "status": "incomplete", "stop_reason": "not_stated", "iterations": 3}
    fine |= {"model_calls": 4, "tokens": 900, "seconds": 12.0, "error": None}
    fine |= {"own": own_time_summary([timing.IterationTime(iteration=1, wall_s=2.0, model_s=1.0)])}
    failed = {**fine, "status": None, "stop_reason": None, "error": "RuntimeError: boom", "own": {}}
    out = {"model": "cairn/offline", "seed": 0, "root": None, "humaneval": None}
    out["corpus"] = [{"n": 50, "run": fine, "score": empty}, {"n": 250, "run": failed, "score": empty}]
    console = Console(width=180, record=True, file=io.StringIO())
    report.print_tables(out, console)
    text = console.export_text()
    assert "not_stated" in text and "RuntimeError: boom" in text and "distractors" in text


class _PlainCoder(CustomLLM):
    """A plain model for the baseline: the reference solution of HumanEval/0, a wrong one otherwise."""

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        prompt = str(messages[-1]["content"])
        [first] = humaneval_one.problems(1)
        if f"def {first['entry_point']}(" in prompt:
            code = first["prompt"] + first["canonical_solution"]
        else:
            code = "def separate_paren_groups(paren_string):\n    return []\n"
        content = f"Here it is:\n```python\n{code}```\n"
        return ModelResponse(
            model=model,
            choices=[
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
            ],
            usage={"prompt_tokens": 50, "completion_tokens": 30, "total_tokens": 80},
        )


def test_the_baseline_asks_each_problem_in_turn_and_is_graded_like_cairn(tmp_path: Path) -> None:
    import litellm

    before = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [*before, {"provider": "plaincoder", "custom_handler": _PlainCoder()}]
    try:
        from agent_suites import humaneval

        args = argparse.Namespace(model="plaincoder/any", offset=0, timeout=30.0)
        prompts = [task.baseline_prompt for task in humaneval.load(2)]
        found = _long_task()._baseline(humaneval_one.problems(2), prompts, args, tmp_path / "baseline")
    finally:
        litellm.custom_provider_map = before
    assert [p["passed"] for p in found["problems"]] == [True, False]
    assert found["tokens"] == 160
    assert (tmp_path / "baseline" / "humaneval-0" / "solution.py").is_file()
