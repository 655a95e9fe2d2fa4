"""Each question proven by the lines it quotes: plain functions over four short team documents
(the ones a new user tried: five questions they answer, four one word away that they do not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import QuotedLine
from cairn.tasks.grounding import Read, ReadIndex, check_answer, split_goal
from cairn.tasks.grounding.asked import parse
from cairn.tasks.grounding.lemmas import content_terms, forms
from cairn.tasks.grounding.proof import occurs, prove
from cairn.tasks.grounding.reads import found_line, passages
from cairn.tasks.grounding.units import units_of
from cairn.tasks.messages.schemas import DeliverInput, Excerpt
from cairn.tasks.offline.answers import deliver
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.tools.find_lines import find_lines

TEAMS = """# Teams

## Team Falcon
Team Falcon owns the billing service and the payments API. The team is led by Priya Nandakumar
and sits in the Lisbon office.

## Team Kestrel
Team Kestrel owns the data platform and the nightly exports. It is led by Tomasz Wierzbicki.

## Team Heron
Team Heron owns the search gateway and the catalogue indexer.

## Team Osprey
Team Osprey owns notifications (email, SMS, push) and the preferences store. The team sits in the
Porto office.
"""
SLOS = """# Service level objectives

Budgets are for the 95th percentile (p95) of request latency.

| service | p95 latency budget (ms) | availability |
|---|---|---|
| billing | 180 | 99.95% |
| notifications | 400 | 99.5% |
| search gateway | 250 | 99.9% |
"""
OFFICES = """# Offices

The Lisbon office is on the river front. The Porto office opened in 2024.
Read the service level objectives and your team's runbooks.
"""
FILES = {"teams.md": TEAMS, "slos.md": SLOS, "offices.md": OFFICES}
ANSWERABLE = [
    ("Who leads Team Falcon?", "Priya Nandakumar"),
    ("Which office does Team Osprey sit in?", "Porto"),
    ("What is the p95 latency budget of the notifications service?", "400 ms"),
    ("Who leads the team that owns the data platform?", "Tomasz Wierzbicki"),
    ("Which team owns the billing service?", "Team Falcon"),
]
NEAR_MISSES = [  # one word away from an answerable question; no file states the answer
    "Which office does Team Kestrel sit in?",
    "Who leads Team Osprey?",
    "What is the p99 latency budget of the notifications service?",
    "Who leads the team that owns the search gateway?",
]


@pytest.fixture(scope="module")
def reads() -> ReadIndex:
    return ReadIndex(Read(f"source:docs/{name}", text) for name, text in FILES.items())


@pytest.mark.parametrize(("question", "value"), ANSWERABLE)
def test_an_answerable_question_is_proven_by_the_lines_that_state_it(
    reads: ReadIndex, question: str, value: str
) -> None:
    [check] = prove([question], f"{value}.", reads.units)
    assert check.answered and check.value == value, check.why
    assert check.quotes and all(occurs(q, reads.reads) for q in check.quotes)


@pytest.mark.parametrize("question", NEAR_MISSES)
def test_a_near_miss_is_never_answered_with_its_neighbours_value(reads: ReadIndex, question: str) -> None:
    """The values a neighbouring question has: what the checks before accepted."""
    for neighbour in ("Lisbon", "Porto", "Priya Nandakumar", "Tomasz Wierzbicki", "400 ms", "Team Heron"):
        [check] = prove([question], f"{neighbour}.", reads.units, exhausted=True)
        assert not check.answered and check.not_stated, (neighbour, check)


def test_the_verdict_names_the_word_no_line_states_and_the_nearest_line(reads: ReadIndex) -> None:
    [check] = prove(["What is the p99 latency budget of the notifications service?"], "400 ms", reads.units)
    assert check.why.startswith("no line read states p99 latency budget of notification service")
    assert "without p99" in check.why and "source:docs/slos.md:8" in check.why


def test_a_capitalised_first_word_is_no_team(reads: ReadIndex) -> None:
    """`Read the service level objectives and your team's runbooks.`: "Read" once passed as a name."""
    goal = "Which team owns the billing service, and what is its p95 latency budget?"
    found = check_answer("Read owns it. Its budget is 180 ms.", split_goal(goal), reads, goal)
    assert [p.answered for p in found.parts] == [False, True]
    right = check_answer("Team Falcon owns it; its p95 budget is 180 ms.", split_goal(goal), reads, goal)
    assert [(p.answered, p.value) for p in right.parts] == [(True, "Team Falcon"), (True, "180 ms")]


def test_a_pronoun_is_bound_to_what_the_part_before_asked_about(reads: ReadIndex) -> None:
    """`its` is the billing service: the billing row, not the payments row of the same team."""
    [_, budget] = prove(
        ["Which team owns the billing service", "what is its p95 budget?"], "180 ms", reads.units
    )
    assert budget.answered and budget.quotes[0].text == "| billing | 180 | 99.95% |"


def test_two_values_for_one_question_prove_nothing() -> None:
    index = ReadIndex([Read("a.md", "Ana: I went to Lisbon in May.\n\nAna: I went to Porto in June.")]).units
    [check] = prove(["Where did Ana go?"], "Lisbon.", index)
    assert not check.answered and check.why.startswith("the lines read give several answers")


def test_a_line_found_by_search_and_by_find_lines_is_quoted_at_its_line() -> None:
    """A search hit is a chunk whose line in its file is unknown (a LoCoMo answer quoted `conv-41.md:1`
    for a turn on line 154 that `find_lines` had also found)."""
    said = "Maria: I met Jean at the shelter on Friday."
    hit = passages(f"[document_chunk source:d/c.md] {said}")
    found = passages(found_line("source:d/c.md", 154, "", said))
    index = ReadIndex([*hit, *found]).units
    [check] = prove(["Where did Maria meet Jean?"], "At the shelter.", index)
    assert [(q.source, q.line) for q in check.quotes] == [("source:d/c.md", 154)], check


def test_the_answer_is_never_one_of_the_questions_own_words() -> None:
    index = ReadIndex([Read("a.md", "## Team Heron\nTeam Heron owns the search gateway.")]).units
    [check] = prove(["Who leads Team Heron?"], "Team Heron.", index)
    assert not check.answered and check.value == ""


def test_the_files_do_not_say_is_said_after_every_source_was_read_and_never_complete(
    reads: ReadIndex,
) -> None:
    """Lemmas cannot see a paraphrase, nor a misspelt name: not stated is never answered."""
    [absent] = prove(["Who leads Team Albatross?"], "The files read do not say.", reads.units, exhausted=True)
    [unsaid] = prove(["Who leads Team Osprey?"], "The files read do not say.", reads.units, exhausted=True)
    assert not absent.answered and absent.not_stated and absent.why.startswith("The files read do not say")
    assert not unsaid.answered and unsaid.not_stated
    [unread] = prove(["Who leads Team Albatross?"], "The files read do not say.", reads.units)
    assert not unread.answered and not unread.not_stated  # not every source was read


def test_a_quote_not_in_what_was_read_proves_nothing(reads: ReadIndex) -> None:
    line = QuotedLine(source="source:docs/teams.md", line=5, text="The team is led by Priya Nandakumar.")
    assert not occurs(line, reads.reads)  # the file wraps it over two lines... and says more
    layout = QuotedLine(source="source:docs/slos.md", line=7, text="|billing|  180 |99.95%|")
    assert occurs(layout, reads.reads)
    moved = layout.model_copy(update={"source": "source:docs/teams.md"})
    assert not occurs(moved, reads.reads)


@pytest.mark.parametrize(
    ("question", "kind", "attribute", "subject"),
    [
        ("Who leads Team Falcon?", "name", "lead team falcon", "team falcon"),
        ("Which office does Team Kestrel sit in?", "which", "office sit team kestrel", "team kestrel"),
        ("When did Caroline go to the LGBTQ group?", "date", "caroline go lgbtq group", "caroline lgbtq"),
        ("Who leads the team that owns the search gateway?", "name", "lead", "team own search gateway"),
        ("How many days of water does the reservoir hold?", "figure", "day", "water reservoir hold"),
        ("Why did Jon shut down his bank account?", "reason", "", ""),
    ],
)  # fmt: skip
def test_a_question_is_read_for_its_kind_its_attribute_and_its_subject(
    question: str, kind: str, attribute: str, subject: str
) -> None:
    asked = parse(question)
    assert asked.kind == kind
    if kind != "reason":
        assert asked.attribute == set(attribute.split()) and asked.subject == set(subject.split())


def test_words_compare_as_lemmas_and_names_as_written() -> None:
    assert content_terms("Who leads the team?") == {"lead", "team"}
    assert {"lead", "sit"} <= forms("It was led by Ana and sat in Porto.")
    assert "p99" not in forms("p95 latency") and content_terms("Does Wales win?") == {"wales", "win"}


def test_a_heading_lends_its_name_only_when_it_names_one_thing() -> None:
    team = units_of("t.md", "## Team Falcon\nLead: Priya.")[1]
    talk = units_of("c.md", "# Conversation between Ana and Bo\n\n## Session 1 — 8 May, 2023\n\nBo: Hi.")[-1]
    assert "falcon" in team.forms and team.section == "Team Falcon"
    assert "ana" not in talk.forms and "bo" in talk.forms  # the speaker, not the title's names


def test_a_name_said_to_is_not_what_the_sentence_is_about() -> None:
    [thanks, necklace] = units_of("c.md", "Ana: Thanks, Bo! This necklace is from my grandma in Sweden.")
    assert "bo" not in thanks.forms and not necklace.refers_back  # `This necklace` points at nothing


def test_find_lines_finds_every_line_holding_the_words_with_what_it_points_back_to(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    ctx = ToolContext(task_id="t", artifacts=tmp_path / "a", sources={"docs": tmp_path})
    found = find_lines(ctx, "source:docs", "leads team")
    lines = found.text.splitlines()
    assert lines[-1] == "(2 of 2 matching lines)"
    assert "source:docs/teams.md:8 | Teams › Team Kestrel] Team Kestrel owns" in lines[1]
    assert "It is led by Tomasz Wierzbicki." in lines[1]  # with the sentence `It` points to
    assert find_lines(ctx, "source:docs", "the").outcome != "success"  # no word to find


def test_the_offline_model_answers_by_the_same_rule(reads: ReadIndex) -> None:
    excerpts = [Excerpt(source=f"source:docs/{name}", text=text) for name, text in FILES.items()]

    def answer(goal: str) -> str:
        inp = DeliverInput(
            goal=goal, task_type="simple_question", deliverable="answer.md", notes=[], excerpts=excerpts
        )
        return deliver(inp).answer

    assert answer("Which office does Team Osprey sit in?") == "Porto."
    assert answer("Which office does Team Kestrel sit in?") == (
        "The files read do not say: Which office does Team Kestrel sit in?"
    )
    two = answer("Which team owns the billing service, and what is its p95 latency budget?")
    assert two.splitlines() == [
        "- Which team owns the billing service Team Falcon.",
        "- what is its p95 latency budget? 180 ms.",
    ]
