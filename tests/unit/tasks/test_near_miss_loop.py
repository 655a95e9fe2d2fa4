"""Whole offline tasks over the team documents a new user tried: every question ends after one
answer, its value given with its quote, marked unverified (offline, the verifier proves nothing on
its own); a near miss never ends complete with a value (complete only as "the files read do not
say"); a large source is searched for every line holding a question's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import RunConfig
from cairn.flows.loop.policy import NOT_STATED, UNVERIFIED
from cairn.memory.log.workspace import Workspace
from cairn.tasks.grounding import answer_body
from tests.unit.scripted import run_whole_task
from tests.unit.tasks.team_docs import ANSWERABLE, FILES, NEAR_MISSES


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("teams") / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


BY_STRUCTURE = {
    "What is the p95 latency budget of the notifications service?",  # a cell under its header
    "Which team owns the billing service?",  # `## Team Falcon` over `Team Falcon owns the billing service`
    "Which office does Team Osprey sit in?",  # `## Team Osprey` over `The team sits in the Porto office.`
}


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same documents among enough filler that they cannot all be read whole."""
    folder = tmp_path_factory.mktemp("large") / "docs"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    for n in range(40):
        (folder / f"minutes-{n:02d}.md").write_text(f"# Minutes {n}\n\n" + "Nothing was decided. " * 60)
    return folder


def run(tmp_path: Path, goal: str, source: Path) -> tuple[str, str, str | None, str]:
    config = RunConfig(workspace=str(tmp_path), model="cairn/offline", max_iterations=6)
    result = run_whole_task(config, "t", goal, [source])
    answer = Path(str(result.report_path)).read_text(encoding="utf-8") if result.report_path else ""
    return result.status, answer, result.stop_reason, Workspace(tmp_path).task("t").state().status


@pytest.mark.parametrize(("question", "value"), ANSWERABLE)
def test_an_answerable_question_ends_after_one_answer_with_its_value_and_quotes(
    tmp_path: Path, docs: Path, question: str, value: str
) -> None:
    """Offline, the fitted verifier proves none of them; the structural judge proves a table's
    cell (the notifications budget), a heading that is the value (`## Team Falcon` over the line
    saying it owns billing) and a name on a line under the heading that names the subject (Team
    Osprey's office). The rest is given, marked unverified, with its line: a reader's span that
    runs on (`Priya Nandakumar and sits`) is no name, and a team found through another's line
    (the data platform's lead) is no heading's."""
    status, answer, stop, _ = run(tmp_path, question, docs)
    if question in BY_STRUCTURE:
        assert status == "complete"
        assert answer_body(answer).startswith(f"{question} {value}.")
    else:
        assert status == "incomplete" and str(stop).startswith(UNVERIFIED)
        assert answer_body(answer).startswith(f"{question} Unverified: {value.removesuffix(' ms')}")
    assert "## Proof" in answer and "> source:docs/" in answer


@pytest.mark.parametrize("question", NEAR_MISSES)
def test_a_near_miss_is_never_complete_with_a_value(tmp_path: Path, docs: Path, question: str) -> None:
    """Complete only as "the files read do not say" (every source read, and no section under a
    heading naming its subject holds its words); any value is given unverified."""
    status, answer, stop, _ = run(tmp_path, question, docs)
    body = answer_body(answer)  # what a reader takes for the answer: no banner, no proof
    if status == "complete":
        assert body == f"{question} The files read do not say."
        assert answer.count("- source:docs/") == len(FILES)  # the absence rests on every file read
    else:
        assert status == "incomplete" and str(stop).startswith((UNVERIFIED, NOT_STATED))
        assert body.startswith(f"{question} Unverified: ")


def test_the_near_misses_a_heading_names_end_complete_saying_the_files_do_not_say(
    tmp_path: Path, docs: Path
) -> None:
    ended = {q: run(tmp_path / str(n), q, docs)[0] for n, q in enumerate(NEAR_MISSES)}
    assert ended["Which office does Team Kestrel sit in?"] == "complete"  # `## Team Kestrel`, no office
    assert ended["Who leads Team Osprey?"] == "complete"  # `## Team Osprey`, no lead


def test_a_source_too_large_to_read_whole_is_searched_for_the_questions_words(
    tmp_path: Path, large: Path
) -> None:
    _, answer, _, _ = run(tmp_path / "a", "Which office does Team Osprey sit in?", large)
    assert answer_body(answer).startswith("Which office does Team Osprey sit in? Porto.")
    state = Workspace(tmp_path / "a").task("t").state()
    assert [c.tool for c in state.iterations[0].tool_calls][:1] == ["find_lines"]
