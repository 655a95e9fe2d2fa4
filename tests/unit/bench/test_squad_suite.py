"""`bench/agent.py --suite squad|squad-removed`: SQuAD's grading re-implemented, each question's
folder of five paragraphs, the suite's order, what Cairn's deliverable and the baseline's reply
state, the totals they give, the fold weights, and one `--fast` run."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from agent_suites import squad, tally  # noqa: E402
from agent_suites.common import Outcome  # noqa: E402


def _agent() -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_agent", ROOT / "bench" / "agent.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _qa(qid: str, question: str, answers: list[str]) -> dict[str, Any]:
    return {
        "id": qid,
        "question": question,
        "is_impossible": not answers,
        "answers": [{"text": a, "answer_start": 0} for a in answers],
    }


def _data(tmp_path: Path) -> Path:
    """Two made-up articles of eight paragraphs: 6 answerable and 4 unanswerable questions."""
    articles = []
    for title, start in (("Lighthouses of Vell", 0), ("The Orrin canal", 3)):
        paragraphs: list[dict[str, Any]] = [
            {"context": f"{title}, paragraph {n}: the keeper number {n} lit lamp {n}.", "qas": []}
            for n in range(8)
        ]
        for k in range(3):
            qid = f"{start + k:03d}-answer-{k}"
            paragraphs[k]["qas"].append(_qa(qid, f"Which lamp did keeper {k} light?", [f"lamp {k}"]))
        for k in range(2):
            paragraphs[k + 3]["qas"].append(
                _qa(f"{start + k:03d}-none-ab-{k}", f"Which lamp did keeper {k + 9} light?", [])
            )
        articles.append({"title": title, "paragraphs": paragraphs})
    path = tmp_path / "squad.json"
    path.write_text(json.dumps({"version": "v2.0", "data": articles}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("The Normans", "normans"),
        ("  an Apple,  a pear!  ", "apple pear"),
        ("Theatre of the absurd", "theatre of absurd"),  # "the" as a word only
        ("U.S.-based", "usbased"),
    ],
)
def test_normalise_drops_case_punctuation_and_articles(text: str, normal: str) -> None:
    assert squad.normalise(text) == normal


@pytest.mark.parametrize(
    ("answer", "gold", "score"),
    [
        ("the lamp", "Lamp", 1.0),
        ("keeper lit lamp", "lamp", 0.5),  # precision 1/3, recall 1
        ("red red lamp", "red lamp", 0.8),  # tokens counted as a multiset
        ("north tower", "south gate", 0.0),
        ("", "", 1.0),
        ("the", "lamp", 0.0),  # nothing left of the answer
    ],
)
def test_f1_counts_shared_tokens(answer: str, gold: str, score: float) -> None:
    assert squad.f1(answer, gold) == pytest.approx(score)


def test_an_answer_is_right_at_an_exact_match_or_f1_of_a_half_against_any_gold() -> None:
    assert squad.right("The lamp.", ["lamp", "the old lamp"])
    assert squad.right("keeper lit lamp", ["lamp"])  # F1 0.5
    assert not squad.right("keeper lit the small lamp", ["lamp"])  # F1 0.4
    answered = squad.graded(squad.Said(stated="proven", value="old lamp"), ["lamp", "the old lamp"])
    assert answered.correct and answered.score == 1.0 and answered.stated == "proven"
    silent = squad.graded(squad.Said(stated="not_stated"), ["lamp"])
    assert not silent.correct and silent.score == 0.0
    assert squad.graded(squad.Said(stated="not_stated"), []).correct
    assert squad.graded(squad.Said(stated="none"), []).score == 1.0
    wrong = squad.graded(squad.Said(stated="unverified", value="lamp"), [])
    assert not wrong.correct and wrong.score == 0.0 and wrong.value == "lamp"


def _files(folder: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())]


def test_a_questions_folder_holds_its_paragraph_once_among_five_of_its_article(tmp_path: Path) -> None:
    data = _data(tmp_path)
    tasks = squad.load(data, None, 0, tmp_path / "a", seed=0)
    assert len(tasks) == 10
    for task in tasks:
        (folder,) = task.sources
        assert folder == tmp_path / "a" / "squad" / task.name
        names = sorted(p.name for p in folder.iterdir())
        assert names == [f"paragraph-0{n}.md" for n in range(1, 6)]
        texts = _files(folder)
        assert all(t.endswith(".\n") and t.count("\n") == 1 for t in texts)
        assert all(t.startswith(task.group or "?") for t in texts)  # all of its own article
        keeper = task.goal.split()[4]
        own = [t for t in texts if f"keeper number {keeper} " in t]
        assert len(own) == (1 if task.kind == "answerable" else 0)  # no keeper 9 or 10 anywhere


def test_the_own_paragraph_is_not_always_first_and_the_folders_are_seeded(tmp_path: Path) -> None:
    data = _data(tmp_path)
    questions = [q for q in squad.questions(data) if q.answerable]
    places = {squad.files(q, 0).index(q.own) for q in questions}
    assert len(places) > 1
    assert [squad.files(q, 0) for q in questions] == [squad.files(q, 0) for q in questions]
    assert [squad.files(q, 0) for q in questions] != [squad.files(q, 1) for q in questions]
    first = squad.load(data, None, 0, tmp_path / "x", seed=0)
    again = squad.load(data, None, 0, tmp_path / "y", seed=0)
    assert [_files(t.sources[0]) for t in first] == [_files(t.sources[0]) for t in again]


def test_the_removed_variant_swaps_the_own_paragraph_for_another(tmp_path: Path) -> None:
    data = _data(tmp_path)
    for q in (q for q in squad.questions(data) if q.answerable):
        kept, removed = squad.files(q, 0), squad.files(q, 0, removed=True)
        assert q.own in kept and q.own not in removed and len(set(removed)) == 5
        assert [k == r for k, r in zip(kept, removed, strict=True)].count(False) == 1
    tasks = squad.load(data, None, 0, tmp_path / "r", seed=0, removed=True)
    assert len(tasks) == 6 and {t.kind for t in tasks} == {"removed"}
    for task in tasks:
        assert task.name.startswith("squad-removed-")
        assert not any(f"keeper number {task.goal.split()[4]} " in t for t in _files(task.sources[0]))
        assert task.grade("", task.sources[0]).correct  # no answer: right
        assert not task.grade(f"{task.goal} lamp 1.", task.sources[0]).correct


def test_the_suite_alternates_answerable_and_unanswerable_across_articles(tmp_path: Path) -> None:
    data = _data(tmp_path)
    tasks = squad.load(data, None, 0, tmp_path, seed=0)
    kinds = [t.kind for t in tasks]
    assert kinds[:8] == ["answerable", "unanswerable"] * 4 and kinds[8:] == ["answerable"] * 2
    assert {t.group for t in tasks} == {"Lighthouses of Vell", "The Orrin canal"}
    assert all(t.name == f"squad-{t.name[6:16]}" and len(t.name) == 16 for t in tasks)
    assert [t.name for t in squad.load(data, 3, 2, tmp_path, seed=0)] == [t.name for t in tasks[2:5]]
    other = squad.load(data, None, 0, tmp_path, seed=1)
    assert sorted(t.name for t in other) == sorted(t.name for t in tasks)
    removed = squad.load(data, None, 0, tmp_path, seed=0, removed=True)
    assert [t.name.removeprefix("squad-removed-") for t in removed] == [
        t.name.removeprefix("squad-") for t in tasks if t.kind == "answerable"
    ]


def test_the_real_suite_is_half_unanswerable_in_any_even_prefix() -> None:
    if not squad.DEV.is_file():
        pytest.skip("no SQuAD 2.0 data here")
    ordered = squad.ordered(squad.questions(squad.DEV), 0)
    assert len(ordered) == 2170 and sum(not q.answerable for q in ordered) == 1108
    assert sum(not q.answerable for q in ordered[:40]) == 20
    assert len({q.title for q in ordered[:40]}) > 3  # across the articles
    answerable = [q for q in ordered if q.answerable][:200]
    firsts = sum(squad.files(q, 0)[0] == q.own for q in answerable)
    assert 10 < firsts < 80  # about one in five, not always


Q = "Who ruled the duchy of Normandy?"


@pytest.mark.parametrize(
    ("deliverable", "stated", "value"),
    [
        (f"{Q} Richard I.", "proven", "Richard I"),
        (f"{Q} Richard I (source:squad-1/paragraph-02.md:1).", "proven", "Richard I"),
        (
            f"> **Unverified**: stopped.\n\n{Q} Unverified: Richard I.\n\n## Proof\n- x",
            "unverified",
            "Richard I",
        ),
        (f"{Q} The files read do not say.", "not_stated", ""),
        (f"{Q} The files read do not say.\n\n## Proof\n- paragraph-01.md:1 says Rollo.", "not_stated", ""),
        ("Who ruled the duchy of Normandy Richard I.", "proven", "Richard I"),  # no question mark
        ('"Richard I".', "proven", "Richard I"),  # older: the value alone
        ("**Richard I** [source: squad-1/paragraph-02.md].", "proven", "Richard I"),
        ("> **Unverified**: stopped.\n\nRichard I.", "unverified", "Richard I"),
        (f"The files read do not say: {Q}", "not_stated", ""),
        ("", "none", ""),
        ("> **Unverified**: stopped before an answer.\n", "none", ""),
        (
            f"{Q} The lines read give several answers: Rollo (p.md:1); Richard (q.md:2).",
            "unverified",
            "Rollo; Richard",
        ),
    ],
)
def test_said_reads_every_format_of_cairns_answer(deliverable: str, stated: str, value: str) -> None:
    assert squad.said(deliverable, Q) == squad.Said(stated=stated, value=value)  # type: ignore[arg-type]


def test_said_reads_a_question_split_in_two_as_one_answer() -> None:
    question = "What family distilled brandy and were Huguenots?"
    nothing = (  # as `--fast` writes it today: the question, then the offline model's list
        f"{question} - What family distilled brandy The files read do not say: x?\n"
        "- were Huguenots? The files read do not say: y?"
    )
    assert squad.said(nothing, question).stated == "not_stated"
    one = "- What family distilled brandy The Joubert family.\n- were Huguenots? The files read do not say."
    assert squad.said(one, question) == squad.Said(stated="proven", value="The Joubert family")


@pytest.mark.parametrize(
    ("reply", "stated", "value"),
    [
        ("Richard I", "unverified", "Richard I"),
        ("  Richard I.\nHe ruled from 942.", "unverified", "Richard I"),
        ("The files do not state who ruled it.", "not_stated", ""),
        ("This is not mentioned in the paragraphs.", "not_stated", ""),
        ("The text doesn't mention a ruler.", "not_stated", ""),
        ("There is no information about that.", "not_stated", ""),
        ("It cannot be determined from the files.", "not_stated", ""),
        ("The answer is not provided.", "not_stated", ""),
        ("NOT STATED", "not_stated", ""),
        ("", "none", ""),
    ],
)
def test_the_baselines_reply_says_a_value_or_that_the_files_do_not(
    reply: str, stated: str, value: str
) -> None:
    assert squad.said_plainly(reply) == squad.Said(stated=stated, value=value)  # type: ignore[arg-type]


def test_the_baseline_gets_the_five_files_and_the_question_and_is_graded_plainly(tmp_path: Path) -> None:
    (task, unanswerable) = squad.load(_data(tmp_path), 2, 0, tmp_path, seed=0)
    prompt = task.baseline_prompt
    folder = task.sources[0].name  # named as Cairn names its source, so both requests can be the same
    assert [line for line in prompt.splitlines() if line.startswith("===")] == [
        f"=== source:{folder}/paragraph-0{n}.md ===" for n in range(1, 6)
    ]
    assert f"Question: {task.goal}\nAnswer with the shortest phrase from the files" in prompt
    assert prompt.endswith("If the files do not state it, say so.")
    assert task.grade_baseline is not None and unanswerable.grade_baseline is not None
    gold = task.goal.split()[4]
    assert task.grade_baseline(f"Lamp {gold}.", tmp_path).correct
    assert not task.grade_baseline("The files do not say.", tmp_path).correct
    assert unanswerable.grade_baseline("The paragraphs do not mention keeper 9.", tmp_path).correct
    assert not unanswerable.grade_baseline("lamp 9", tmp_path).correct


def _outcome(name: str, kind: str, complete: bool, correct: bool, stated: str | None) -> Outcome:
    return Outcome(task=name, side="cairn", complete=complete, correct=correct, kind=kind, stated=stated)  # type: ignore[arg-type]


def test_the_totals_count_what_the_answers_said() -> None:
    runs = [
        _outcome("a", "answerable", True, True, "proven"),
        _outcome("b", "answerable", False, True, "unverified"),
        _outcome("c", "answerable", False, False, "not_stated"),
        _outcome("d", "answerable", True, False, "proven"),
        _outcome("e", "unanswerable", False, True, "not_stated"),
        _outcome("f", "unanswerable", True, False, "proven"),
    ]
    found = tally.totals(runs)
    assert {
        k: found[k] for k in ("complete_and_right", "false_not_stated", "right_unverified", "answerable")
    } == {
        "complete_and_right": 1,
        "false_not_stated": 1,
        "right_unverified": 1,
        "answerable": 4,
    }
    assert (
        found["complete_and_right_share"],
        found["right_share_answerable"],
        found["false_not_stated_share"],
    ) == (
        0.25,
        0.5,
        0.25,
    )
    assert found["by_kind"]["unanswerable"]["complete_and_right_share"] is None
    assert found["complete"] == 3 and found["false_complete"] == 2  # the old keys stay
    unread = tally.totals([_outcome("g", "answerable", True, True, None)])
    assert "complete_and_right" not in unread and unread["precision_of_complete"] == 1.0


def test_fold_weights_name_the_articles_file_while_its_task_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "1973-oil-crisis.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv(squad.VERIFIER, "/before.json")
    with squad.fold_weights("1973_oil_crisis", tmp_path) as path:
        assert os.environ[squad.VERIFIER] == str((tmp_path / "1973-oil-crisis.json").resolve()) == str(path)
    assert os.environ[squad.VERIFIER] == "/before.json"
    monkeypatch.delenv(squad.VERIFIER)
    with pytest.raises(RuntimeError), squad.fold_weights("1973_oil_crisis", tmp_path):
        assert squad.VERIFIER in os.environ
        raise RuntimeError("a task that failed")
    assert squad.VERIFIER not in os.environ
    with squad.fold_weights("Normans", tmp_path) as path:  # no file: nothing set
        assert path is None and squad.VERIFIER not in os.environ
    with squad.fold_weights(None, tmp_path) as path:
        assert path is None


def test_a_fast_run_of_the_first_questions_reports_what_each_answer_states(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if not squad.DEV.is_file():
        pytest.skip("no SQuAD 2.0 data here")
    _agent().main(["--suite", "squad", "--fast", "--json", "--limit", "4"])
    report = json.loads(capsys.readouterr().out)
    tasks = report["tasks"]
    assert [t["kind"] for t in tasks] == ["answerable", "unanswerable"] * 2
    assert all(
        t["side"] == "cairn" and t["stated"] in ("proven", "unverified", "not_stated", "none") for t in tasks
    )
    totals = report["totals"]["cairn"]
    assert totals["tasks"] == 4 and totals["answerable"] == 2
    for key in ("complete_and_right", "false_not_stated", "right_unverified", "right_share_answerable"):
        assert key in totals


def test_fast_takes_only_the_squad_suites_with_the_offline_model() -> None:
    agent = _agent()
    with pytest.raises(SystemExit, match="--fast"):
        agent.main(["--suite", "locomo", "--fast"])
    with pytest.raises(SystemExit, match="--fast"):
        agent.main(["--suite", "squad", "--fast", "--model", "openai/x"])
    assert agent.ITERATIONS["squad"] == agent.ITERATIONS["squad-removed"] == 4


def test_the_squad_modules_examples_run() -> None:
    import doctest

    for module in (squad, tally, _agent()):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, module.__name__
