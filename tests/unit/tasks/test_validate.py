"""The completion suites in validators/ judged through tasks.validation, one task type at a time.

Great Expectations takes seconds to import, so the module-scoped `suites` fixture pays that once
(by validating an empty task) and hands every test a private, editable copy of the shipped suites.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cairn.core import Claim, Evidence, EvidenceMetadata, EvidenceType, FunctionCheck, PartCheck
from cairn.tasks.grounding.functions import check_files, named_files
from cairn.tasks.validation import Checked, SuiteError, default_suite_dirs, suite_path, validate

ROWS = "expect_table_row_count_to_be_between"
CODE_DOCS = "documentation (doc file or docstring share >= 0.5)"
TESTS_PASS = "tests pass after the last code change"
EXERCISED = "tests exercise every function the goal names"
FILES = "every file the goal names written"
AGREED = "no second sample of a function disagrees with it"
CLAIMS, PARTS = "every claim supported", "every part of the goal answered"
GROUNDED = Checked(
    claims=[Claim(text="180 ms", kind="figure", status="supported", where="source:d/slo.md")],
    parts=[PartCheck(part="What is the budget?", answered=True, clause="It is 180 ms.")],
)


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> Path:
    validate("general_task", [])  # import GX and create the context once for the whole module
    copy = tmp_path_factory.mktemp("suites") / "validators"
    shutil.copytree(Path(suite_path("general_task")).parent, copy)
    return copy


def ev(kind: EvidenceType, iteration: int = 1, confidence: float = 1.0, **meta: Any) -> Evidence:
    """Evidence whose time follows its iteration, so ordering tests read naturally."""
    return Evidence(
        type=kind,
        content=f"{kind} {iteration} {sorted(meta.items())}",
        source=f"call-{iteration}-0",
        confidence=confidence,
        iteration=iteration,
        timestamp=1_000.0 + iteration,
        metadata=EvidenceMetadata(**meta),
    )


def edit(suites: Path, task_type: str, change: Callable[[dict[str, Any]], None]) -> Path:
    """A user's edited copy of one suite, in its own folder."""
    folder = suites.parent / f"edited-{task_type}"
    folder.mkdir(exist_ok=True)
    data = json.loads((suites / f"{task_type}.json").read_text())
    change(data)
    (folder / f"{task_type}.json").write_text(json.dumps(data))
    return folder


# --- each task type fails with the right missing list, then passes ------------------------------


def test_simple_question_needs_an_answer_written_to_a_file(suites: Path) -> None:
    evidence = [ev("synthesis")]
    verdict = validate("simple_question", evidence, suites_dir=suites, checked=GROUNDED)
    assert (verdict.complete, verdict.missing) == (False, ["answer file written"])
    assert verdict.satisfied == ["answer synthesized", CLAIMS, PARTS]
    assert "missing: answer file written (observed 0 rows, need >= 1)" in verdict.rationale

    written = ev("file_creation", file_type="output")
    verdict = validate("simple_question", [*evidence, written], suites_dir=suites, checked=GROUNDED)
    assert (verdict.complete, verdict.missing) == (True, [])
    assert verdict.satisfied == ["answer synthesized", "answer file written", CLAIMS, PARTS]


def test_research_task_needs_a_document_that_cites_its_sources(suites: Path) -> None:
    evidence = [ev("synthesis"), ev("file_creation", file_type="documentation")]  # no citations
    verdict = validate("research_task", evidence, suites_dir=suites, checked=GROUNDED)
    assert verdict.missing == ["documentation cites its sources"]
    assert verdict.rationale.startswith("3 of 4 requirements met: synthesis recorded (1 row)")

    cited = ev("file_creation", 2, file_type="documentation", cites=["notes/a.md", "notes/b.md"])
    verdict = validate("research_task", [*evidence, cited], suites_dir=suites, checked=GROUNDED)
    assert (verdict.complete, verdict.missing) == (True, [])


def test_general_task_needs_a_result_file_and_evidence(suites: Path) -> None:
    earlier = ev("validation")  # a past verdict is not evidence of progress
    verdict = validate("general_task", [earlier], suites_dir=suites, checked=GROUNDED)
    assert verdict.missing == ["result file written", "evidence recorded"]

    result = ev("file_creation", file_type="output")
    verdict = validate("general_task", [earlier, result], suites_dir=suites, checked=GROUNDED)
    assert (verdict.complete, verdict.satisfied) == (
        True,
        ["result file written", "evidence recorded", CLAIMS, PARTS],
    )


def test_coding_task_needs_code_implementation_and_documentation(suites: Path) -> None:
    green = run_tests(3, passed=2, failed=0)
    evidence = [
        ev("file_creation", file_type="code"),
        ev("code_implementation", documented_share=0.25),
        green,
    ]
    verdict = validate("coding_task", evidence, suites_dir=suites)
    assert verdict.missing == [CODE_DOCS]
    assert verdict.satisfied == [
        "code file created",
        "code implementation evidence",
        TESTS_PASS,
        FILES,
        EXERCISED,
        AGREED,
    ]

    docstrings = ev("code_implementation", 2, documented_share=0.75)
    assert validate("coding_task", [*evidence, docstrings], suites_dir=suites).complete
    readme = ev("file_creation", 2, file_type="documentation")
    assert validate("coding_task", [*evidence, readme], suites_dir=suites).complete


def test_a_coding_task_without_a_file_its_goal_names_is_not_complete(suites: Path) -> None:
    evidence = [ev("file_creation", file_type="code"), ev("code_implementation", documented_share=1.0)]
    evidence.append(run_tests(3, passed=2, failed=0))
    files = check_files(
        named_files("Write add in solution.py, tests in test_solution.py"), {"solution.py"}.__contains__
    )
    verdict = validate("coding_task", evidence, suites_dir=suites, checked=Checked(parts=files))
    assert verdict.missing == [FILES] and not verdict.complete
    assert verdict.unmet == ["test_solution.py is not written"]
    files[1] = PartCheck(part="test_solution.py", answered=True)
    assert validate("coding_task", evidence, suites_dir=suites, checked=Checked(parts=files)).complete


# --- the deliverable's claims and the goal's parts ----------------------------------------------

ANSWERED = [ev("synthesis"), ev("file_creation", file_type="documentation")]


def test_an_unsupported_claim_is_named_and_keeps_the_task_incomplete(suites: Path) -> None:
    invented = Claim(text="6.43 ms", kind="figure", status="unsupported")
    checked = Checked(claims=[*GROUNDED.claims, invented], parts=GROUNDED.parts)
    verdict = validate("simple_question", ANSWERED, suites_dir=suites, checked=checked)
    assert (verdict.complete, verdict.missing) == (False, [CLAIMS])
    assert verdict.unmet == ["6.43 ms is in no file read"]
    assert verdict.confidence == pytest.approx(0.75 * 0.5)  # 3 of 4 requirements x 1 of 2 claims


def test_arithmetic_over_supported_figures_counts_as_supported(suites: Path) -> None:
    worked = Claim(text="150 days", kind="figure", status="computed", where="1260000 / 8400 = 150")
    checked = Checked(claims=[*GROUNDED.claims, worked], parts=GROUNDED.parts)
    verdict = validate("simple_question", ANSWERED, suites_dir=suites, checked=checked)
    assert (verdict.complete, verdict.confidence) == (True, 1.0)


def test_an_unanswered_part_is_named_and_keeps_the_task_incomplete(suites: Path) -> None:
    parts = [*GROUNDED.parts, PartCheck(part="who leads it?", answered=False, why="no name")]
    verdict = validate("research_task", ANSWERED, suites_dir=suites, checked=Checked(GROUNDED.claims, parts))
    assert PARTS in verdict.missing and not verdict.complete
    assert "not answered: who leads it? (no name)" in verdict.unmet


def test_a_task_with_no_parts_checked_is_never_complete(suites: Path) -> None:
    verdict = validate(
        "simple_question", ANSWERED, suites_dir=suites, checked=Checked(claims=GROUNDED.claims)
    )
    assert verdict.missing == [PARTS]


def test_every_named_function_must_be_called_by_the_passing_run(suites: Path) -> None:
    evidence = [*CODE, run_tests(3, passed=2, failed=0)]
    called = FunctionCheck(name="slugify", defined=True, exercised=True, test_run="call-3-1")
    skipped = FunctionCheck(name="helper", defined=True, exercised=False, test_run="call-3-1")
    verdict = validate(
        "coding_task", evidence, suites_dir=suites, checked=Checked(functions=[called, skipped])
    )
    assert verdict.missing == [EXERCISED]
    assert verdict.unmet == ["helper is not called by the passing test run call-3-1"]
    verdict = validate("coding_task", evidence, suites_dir=suites, checked=Checked(functions=[called]))
    assert verdict.complete and verdict.functions == [called]


def test_a_function_two_samples_answer_differently_is_not_complete(suites: Path) -> None:
    evidence = [*CODE, run_tests(3, passed=2, failed=0)]
    split = "find_zero([1, 3]) gives -0.33 here and -3.0 in another sample"
    checked = FunctionCheck(
        name="find_zero", defined=True, exercised=True, test_run="call-3-1", disagreement=split
    )
    verdict = validate("coding_task", evidence, suites_dir=suites, checked=Checked(functions=[checked]))
    assert verdict.missing == [AGREED]
    assert verdict.unmet == [f"find_zero: {split}"]


# --- the conditional tests expectation ----------------------------------------------------------

CODE = [
    ev("file_creation", 2, file_type="code"),
    ev("code_implementation", 2),
    ev("documentation", 2),
]


def run_tests(iteration: int, passed: int, failed: int) -> Evidence:
    return ev("execution", iteration, tool="run_tests", passed=passed, failed=failed)


@pytest.mark.parametrize(
    "runs",
    [
        pytest.param([], id="never-run"),
        pytest.param([run_tests(1, passed=5, failed=0)], id="green-before-last-write"),
        pytest.param([run_tests(1, 5, 0), run_tests(3, passed=4, failed=1)], id="red-after-last-write"),
        pytest.param([run_tests(3, passed=0, failed=0)], id="nothing-collected"),
    ],
)
def test_tests_must_pass_after_the_last_code_change(suites: Path, runs: list[Evidence]) -> None:
    verdict = validate("coding_task", [*CODE, *runs], has_tests=True, suites_dir=suites)
    assert (verdict.complete, verdict.missing) == (False, [TESTS_PASS])


def test_a_green_run_after_the_last_code_change_completes_the_task(suites: Path) -> None:
    runs = [run_tests(3, passed=4, failed=1), run_tests(4, passed=5, failed=0)]
    verdict = validate("coding_task", [*CODE, *runs], has_tests=True, suites_dir=suites)
    assert (verdict.complete, verdict.missing) == (True, [])
    assert f"{TESTS_PASS} (1 row)" in verdict.rationale


def test_code_without_tests_is_not_complete(suites: Path) -> None:
    verdict = validate("coding_task", CODE, has_tests=False, suites_dir=suites)
    assert (verdict.complete, verdict.missing) == (False, [TESTS_PASS])


def test_a_conditional_rule_is_left_out_when_its_flag_is_false(suites: Path) -> None:
    def only_with_tests(data: dict[str, Any]) -> None:
        entry = next(e for e in data["expectations"] if e["meta"]["requirement"] == TESTS_PASS)
        entry["meta"]["when"] = "has_tests"

    folder = edit(suites, "coding_task", only_with_tests)
    verdict = validate("coding_task", CODE, has_tests=False, suites_dir=folder)
    assert verdict.complete
    assert f"not required: {TESTS_PASS} (has_tests is false)" in verdict.rationale


# --- verdict fields -----------------------------------------------------------------------------


def test_confidence_comes_from_the_checks_not_from_evidence_rows(suites: Path) -> None:
    evidence = [ev("synthesis", confidence=0.8), ev("validation", confidence=0.1)]
    verdict = validate("simple_question", evidence, suites_dir=suites, iteration=7, checked=GROUNDED)
    assert verdict.confidence == pytest.approx(3 / 4)  # the file is missing; claims and parts hold
    assert (verdict.suite, verdict.iteration) == ("simple_question", 7)
    again = validate("simple_question", evidence, suites_dir=suites, iteration=7)
    assert again.validation_id == verdict.validation_id != ""


def test_shipped_suites_resolve_without_a_folder() -> None:
    path = suite_path("coding_task")
    assert path.parent in default_suite_dirs() and path.is_file()


# --- users' suites ------------------------------------------------------------------------------


def test_raising_a_threshold_in_an_edited_suite_changes_the_verdict(suites: Path) -> None:
    def stricter(data: dict[str, Any]) -> None:
        docs = next(e for e in data["expectations"] if e["meta"]["requirement"] == CODE_DOCS)
        docs["kwargs"]["row_condition"]["conditions"][1]["parameter"] = 0.9

    evidence = [
        ev("file_creation", file_type="code"),
        ev("code_implementation", documented_share=0.75),
        run_tests(2, passed=1, failed=0),
    ]
    assert validate("coding_task", evidence, suites_dir=suites).complete
    edited = validate("coding_task", evidence, suites_dir=edit(suites, "coding_task", stricter))
    assert edited.missing == [CODE_DOCS]


def test_an_expectation_that_errors_counts_as_missing_with_the_error(suites: Path) -> None:
    def bad_column(data: dict[str, Any]) -> None:
        data["expectations"].append(
            {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "nope"},
             "meta": {"requirement": "answer has a reviewer"}}
        )  # fmt: skip

    folder = edit(suites, "simple_question", bad_column)
    evidence = [ev("synthesis"), ev("file_creation", file_type="output")]
    verdict = validate("simple_question", evidence, suites_dir=folder, checked=GROUNDED)
    assert (verdict.complete, verdict.missing) == (False, ["answer has a reviewer"])
    assert "answer has a reviewer (error: " in verdict.rationale and "nope" in verdict.rationale


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param('{"name": "x", "expectations": [', "not valid JSON", id="truncated-json"),
        pytest.param('{"name": "x", "expectations": []}', "has no expectations", id="empty"),
        pytest.param('{"expectations": [{"type": "expect_magic", "kwargs": {}}]}', "expect_magic", id="type"),
        pytest.param(
            json.dumps({"expectations": [{"type": ROWS, "kwargs": {"min_value": "x"}}]}),
            "min_value",
            id="kwargs",
        ),
        pytest.param(
            json.dumps({"expectations": [{"type": ROWS, "meta": {"when": "monday"}}]}),
            "unknown 'when' flag 'monday'",
            id="when",
        ),
    ],
)
def test_a_broken_suite_gives_a_one_line_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "general_task.json").write_text(text)
    with pytest.raises(SuiteError) as caught:
        validate("general_task", [ev("file_creation")], suites_dir=tmp_path)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert str(tmp_path / "general_task.json") in str(caught.value)


def test_a_broken_conditional_rule_fails_even_when_not_required(suites: Path) -> None:
    def conditional_typo(data: dict[str, Any]) -> None:
        entry = next(e for e in data["expectations"] if e["meta"]["requirement"] == TESTS_PASS)
        entry["meta"]["when"] = "has_tests"
        entry["kwargs"]["min_vlaue"] = 1

    with pytest.raises(SuiteError, match=r"expectation 3 \(expect_table_row_count_to_be_between\)"):
        validate(
            "coding_task", CODE, has_tests=False, suites_dir=edit(suites, "coding_task", conditional_typo)
        )


def test_a_missing_suite_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="no suite for task type 'coding_task'"):
        validate("coding_task", [], suites_dir=tmp_path)
