"""The paraphrased ledger corpus (`bench/long_suites/paraphrased.py`): files that state each field
in words that are not the goal's, in five formats, with its traps and its exact truth; the goal
wordings; the ledger grading of unverified and not given cells; the long suite's tasks and its
verdict. No model runs here."""

from __future__ import annotations

import csv
import doctest
import io
import json
import re
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from agent_suites import long  # noqa: E402
from long_suites import corpus, grade, paraphrased, paraphrases  # noqa: E402
from long_suites.grade import LedgerRow, Truth, parse_ledger, score  # noqa: E402
from long_suites.paraphrased import FORMATS, MEMO_DATE, Corpus, build_paraphrased, goals  # noqa: E402
from long_suites.paraphrases import GIVEN_NAMES, KINDS  # noqa: E402

KIND_NAMES = sorted(KINDS)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_QUANTITY = re.compile(r"(\d+(?:\.\d+)?) (ms|milliseconds|s|seconds|days|weeks)\b")
_SIZES = {"ms": 1, "milliseconds": 1, "s": 1000, "seconds": 1000, "days": 1, "weeks": 7}


@pytest.mark.parametrize("module", [paraphrased, paraphrases, long])
def test_the_docstring_examples_run(module: object) -> None:
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failed == 0


# The generator


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_the_same_seed_gives_the_same_corpus_and_another_seed_another(kind: str) -> None:
    assert build_paraphrased(kind, 80, seed=4) == build_paraphrased(kind, 80, seed=4)
    assert build_paraphrased(kind, 80, seed=4).files != build_paraphrased(kind, 80, seed=5).files
    assert build_paraphrased(kind, 80, seed=4).files != build_paraphrased(kind, 81, seed=4).files


@pytest.mark.parametrize(("kind", "seed"), [(k, s) for k in KIND_NAMES for s in (0, 1, 2)])
def test_every_format_holds_a_good_share_of_the_items_at_250(kind: str, seed: int) -> None:
    built = build_paraphrased(kind, 250, seed)
    per_format = {
        fmt: [item for item, name in built.where.items() if built.formats[name] == fmt] for fmt in FORMATS
    }
    assert {fmt: len(items) >= 25 for fmt, items in per_format.items()} == dict.fromkeys(FORMATS, True)
    registers = [name for name, fmt in built.formats.items() if fmt in ("table", "csv", "json")]
    sizes = [sum(1 for where in built.where.values() if where == name) for name in registers]
    assert all(5 <= size <= 20 for size in sizes), sizes
    singles = [name for name, fmt in built.formats.items() if fmt in ("prose", "front")]
    assert all(sum(1 for where in built.where.values() if where == name) == 1 for name in singles)
    front = [built.files[name] for name in singles if built.formats[name] == "front"]
    assert all(text.startswith("---\n") and "\n---\n" in text[4:] + "\n" for text in front)
    prose = [built.files[name] for name in singles if built.formats[name] == "prose"]
    headed = [text for text in prose if text.startswith("# ")]
    assert 0 < len(headed) < len(prose)  # some under a heading, some named in the first sentence


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_250_items_generate_in_well_under_a_second(kind: str) -> None:
    started = time.perf_counter()
    build_paraphrased(kind, 250, seed=11)
    assert time.perf_counter() - started < 0.5


def test_too_few_items_or_an_unknown_kind_are_refused() -> None:
    with pytest.raises(ValueError, match="at least"):
        build_paraphrased("service", 10)
    with pytest.raises(ValueError, match="no such kind"):
        build_paraphrased("printer", 100)


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_every_item_is_named_in_its_file(kind: str) -> None:
    built = build_paraphrased(kind, 250, seed=3)
    for row in built.truth:
        assert row.item.lower() in built.files[built.where[row.item]].lower(), row.item


@pytest.mark.parametrize(("kind", "seed"), [(k, s) for k in KIND_NAMES for s in (0, 7)])
def test_no_file_uses_a_goal_word_for_either_field(kind: str, seed: int) -> None:
    spec = KINDS[kind]
    built = build_paraphrased(kind, 250, seed)
    banned = [spec.forbidden(spec.name), spec.forbidden(spec.figure)]
    for name, text in built.files.items():
        assert not [b.pattern for b in banned if b.search(text)], name


@pytest.mark.parametrize(("kind", "seed"), [(k, s) for k in KIND_NAMES for s in (0, 7)])
def test_each_statement_of_a_field_avoids_that_fields_goal_words(kind: str, seed: int) -> None:
    """Item by item: the sentence, front-matter line, header and row, or JSON key that states each
    field holds none of that field's goal content words (and each field is stated somewhere)."""
    spec = KINDS[kind]
    built = build_paraphrased(kind, 250, seed)
    for row in built.truth:
        name_said, figure_said = _statements(built, row)
        assert name_said, row.item
        assert figure_said or row.figure is None, row.item
        for said in name_said:
            assert not spec.forbidden(spec.name).search(said), said
        for said in figure_said:
            assert not spec.forbidden(spec.figure).search(said), said


def _statements(built: Corpus, row: Truth) -> tuple[list[str], list[str]]:
    """What the item's own file says of its name field and of its figure field."""
    name = built.where[row.item]
    text, fmt = built.files[name], built.formats[name]
    if fmt == "json":
        [record] = [r for r in json.loads(text) if row.item in r.values()]
        keys = list(record)
        return [f"{keys[1]}: {record[keys[1]]}"], [f"{keys[2]}: {record[keys[2]]}"]
    if fmt in ("table", "csv"):
        lines = [line for line in text.splitlines() if fmt == "csv" or line.startswith("|")]
        [line] = [line for line in lines if row.item in re.split(r"\s*[|,]\s*", line)]
        header = lines[0]
        return [header, line], [header, line]
    pieces = [p for p in _SENTENCE.split(text) if p.strip()]
    names = [p for p in pieces if row.name in p]
    figures = [p for p in pieces if re.search(r"\d", p) and "median" not in p and "refreshed" not in p]
    absent = [p for p in pieces if p in KINDS[built.kind].figure.absent]
    return names, figures + absent


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_the_absent_figures_come_in_both_forms(kind: str) -> None:
    spec = KINDS[kind]
    built = build_paraphrased(kind, 250, seed=0)
    said = [row for row in built.truth if row.kind == "absent_said"]
    silent = [row for row in built.truth if row.kind == "absent_silent"]
    assert len(said) == len(silent) == 5  # 4% of 250, half each
    assert {built.formats[built.where[r.item]] for r in said + silent} == {"prose", "front"}
    for row in said + silent:
        assert row.figure is None
        text = built.files[built.where[row.item]]
        assert not _QUANTITY.search(text), text
        assert [row.item for r in built.truth if built.where[r.item] == built.where[row.item]] == [row.item]
        says = [sentence for sentence in spec.figure.absent if sentence in text]
        assert len(says) == (1 if row.kind == "absent_said" else 0), text
        assert row.item in text.lower() or row.item.capitalize() in text
    mentioned = [
        f for f in built.files.values() for r in said + silent if re.search(rf"\b{r.item}\b", f, re.I)
    ]
    assert len(mentioned) == 10  # no register or memo names them


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_the_dated_memo_corrects_one_figure_and_the_truth_takes_the_correction(kind: str) -> None:
    built = build_paraphrased(kind, 250, seed=2)
    [fixed] = [row for row in built.truth if row.kind == "corrected"]
    memo = built.files[f"memo-{MEMO_DATE}.md"]
    unit = KINDS[kind].figure.spellings[0].word
    stated = re.search(rf"of {fixed.item} is (\d+) {unit}|in {fixed.item} are now deleted (\d+) {unit}", memo)
    assert stated, memo
    new = int(stated.group(1) or stated.group(2))
    old = re.search(rf"not the (\d+) {unit} that (\S+) gives", memo)
    assert old and new == fixed.figure and int(old.group(1)) != new
    assert old.group(2) == built.where[fixed.item]
    assert _figures_for(built, fixed.item) == [int(old.group(1))]
    assert memo.startswith(f"# Memo, {MEMO_DATE}")


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_a_near_name_and_its_v2_are_two_items_in_two_files(kind: str) -> None:
    built = build_paraphrased(kind, 250, seed=5)
    near = {row.item: row for row in built.truth if row.kind == "near_name"}
    [twin] = [name for name in near if name.endswith(" v2")]
    base = near[twin.removesuffix(" v2")]
    assert len(near) == 2 and " " in base.item
    assert base.name != near[twin].name and base.figure != near[twin].figure
    assert built.where[base.item] != built.where[twin]


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_the_unrelated_files_name_teams_and_terms_but_no_item(kind: str) -> None:
    built = build_paraphrased(kind, 250, seed=6)
    stating = set(built.where.values()) | {f"memo-{MEMO_DATE}.md"}
    unrelated = [name for name in built.files if name not in stating]
    assert 3 <= len(unrelated) <= 5
    for name in unrelated:
        text = built.files[name]
        assert not [row.item for row in built.truth if re.search(rf"\b{re.escape(row.item)}\b", text, re.I)]
    assert all(re.search(r"Team [A-Z]", built.files[name]) for name in ("minutes-2026-02-17.md", "rota.md"))
    assert re.search(r"^- \*\*[\w -]+\*\*: ", built.files["glossary.md"], re.M)  # terms defined


def test_the_truth_matches_the_files_read_by_hand() -> None:
    """Every item of the service corpus read back with plain parsers (csv, json, a regex per
    note), and a dataset's notes by the words they state them in."""
    built = build_paraphrased("service", 250, seed=0)
    truth = {row.item: row for row in built.truth}
    read = _read_by_hand(built)
    assert set(read) == set(truth)
    for item, (name, figure) in read.items():
        expected = truth[item]
        assert name == expected.name, item
        assert figure == expected.figure or expected.kind == "corrected", item
    people = build_paraphrased("dataset", 60, seed=1)
    for row in people.truth:
        text = people.files[people.where[row.item]]
        assert row.name in text and row.name.split()[0] in GIVEN_NAMES
        if row.figure is not None and row.kind != "corrected":
            assert _figures_for(people, row.item) == [row.figure]


def _read_by_hand(built: Corpus) -> dict[str, tuple[str, int | None]]:
    spec = KINDS[built.kind]
    found: dict[str, tuple[str, int | None]] = {}
    for name, fmt in built.formats.items():
        text = built.files[name]
        if fmt == "csv":
            records = list(csv.DictReader(io.StringIO(text)))
        elif fmt == "json":
            records = json.loads(text)
        elif fmt == "table":
            lines = [line.strip("| ").split(" | ") for line in text.splitlines() if line.startswith("|")]
            records = [dict(zip(lines[0], cells, strict=True)) for cells in lines[2:]]
        elif fmt == "front":
            head = text.split("---\n")[1]
            records = [dict(line.split(": ", 1) for line in head.splitlines())]
        else:
            [item] = [i for i, where in built.where.items() if where == name]
            [team] = re.findall(r"Team [A-Z][a-z]+", text)
            figures = _figures_for(built, item)
            found[item] = (team, figures[0] if figures else None)
            continue
        for record in records:
            found |= _from_record(record, spec)
    return found


def _from_record(record: dict[str, object], spec: paraphrases.KindSpec) -> dict[str, tuple[str, int | None]]:
    """One register row or front matter: the item, its name field and its figure, by key."""
    by = {str(k).lower(): v for k, v in record.items()}
    [item] = [str(v) for k, v in by.items() if k in spec.item_keys]
    [name] = [str(v) for k, v in by.items() if k in spec.name.keys or k in map(str.lower, spec.name.headers)]
    figures = [v for k, v in by.items() if k in spec.figure.keys or k in map(str.lower, spec.figure.headers)]
    return {item: (name, int(str(figures[0])) if figures and str(figures[0]) else None)}


def _figures_for(built: Corpus, item: str) -> list[int]:
    """The figures an item's own note states, in the base unit (another figure's sentence aside)."""
    text = built.files[built.where[item]]
    if built.formats[built.where[item]] != "prose":
        own = _own(built, item)
        return [] if own is None else [own]
    figures = []
    for sentence in _SENTENCE.split(text):
        if "median" in sentence or "refreshed" in sentence:
            continue
        for amount, word in _QUANTITY.findall(sentence):
            figures.append(round(float(amount) * _SIZES[word]))
    return figures


def _own(built: Corpus, item: str) -> int | None:
    name = built.where[item]
    text, fmt = built.files[name], built.formats[name]
    if fmt == "json":
        [record] = [r for r in json.loads(text) if item in r.values()]
        return int(list(record.values())[2])
    if fmt == "front":
        figures = re.findall(r"^\w+: (\d+)$", text, re.M)
        return int(figures[0]) if figures else None
    found = _from_record(dict(_csv_or_table_row(text, item)), KINDS[built.kind])
    return found[item][1]


def _csv_or_table_row(text: str, item: str) -> dict[str, str]:
    if text.startswith("#"):
        lines = [line.strip("| ").split(" | ") for line in text.splitlines() if line.startswith("|")]
    else:
        lines = list(csv.reader(io.StringIO(text)))
    [cells] = [cells for cells in lines[1:] if cells[0] == item]
    return dict(zip(lines[0], cells, strict=True))


def test_write_paraphrased_writes_every_file(tmp_path: Path) -> None:
    truth = paraphrased.write_paraphrased(tmp_path / "c", "service", 50, seed=1)
    built = build_paraphrased("service", 50, seed=1)
    assert truth == built.truth
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == sorted(built.files)


# Goal wordings


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_every_goal_wording_asks_for_both_fields_and_names_the_kind(kind: str) -> None:
    spec = KINDS[kind]
    wordings = goals(kind)
    assert len(wordings) >= 6 and len(set(wordings)) == len(wordings)
    assert corpus.GOAL not in wordings
    for goal in wordings:
        assert re.search(rf"\b(?:{spec.singular}|{spec.plural})\b", goal, re.I), goal
        assert spec.forbidden(spec.name).search(goal), goal
        assert spec.forbidden(spec.figure).search(goal), goal
    assert any(goal.endswith("?") for goal in wordings)  # a question
    assert any(re.search(r"\bI need\b", goal) for goal in wordings)  # the first person
    assert any("(" in goal for goal in wordings)  # a field with an aside
    assert any(re.search(rf"\ball {spec.plural}\b", goal, re.I) for goal in wordings)


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_each_goal_phrase_of_a_field_is_covered_by_its_forbidden_words(kind: str) -> None:
    """A field's goal phrases hold a forbidden word, so the files' check speaks of every phrase."""
    spec = KINDS[kind]
    for field in (spec.name, spec.figure):
        for phrase in field.goal:
            assert spec.forbidden(field).search(phrase), phrase


# Grading

SERVICE = KINDS["service"].grading
DATASET = KINDS["dataset"].grading
HEADER = "| service | the team that owns it | its p95 latency budget | source |\n|---|---|---|---|\n"
TRUTH = [
    Truth(item="kalo relay", name="Team Coot", figure=180),
    Truth(item="kalo relay v2", name="Team Smew", figure=240, kind="near_name"),
    Truth(item="vasor", name="Team Knot", figure=None, kind="absent_said"),
    Truth(item="redzu", name="Team Teal", figure=90),
    Truth(item="zutur", name="Team Ruff", figure=1320, kind="corrected"),
    Truth(item="ganne", name="Team Shag", figure=400),
    Truth(item="dovtor", name="Team Eider", figure=70),
]


def test_unverified_cells_are_counted_apart_and_compared_all_the_same() -> None:
    report = (
        "## Ledger\n\n"
        + HEADER
        + (
            "| kalo relay | Team Coot | 180 ms | a.md:3 |\n"  # proven, right
            "| kalo relay v2 | Unverified: Team Smew | Unverified: 240 ms | b.md |\n"  # unverified, right
            "| vasor | Team Knot | not given | c.md |\n"  # proven, right: no file gives it
            "| redzu | Team Teal | not given | d.md |\n"  # a false not given: a wrong row
            "| zutur | Team Ruff | Unverified: 1410 ms | e.json |\n"  # unverified, wrong (the old figure)
            "| ganne | Team Shag | … | f.md |\n"  # open: no claim
            "| nosuch | Unverified: Team Coot | Unverified: 5 ms | g.md |\n"  # an unknown item, unproven
        )
    )
    scored = score(parse_ledger(report, SERVICE), TRUTH, SERVICE)
    assert (scored.right, scored.wrong, scored.missing, scored.delivered) == (2, 1, 1, 7)
    assert (scored.unverified, scored.unverified_right, scored.false_not_given, scored.open) == (3, 1, 1, 1)
    assert scored.wrong_reasons == {"wrong_budget": 1}
    assert scored.precision == pytest.approx(2 / 3, abs=1e-3) and scored.recall == pytest.approx(
        2 / 7, abs=1e-3
    )
    assert scored.distractors == {"absent_said": True, "corrected": False, "near_name": False}


def test_a_proven_wrong_cell_beside_an_unverified_one_is_a_wrong_row() -> None:
    rows = [LedgerRow(item="redzu", owner="Team Coot", budget="Unverified: 90 ms")]
    scored = score(rows, TRUTH, SERVICE)
    assert (scored.wrong, scored.unverified, scored.wrong_reasons) == (1, 0, {"wrong_owner": 1})


def test_a_false_not_given_of_the_name_field_counts_too() -> None:
    rows = [LedgerRow(item="redzu", owner="not given", budget="not given")]
    scored = score(rows, TRUTH, SERVICE)
    assert (scored.false_not_given, scored.wrong, scored.wrong_reasons) == (2, 1, {"wrong_both": 1})


@pytest.mark.parametrize(
    ("cell", "state", "value"),
    [
        ("Unverified: 180 ms", "unverified", "180 ms"),
        ("unverified - Team Coot", "unverified", "Team Coot"),
        ("**Unverified:** 0.18 s", "unverified", "0.18 s"),
        ("…", "open", "…"),
        ("not given", "proven", "not given"),
        ("180 ms", "proven", "180 ms"),
    ],
)
def test_a_cell_is_proven_unverified_or_open(cell: str, state: str, value: str) -> None:
    assert grade.cell_state(cell) == (state, value)


def test_the_columns_are_found_by_their_header_whatever_the_goals_order() -> None:
    report = (
        "## Ledger\n\n| dataset | the retention period (in days) | who stewards it | source |\n"
        "|---|---|---|---|\n"
        "| senbel events | 13 weeks | Ines Okafor | a.md |\n"
    )
    [row] = parse_ledger(report, DATASET)
    assert (row.owner, row.budget, row.source) == ("Ines Okafor", "13 weeks", "a.md")
    truth = [Truth(item="senbel events", name="Ines Okafor", figure=91)]
    assert score([row], truth, DATASET).right == 1
    assert parse_ledger(report)[0].owner == "13 weeks"  # without fields: by position, as before


@pytest.mark.parametrize(
    ("cell", "truth", "matches"),
    [
        ("91 days", 91, True),
        ("13 weeks", 91, True),
        ("91", 91, True),
        ("91 hours", 91, False),
        ("90 days, was 60 days", 90, False),
        ("not given", None, True),
        ("", None, False),
    ],
)
def test_a_retention_is_compared_in_days(cell: str, truth: int | None, matches: bool) -> None:
    assert grade.figure_matches(cell, truth, DATASET.unit) is matches


@pytest.mark.parametrize(("kind", "swap"), [(k, s) for k in KIND_NAMES for s in (False, True)])
def test_a_ledger_written_from_the_truth_scores_full_marks(kind: str, swap: bool) -> None:
    spec = KINDS[kind]
    built = build_paraphrased(kind, 250, seed=9)
    head = [spec.singular, spec.name.goal[0], spec.figure.goal[1], "source"]
    lines = [[row.item, row.name, _cell(row.figure, spec), "x.md"] for row in built.truth]
    if swap:
        head, lines = [head[0], head[2], head[1], head[3]], [[r[0], r[2], r[1], r[3]] for r in lines]
    table = "\n".join("| " + " | ".join(cells) + " |" for cells in [head, ["---"] * 4, *lines])
    scored = score(parse_ledger("## Ledger\n\n" + table, spec.grading), built.truth, spec.grading)
    assert (scored.right, scored.wrong, scored.missing, scored.recall, scored.unverified) == (
        250,
        0,
        0,
        1.0,
        0,
    )
    assert all(scored.distractors.values())


def _cell(figure: int | None, spec: paraphrases.KindSpec) -> str:
    """A figure as a ledger may write it: in its last spelling where that fits (`0.18 s`, `13 weeks`)."""
    if figure is None:
        return "not given"
    last = spec.figure.spellings[-1]
    return last.write(figure) if last.fits(figure) else f"{figure} {spec.grading.unit.name}"


def test_the_grade_is_correct_when_nothing_false_is_claimed() -> None:
    good = "## Ledger\n\n" + HEADER + "| redzu | Team Teal | Unverified: 90 ms | d.md |\n"
    bad = "## Ledger\n\n" + HEADER + "| redzu | Team Teal | not given | d.md |\n"
    graded = long.ledger_grade(good, TRUTH, SERVICE)
    assert graded.correct and graded.score == 0.0
    assert (
        graded.why
        == "proven 0 right, 0 wrong; unverified 1 (1 right); false not given 0; missing 6; recall 0.00"
    )
    wrong = long.ledger_grade(bad, TRUTH, SERVICE)
    assert not wrong.correct and "false not given 1" in wrong.why


# The suite and its verdict


def _score(recall: float = 1.0, wrong: int = 0, false_not_given: int = 0) -> grade.Score:
    return grade.Score(
        truth=100,
        delivered=100,
        right=round(recall * 100),
        wrong=wrong,
        missing=0,
        precision=1.0,
        recall=recall,
        wrong_reasons={},
        distractors={},
        examples=[],
        false_not_given=false_not_given,
    )


@pytest.mark.parametrize(
    ("complete", "scored", "read", "verdict"),
    [
        (True, _score(), 40, "right"),
        (True, _score(recall=0.9), 40, "right"),
        (True, _score(recall=0.89), 40, "false_complete"),
        (True, _score(wrong=1), 40, "false_complete"),
        (True, _score(false_not_given=1), 40, "false_complete"),
        (True, _score(), 39, "false_complete"),  # a source never read
        (False, _score(recall=0.2), 10, "honest_incomplete"),
        (False, _score(), 40, "honest_incomplete"),
        (False, _score(wrong=2), 40, "wrong"),
        (False, _score(recall=0.5, false_not_given=1), 12, "wrong"),
    ],
)
def test_the_long_verdict(complete: bool, scored: grade.Score, read: int, verdict: str) -> None:
    assert long.long_verdict(complete, scored, read, 40) == verdict


def test_the_suite_writes_each_corpus_once_and_grades_its_ledger(tmp_path: Path) -> None:
    tasks = long.load(60, 3, tmp_path)
    kinds = {task.kind for task in tasks}
    assert kinds == {"service", "dataset"}
    assert len(tasks) == len(goals("service")) + len(goals("dataset"))
    assert len({task.name for task in tasks}) == len(tasks)
    assert sorted(p.name for p in (tmp_path / "long").iterdir() if p.is_dir()) == [
        "dataset-60-3",
        "service-60-3",
    ]
    for task in tasks:
        assert task.sources == [tmp_path / "long" / f"{task.kind}-60-3"]
        assert task.goal in goals(str(task.kind))
    truth = [
        Truth.model_validate(row)
        for row in json.loads((tmp_path / "long" / "service-60-3.truth.json").read_text())
    ]
    assert truth == build_paraphrased("service", 60, 3).truth
    spec = KINDS["service"]
    lines = [f"| {r.item} | {r.name} | {_cell(r.figure, spec)} | x |" for r in truth]
    graded = tasks[0].grade("## Ledger\n\n" + HEADER + "\n".join(lines), tmp_path)
    assert graded.correct and graded.score == 1.0
    assert not tasks[0].grade("no ledger here", tmp_path).score
    prompt = tasks[0].baseline_prompt
    assert "## Ledger" in prompt and tasks[0].goal in prompt and f"memo-{MEMO_DATE}.md" in prompt
