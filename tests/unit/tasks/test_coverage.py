"""Goals about every item of a kind: the goal read, the items found, the ledger's cells proven or
not, and whole offline tasks that read a folder batch by batch, deliver as they go and stop with
a partial report that says how far they got."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from cairn.core import Coverage, RunConfig
from cairn.flows.steps.coverage import reads_batch
from cairn.memory.log.workspace import Workspace
from cairn.tasks.coverage.goal import coverage_goal, ranges_over
from cairn.tasks.coverage.items import Subjects
from cairn.tasks.coverage.ledger import Ledger
from cairn.tasks.coverage.ledger_report import ledger_report
from cairn.tasks.grounding.units import units_of
from cairn.tasks.verify.model import Thresholds, load_verifier
from tests.unit.scripted import run_whole_task

GOAL = (
    "Summarise, for every service described in the corpus, the team that owns it and its p95 latency budget."
)
SERVICES = [
    (f"svc{n:02d}", f"Team {bird}", 100 + 10 * n) for n, bird in enumerate(["Wren", "Kite", "Lark"] * 8)
]


@pytest.mark.parametrize(
    ("goal", "kind", "fields"),
    [
        (GOAL, "service", ["the team that owns it", "its p95 latency budget"]),
        ("List the owner and the launch year of every service.", "service", ["the owner", "the launch year"]),
        ("For each team, give who leads it.", "team", ["who leads it"]),
        # Whatever the verb, the word order or the form of the question:
        (
            "Tell me, for all the vendors we use, the renewal date and who signed the contract.",
            "vendor",
            ["the renewal date", "who signed the contract"],
        ),
        (
            "Which site hosts each rack, and what is its power draw (in kW)?",
            "rack",
            ["the site that hosts it", "its power draw (in kW)"],
        ),
        ("The lead and the budget of every project, please.", "project", ["the lead", "the budget"]),
        (
            "I want a list of each warehouse with its manager and its floor area in hectares.",
            "warehouse",
            ["its manager", "its floor area (in hectares)"],
        ),
        (
            "Walk the folder repo by repo and report the maintainer and the licence.",
            "repo",
            ["the maintainer", "the licence"],
        ),
        (
            "Build a table of the printers listed here: for each one, its location and its model.",
            "printer",
            ["its location", "its model"],
        ),
    ],
)
def test_a_goal_about_every_item_names_its_kind_and_fields(goal: str, kind: str, fields: list[str]) -> None:
    spec = coverage_goal(goal)
    assert spec is not None and (spec.kind, spec.fields) == (kind, fields)


@pytest.mark.parametrize(
    "goal",
    [
        "Which team owns the billing service?",
        # A standing rule beside a question ranges over nothing: the question is the goal (a
        # scale-out task ended incomplete with "1 of 3 figure items lack a quoted field").
        "How many days of water does the reservoir hold? Always cite the source file of every figure.",
        "Cite the line of every figure you give.",
    ],
)
def test_a_goal_about_one_thing_is_no_coverage_goal(goal: str) -> None:
    assert coverage_goal(goal) is None


def test_a_goal_that_quantifies_a_kind_without_readable_fields_still_ranges_over_it() -> None:
    """Cairn cannot tell what such a goal asks of each item: it says so and reads every source
    before the task may be complete (`cairn.tasks.task_grounding`)."""
    assert coverage_goal("What does each of the teams own?") is None
    assert ranges_over("What does each of the teams own?") == "team"
    assert ranges_over("Who leads Team Falcon?") is None


def test_items_are_named_by_a_kind_column_the_words_before_the_kind_or_a_fields_subject() -> None:
    spec = coverage_goal(GOAL)
    assert spec is not None

    def found(source: str, text: str) -> list[list[str]]:
        return [Subjects(spec).named(u) for u in units_of(source, text)]

    assert found("a.md", "The ledger sync service is owned by Team Wren.") == [["ledger sync"]]
    assert found("a.md", "Each service has an owner. The service level objectives apply.") == [[], []]
    assert found("a.csv", "service,owner\nledger sync v2,Team Kite\n") == [["ledger sync v2"]]
    assert found("a.json", '[{"service": "cart", "owner": "Team Lark"}]') == [["cart"]]
    assert found("a.md", "Service note: calqui. Team Wren owns mirmon; launched 2019.") == [
        ["calqui"],
        ["mirmon"],
    ]
    assert found("a.md", "Launched in 2019, quirin is owned by Team Wren.") == [["quirin"]]
    assert found("m.md", "Correction: the p95 latency budget of vofe is 1330 ms.") == [["vofe"]]


def test_a_section_naming_no_item_is_about_its_heading_only_when_it_states_every_field() -> None:
    note = "## Achtes mirror\n\n- Owning team: Team Stint\n- p95 latency budget: 940 ms\n- Launched: 2024"
    handbook = "# On-call handbook\n\nPage the owning team first. A p95 latency budget is 95 of 100 requests."
    rows = _ledger({"a.md": note, "h.md": handbook})
    assert list(rows) == ["Achtes mirror"]  # the handbook defines the fields: no item
    assert [value for value, _ in rows["Achtes mirror"]] == [
        "Team Stint",
        "940 ms",
    ]  # a figure shown with its unit


def _ledger(files: dict[str, str], exhausted: bool = True) -> dict[str, list[tuple[str, str]]]:
    spec = coverage_goal(GOAL)
    assert spec is not None
    ledger = Ledger(spec)
    for source, text in files.items():
        ledger.add(units_of(source, text))
    rows = [ledger.row(item, exhausted) for item in ledger.items]
    return {row.item: [(c.value, c.status) for c in row.cells] for row in rows}


def test_each_cell_is_quoted_from_a_line_naming_its_item_whatever_the_format() -> None:
    rows = _ledger(
        {
            "a.md": "The ledger sync service is owned by Team Wren. Its p95 latency budget is 250 ms.",
            "b.csv": "service,owner,p95 latency budget (ms)\nledger sync v2,Team Kite,90\n",
            "c.json": '[{"service": "cart", "owner": "Team Lark", "p95_latency_budget_ms": 210}]',
        }
    )
    assert {item: [value for value, _ in cells] for item, cells in rows.items()} == {
        "ledger sync": ["Team Wren", "250 ms"],
        "ledger sync v2": ["Team Kite", "90 ms"],  # a near name, its own row; the unit its header names
        "cart": ["Team Lark", "210 ms"],  # the unit its key names
    }


def test_two_lines_giving_one_field_two_values_give_both_unproven_the_later_first() -> None:
    """Offline nothing judges whether a later note changes a table's figure (it may be a plan, or
    another service's): the cell gives both values with their lines, and proves neither."""
    table = "| service | owner | p95 latency budget (ms) |\n|---|---|---|\n| billing | Team Wren | 180 |\n"
    memo = "# Memo, 2026-03-02\n\nThe p95 latency budget of the billing service is now 350 ms."
    spec = coverage_goal(GOAL)
    assert spec is not None
    ledger = Ledger(spec)
    for source, text in {"t.md": table, "m.md": memo}.items():
        ledger.add(units_of(source, text))
    row = ledger.row(ledger.items[0], exhausted=True)
    budget = row.cells[1]
    assert (budget.value, budget.status) == ("350 ms; 180 ms", "conflict")
    assert [q.source for q in budget.quotes] == ["m.md", "t.md"]
    assert "2026-03-02" in budget.note
    report = ledger_report(GOAL, spec, [row], Coverage(sources=2, read=2, kind="service", fields=spec.fields))
    assert "| Conflict: 350 ms; 180 ms |" in report


def test_a_note_read_before_the_register_that_names_its_item_is_about_that_item() -> None:
    """The note names billing without its kind, so only the register, read after it, makes
    billing an item; the note's lines were about nothing, and the budget was the register's
    `Wren`."""
    rows = _ledger(
        {
            "a.md": "Team Wren looks after billing most days. Its p95 latency budget is 180 ms, set in May.",
            "b.csv": "service,owner\nbilling,Team Wren\n",
        }
    )
    assert rows["billing"][1] == ("180 ms", "unverified")


def test_a_value_of_another_kind_than_its_column_is_not_given_as_the_fields_value() -> None:
    """Twelve services state their budget in figures; one note says only what its service does.
    The budget column holds figures, so that note's words are no budget: the cell gives none,
    and does not claim the budget absent either."""
    notes = {
        f"s{n}.md": f"The svc{n:02d} service is owned by Team Wren. Its p95 latency budget is {100 + n} ms."
        for n in range(12)
    }
    notes["odd.md"] = "The svcodd service is owned by Team Kite. Svcodd sits in front of the search cluster."
    rows = _ledger(notes)
    assert rows["svc03"][1] == ("103 ms", "unverified")
    assert rows["svcodd"][1] == ("", "unverified")  # shown as `—`: looked for, not found, not absent


def test_a_field_is_not_given_only_once_every_source_was_read_and_no_candidate_is_likely(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = {"a.md": "The inbox service is owned by Team Rook. It launched in 2019."}
    shipped = load_verifier()
    strict = shipped.model_copy(update={"thresholds": Thresholds(complete=1.0, absent=0.999)})
    monkeypatch.setattr("cairn.tasks.verify.decision.load_verifier", lambda: strict)
    assert _ledger(files, exhausted=False)["inbox"][1][1] != "not_given"  # more may still be read
    assert _ledger(files, exhausted=True)["inbox"][1] == ("", "not_given")


def test_a_field_is_not_proven_absent_while_a_labelled_value_of_its_item_is_unplaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Answer within (ms, 95%): 870` shares no word with "its p95 latency budget" and scored under
    the absence threshold: the row said "not given" for a value its own line states. A value under
    a label that is not the item's name nor another field's value leaves the field unverified: no
    value the reader finds likely (`—`), and never "not given"."""
    files = {
        "register.md": "| Name | Run by | Answer within (ms, 95%) |\n| --- | --- | --- |\n"
        "| mirdal | Team Waxwing | 870 |\n",
        "kagan.md": "Service: kagan; Run by: Team Chough.\n\nThe kagan service is run by Team Chough.\n",
    }
    shipped = load_verifier()
    strict = shipped.model_copy(update={"thresholds": Thresholds(complete=1.0, absent=0.999)})
    monkeypatch.setattr("cairn.tasks.verify.decision.load_verifier", lambda: strict)
    rows = _ledger(files, exhausted=True)
    assert rows["mirdal"][1] == ("", "unverified")
    assert rows["kagan"][1] == ("", "not_given")  # its lines state its name and owner, nothing else


def test_a_field_is_not_proven_absent_while_its_items_lines_hold_a_figure_in_the_columns_unit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Each record is kept for 182 days` scored under the absence threshold, and the cell said
    "not given": a figure in a unit the column's values use is there, so absence is not proven."""
    notes = {
        f"s{n}.md": f"The svc{n:02d} service is owned by Team Wren. Its p95 latency budget is {100 + n} ms."
        for n in range(12)
    }
    notes["x.md"] = "The svcx service is owned by Team Kite. Requests to it come back within 410 ms."
    notes["y.md"] = "The svcy service is owned by Team Rook. It launched in 2019."
    shipped = load_verifier()
    strict = shipped.model_copy(update={"thresholds": Thresholds(complete=1.0, absent=0.999)})
    monkeypatch.setattr("cairn.tasks.verify.decision.load_verifier", lambda: strict)
    rows = _ledger(notes)
    assert rows["svcx"][1][1] != "not_given"
    assert rows["svcy"][1] == ("", "not_given")  # a year is no latency: no figure in the column's unit


def test_a_batch_is_what_fits_the_budget_or_what_is_forced() -> None:
    assert reads_batch(1000, [300] * 10, None) == 3
    assert reads_batch(100, [300] * 10, None) == 1  # one file at least, however large
    assert reads_batch(1000, [300] * 10, 7) == 7


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, team, budget in SERVICES[:18]:
        text = f"# {name}\n\nThe {name} service is owned by {team}. Its p95 latency budget is {budget} ms.\n"
        (folder / f"{name}.md").write_text(text, encoding="utf-8")
    rows = "\n".join(f"{n},{t},{b}" for n, t, b in SERVICES[18:21])
    (folder / "more.csv").write_text(f"service,owner,p95 latency budget (ms)\n{rows}\n", encoding="utf-8")
    objects = [{"service": n, "owner": t, "p95_latency_budget_ms": b} for n, t, b in SERVICES[21:]]
    (folder / "rest.json").write_text(json.dumps(objects, indent=1), encoding="utf-8")
    (folder / "minutes.md").write_text("# Minutes\n\nNothing was decided.\n", encoding="utf-8")
    return folder


def test_a_whole_folder_is_read_batch_by_batch_into_a_ledger_of_every_item(
    tmp_path: Path, corpus: Path
) -> None:
    """Offline, the verifier proves no cell on its own: every row is there with its values, each
    marked unverified, and the task ends `covered` (incomplete) once every source was read."""
    config = RunConfig(workspace=str(tmp_path / "ws"), model="cairn/offline", read_batch=3)
    result = run_whole_task(config, "t", GOAL, [corpus])
    assert result.iterations == 7 and str(result.stop_reason).startswith(
        "covered"
    )  # 21 files, three at a time
    report = Path(str(result.report_path)).read_text(encoding="utf-8")
    for name, team, budget in SERVICES:
        assert re.search(rf"\| {name} \| (Unverified: )?{team} \| (Unverified: )?{budget}( ms)? \|", report)
    assert "Coverage: 21 of 21 sources read; 24 service items found" in report
    repo = Workspace(tmp_path / "ws").task("t")
    commits = subprocess.run(
        ["git", "log", "--format=%s", "--", "artifacts/report.md"],
        cwd=repo.root,
        capture_output=True,
        text=True,
    )
    assert commits.stdout.count("write_file report.md") == 7  # the report committed after every iteration
    reads = [c.params["path"] for c in repo.state().calls if c.tool == "read_file"]
    assert len(reads) == len(set(reads)) == 21  # no source read twice


def test_a_task_stopped_early_keeps_a_report_that_says_how_far_it_got(tmp_path: Path, corpus: Path) -> None:
    config = RunConfig(workspace=str(tmp_path / "ws"), model="cairn/offline", read_batch=3, max_iterations=2)
    result = run_whole_task(config, "t", GOAL, [corpus])
    assert result.status == "incomplete" and result.stop_reason == "iteration cap of 2 reached"
    assert result.coverage is not None and (result.coverage.read, result.coverage.sources) == (6, 21)
    report = Path(str(result.report_path)).read_text(encoding="utf-8")
    assert report.startswith("> **Unverified**: Cairn stopped this task (iteration cap of 2 reached)")
    assert "Coverage: 6 of 21 sources read; 9 service items found" in report  # a CSV, a JSON, 4 files
    assert report.count("| svc") == 9


def test_a_question_that_seemed_to_range_over_a_kind_and_found_none_is_answered_as_asked(
    tmp_path: Path,
) -> None:
    """SQuAD's `What is the minimum percent of alcohol content a German law requires all spirits and
    liqueurs to have?` read as a ledger of spirits: every file read, no spirit found, it ended
    `covered` with no answer. A goal whose kind names no item once everything is read is a question."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "law.md").write_text(
        "In Germany the law requires spirits and liqueurs to hold at least 25% alcohol.\n", encoding="utf-8"
    )
    (folder / "trade.md").write_text("The Court ruled on trade between member states.\n", encoding="utf-8")
    goal = (
        "What is the minimum percent of alcohol content a German law requires all spirits and "
        "liqueurs to have?"
    )
    config = RunConfig(workspace=str(tmp_path / "ws"), model="cairn/offline", max_iterations=4)
    result = run_whole_task(config, "t", goal, [folder])
    assert not result.stop_reason.startswith("covered"), result.stop_reason
    assert result.stop_reason.startswith(("unverified", "complete")), result.stop_reason
    answer = Path(str(result.report_path)).read_text(encoding="utf-8")
    assert goal + " " in answer and "| spirit" not in answer


def test_a_ledger_longer_than_a_verdict_keeps_is_written_back_whole(tmp_path: Path) -> None:
    """A verdict keeps the first 20,000 characters of the deliverable; a task stopped early wrote
    its best answer back from that copy, and a ledger of 250 services ended mid-row (`| vakafe |
    Unver`). The report kept is the whole ledger, every row whole."""
    folder = tmp_path / "docs"
    folder.mkdir()
    rows = "\n".join(f"svc-{n:03},Team Finch,{100 + n}" for n in range(240))
    (folder / "all.csv").write_text(f"service,owner,p95 latency budget (ms)\n{rows}\n", encoding="utf-8")
    (folder / "later.md").write_text("# Later\n\nNothing yet.\n", encoding="utf-8")
    config = RunConfig(workspace=str(tmp_path / "ws"), model="cairn/offline", read_batch=1, max_iterations=1)
    result = run_whole_task(config, "t", GOAL, [folder])
    assert result.status == "incomplete"
    report = Path(str(result.report_path)).read_text(encoding="utf-8")
    assert len(report) > 20_000 and report.count("| svc-") == 240
    assert all(line.endswith("|") for line in report.splitlines() if line.startswith("| svc-"))
