"""Claims checked against what a task read, and the goal's parts against the answer: plain functions
over the team documents of `bench/agent_tasks/billing-owner/docs` (four Markdown files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.tasks.grounding import Read, ReadIndex, answer_body, split_goal
from cairn.tasks.grounding.figures import dates, figures
from cairn.tasks.grounding.functions import check_functions, named_functions
from cairn.tasks.grounding.names import names
from cairn.tasks.grounding.relative_dates import dated_text, resolved
from cairn.tasks.verifier.answer_check import Grounding, check_answer

DOCS = Path(__file__).resolve().parents[3] / "bench" / "agent_tasks" / "billing-owner" / "docs"
BILLING = "Which team owns the billing service, and what is its p95 latency budget?"
INCIDENT = "Which team owns the service whose latency budget was exceeded on March 21, and who leads it?"


@pytest.fixture(scope="module")
def reads() -> ReadIndex:
    return ReadIndex(
        Read(f"source:docs/{p.name}", p.read_text(encoding="utf-8")) for p in sorted(DOCS.iterdir())
    )


def checked(answer: str, goal: str, reads: ReadIndex, worked: tuple[str, ...] = ()) -> Grounding:
    return check_answer(answer, split_goal(goal), reads, goal, worked)


def unsupported(found: Grounding) -> list[str]:
    return [c.text for c in found.claims if not c.supported]


def answered(found: Grounding) -> list[bool]:
    return [p.answered for p in found.parts]


def values(found: Grounding) -> list[str]:
    return [p.value for p in found.parts]


def own_words(found: Grounding) -> list[bool]:
    """Per part: the value shown is the answer's own words, which no line read holds."""
    return [p.why.startswith("no line read holds") for p in found.parts]


# --- the goal's parts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("goal", "parts"),
    [
        (BILLING, ["Which team owns the billing service", "what is its p95 latency budget?"]),
        (
            INCIDENT,
            ["Which team owns the service whose latency budget was exceeded on March 21", "who leads it?"],
        ),
        (
            "How many days of water does the reservoir hold?",
            ["How many days of water does the reservoir hold?"],
        ),
        (
            "Notes are in docs. Summarise them. Who wrote the last one?",
            ["Summarise them.", "Who wrote the last one?"],
        ),
        ("The reservoir", ["The reservoir"]),  # neither asks nor instructs: the goal is its one part
        # A SQuAD question: an abbreviation's period ends no sentence.
        ("When was the St. Bartholomew's Day Massacre?", ["When was the St. Bartholomew's Day Massacre?"]),
    ],
)
def test_a_goal_is_split_into_the_parts_it_asks(goal: str, parts: list[str]) -> None:
    assert split_goal(goal) == parts


# --- what the issue saw -------------------------------------------------------------------------


def test_a_figure_in_no_file_is_named_and_its_part_unanswered(reads: ReadIndex) -> None:
    found = checked(
        "The billing service owns the billing service, and its p95 latency budget is 6.43 ms.", BILLING, reads
    )
    assert unsupported(found) == ["6.43 ms"]
    assert [c.reason() for c in found.claims if not c.supported] == ["6.43 ms is in no file read"]
    assert answered(found) == [False, False]  # repeating the question names no team


def test_a_part_left_without_a_name_is_unanswered(reads: ReadIndex) -> None:
    found = checked("Team Heron, and they lead that team.", INCIDENT, reads)
    assert unsupported(found) == [] and answered(found)[1] is False and own_words(found)[1]
    assert found.parts[1].status == "unverified"  # given as the answer's words, never as proven


def test_a_figure_from_the_files_said_of_something_else_does_not_answer(reads: ReadIndex) -> None:
    """The 1.5B's answer: 30 minutes is in slo.md, but as how long a breach may last."""
    found = checked(
        "Team Falcon owns the billing service, and its p95 latency budget is 30 minutes.", BILLING, reads
    )
    assert unsupported(found) == []  # every claim is in a file...
    assert values(found)[1] == "30 minutes" and answered(found) == [False, False]  # ...but on its line
    assert found.parts[1].status == "unverified"  # it is not the budget: only a judge may say it is


def test_a_right_grounded_answer_gives_the_values_of_the_lines_it_quotes(reads: ReadIndex) -> None:
    found = checked("Team Falcon owns the billing service. Its p95 latency budget is 180 ms.", BILLING, reads)
    assert unsupported(found) == [] and values(found) == ["Team Falcon", "180 ms"]
    assert [{q.source for q in p.quotes} for p in found.parts] == [
        {"source:docs/teams.md"},
        {"source:docs/slo.md"},
    ]
    where = {c.text: c.where for c in found.claims}
    assert where == {"Team Falcon": "source:docs/teams.md", "180 ms": "source:docs/slo.md"}


def test_a_two_part_answer_gives_each_part_its_own_clause(reads: ReadIndex) -> None:
    answer = "The recommendations service is owned by Team Heron; it is led by Tomas Berg."
    found = checked(answer, INCIDENT, reads)
    assert unsupported(found) == [] and values(found)[1] == "Tomas Berg"


def test_arithmetic_over_stated_figures_is_computed_not_invented() -> None:
    reads = ReadIndex(
        [Read("source:c/r.md", "It holds 1,260,000 m³."), Read("source:c/u.md", "Use: 8,400 m³ a day.")]
    )
    goal = "How many days does the reservoir last?"
    stated = checked("It lasts 150 days: 1,260,000 m³ / 8,400 m³ a day.", goal, reads)
    assert (stated.claims[0].text, stated.claims[0].status) == ("150 days", "computed")
    worked = checked("It lasts 150 days.", goal, reads, worked=("1260000 / 8400",))
    assert [(c.text, c.status, c.where) for c in worked.claims] == [
        ("150 days", "computed", "1260000 / 8400 = 150")
    ]
    guessed = checked("It lasts 151 days.", goal, reads)
    assert unsupported(guessed) == ["151 days"]


def test_a_short_answer_without_figures_or_names_is_checked_by_its_words() -> None:
    reads = ReadIndex(
        [Read("source:chat/log.md", "Caroline: I've been researching adoption agencies lately.")]
    )
    goal = "What did Caroline research?"
    right = checked("Adoption agencies.", goal, reads)
    assert values(right) == ["Adoption agencies"] and not own_words(right)[0]  # as the answer writes it
    wrong = checked("Pottery classes.", goal, reads)
    assert own_words(wrong) == [True] and unsupported(wrong) == ["Pottery"]  # a capital reads as a name


# --- reading the answer -------------------------------------------------------------------------


def test_the_answer_body_drops_markdown_citations_sources_and_the_banner() -> None:
    text = (
        "> **Unverified**: 6.43 ms is in no file read\n\n# Answer\n\n"
        "It is **180 ms** [source: slo.md].\n\n## Sources\n- slo.md\n"
    )
    assert answer_body(text) == "It is 180 ms."


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("1,260,000 m³", [(1_260_000.0, "m3")]),
        ("1.26 million cubic metres", [(1_260_000.0, "m3")]),
        ("42,000 euros, up 3%", [(42_000.0, "eur"), (3.0, "%")]),
        ("p95 and v1.2 and D3:12", []),  # identifiers, not figures
        ("at 21:00, 9:30 pm or 12:15 am", [(1260.0, "clock"), (1290.0, "clock"), (15.0, "clock")]),
        ('"datetime": "2026-11-25T21:00:00+09:00"', [(1260.0, "clock")]),  # the offset is no time
        ("from 10:00-11:30", [(600.0, "clock"), (690.0, "clock")]),
    ],
)
def test_figures_are_read_as_values_with_units(text: str, found: list[tuple[float, str | None]]) -> None:
    assert [(f.value, f.unit) for f in figures(text)] == found


def test_dates_compare_however_they_are_written() -> None:
    (a,), (b,), (c,) = dates("March 21"), dates("21st of March, 2026"), dates("2026-03-21")
    assert a.matches(b) and b.matches(c) and not dates("8 May, 2023")[0].matches(dates("7 May 2023")[0])


def test_names_skip_sentence_openers_weekdays_and_file_names() -> None:
    text = "The owner is Team Falcon. On Mondays, Priya Nandakumar reads slo.md."
    assert [n.text for n in names(text)] == ["Team Falcon", "Priya Nandakumar"]


# --- a coding goal's functions ------------------------------------------------------------------


def test_the_functions_a_goal_names_must_be_defined_and_called_by_the_passing_run() -> None:
    from cairn.core import ToolCall

    def call(n: int, tool: str, outcome: str = "success", exercised: list[str] | None = None) -> ToolCall:
        return ToolCall(
            call_id=f"call-{n}", iteration=n, index=1, tool=tool, outcome=outcome, exercised=exercised or []
        )

    goal = "Write word_count(text) and mean_length(text) in words.py, with tests."
    assert named_functions(goal) == ["word_count", "mean_length"]
    runs = [call(1, "write_file"), call(2, "run_tests", exercised=["word_count"])]
    rows = check_functions(named_functions(goal), {"word_count", "mean_length"}, runs)
    assert [(f.name, f.exercised, f.test_run) for f in rows] == [
        ("word_count", True, "call-2"),
        ("mean_length", False, "call-2"),
    ]
    rewritten = [*runs, call(3, "write_file")]  # a change after the run: the run proves nothing now
    assert not any(f.exercised for f in check_functions(["word_count"], {"word_count"}, rewritten))


def test_a_tools_output_is_read_as_the_answer_to_its_call() -> None:
    """An MCP time server's JSON says `21:00` beside `Asia/Tokyo` and nothing of London or noon:
    the call's own arguments say what the output answers."""
    goal = "What time is it in Tokyo when it is 12:00 in London?"
    output = (
        '{\n  "source": {"timezone": "Europe/London", "datetime": "2026-11-25T12:00:00+00:00"},\n'
        '  "target": {"timezone": "Asia/Tokyo", "datetime": "2026-11-25T21:00:00+09:00"}\n}'
    )
    asked = "time.convert_time Europe/London 12:00 Asia/Tokyo"
    bare, framed = ReadIndex([Read("call-1-1", output)]), ReadIndex([Read("call-1-1", output, about=asked)])
    right, wrong = "It is 21:00 in Tokyo.", "It is 22:00 in Tokyo."
    said = checked(right, goal, framed)
    assert unsupported(said) == [] and said.parts[0].value == "It is 21:00 in Tokyo"  # as the model wrote it
    assert unsupported(checked(wrong, goal, framed)) == ["22:00"]
    assert unsupported(checked(right, goal, bare)) == []
    # Known limit: every line of the output is said of the whole call, London's 12:00 included; and
    # "noon" for 12:00 would be unproven: the quote check compares words, not what they mean.


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[8 May, 2023] I went yesterday.", "[8 May, 2023] I went yesterday (7 May 2023)."),
        (
            "[20 July, 2023] I joined last Tues.",
            "[20 July, 2023] I joined last Tues (the Tuesday before 20 July 2023, 18 July 2023).",
        ),
        (
            "[9 June, 2023] We met last week.",
            "[9 June, 2023] We met last week (the week before 9 June 2023).",
        ),
        (
            "[1 Jan, 2023] Two weeks ago, last month",
            "[1 Jan, 2023] Two weeks ago (18 December 2022), last month (December 2022)",
        ),
        ("[1 Jan, 2023] I painted it last year.", "[1 Jan, 2023] I painted it last year (2022)."),
        ("I went yesterday.", "I went yesterday."),  # nothing dates the line: nothing to work out
        ("[8 May, 2023] yesterday (7 May 2023)", "[8 May, 2023] yesterday (7 May 2023)"),  # once only
    ],
)
def test_relative_days_are_dated_from_the_date_before_them(line: str, expected: str) -> None:
    assert resolved(line) == expected


def test_a_heading_dates_the_lines_under_it_and_code_is_left_alone() -> None:
    text = "## Session 1 — 8 May, 2023\nAna: I ran yesterday.\n```python\nyesterday = today - 1\n```"
    assert dated_text(text).splitlines()[1:] == [
        "Ana: I ran yesterday (7 May 2023).",
        "```python",
        "yesterday = today - 1",
        "```",
    ]


def test_the_day_a_relative_expression_means_answers_a_when_question_the_heading_date_does_not() -> None:
    session = "## Session 1 — 1:56 pm on 8 May, 2023\n\n" + "\n".join(
        [
            "Ana: Hey Mel! Good to see you!",
            "Mel: Hey Ana! I'm swamped with the kids & work. What's up with you?",
            "Ana: I went to a support group yesterday and it was so powerful.",
            "Mel: Wow, that's cool! What happened there?",
        ]
    )
    reads, part = ReadIndex([Read("source:c/c.md", session)]), ["When did Ana go to the support group?"]
    right, written = check_answer("7 May 2023", part, reads, ""), check_answer("8 May, 2023", part, reads, "")
    assert values(right) == ["7 May 2023"]
    assert own_words(written) == [True]  # the day the line was said, not the day she went


HITS = [
    "[4:04 pm on 20 January, 2023] Jon: Lost my job as a banker yesterday, so I'm starting a business.",
    "[4:04 pm on 20 January, 2023] Gina: Sorry about your job! I also lost my job at Door Dash this month.",
    "[4:04 pm on 20 January, 2023] Gina: Hey Jon! Good to see you. What's up?",
]


@pytest.mark.parametrize(
    ("part", "answer", "value"),
    [
        (
            "When did Jon lose his job as a banker?",
            "Jon lost his job as a banker on 19 January 2023.",
            "19 January 2023",
        ),
        (
            "When did Gina lose her job at Door Dash?",
            "Gina lost her job at Door Dash in January 2023.",
            "January 2023",
        ),
        # "this month" states the month, not the 20th (a real 1.5B answer); the 20th is on the line
        # only as its timestamp, in another format: held there, and whether the line states it is
        # the judge's to say, so it is given unproven.
        (
            "When did Gina lose her job at Door Dash?",
            "Gina lost her job at Door Dash on January 20, 2023.",
            "January 20, 2023",
        ),
    ],
)
def test_a_when_answer_gives_the_day_the_files_say_of_it_and_no_other(
    part: str, answer: str, value: str
) -> None:
    reads = ReadIndex([Read("source:conv-30/conv-30.md", hit) for hit in HITS])
    found = check_answer(answer, [part], reads, "")
    assert own_words(found) == [False] and values(found) == [value]
    assert not any(p.answered for p in found.parts)


def test_a_figure_takes_no_hop_to_answer_how_many_days() -> None:
    """The offline model's report once stated only the daily use; a figure near 'consumption'
    in one file hopped to the reservoir's line in another and answered "how many days"."""
    reads = ReadIndex(
        [
            Read(
                "source:corpus/reservoir.md",
                "The Alder Creek reservoir holds 1,260,000 cubic metres of usable water.",
            ),
            Read(
                "source:corpus/water-use-2025.md",
                "In 2025 the town's average daily consumption was 8,400 cubic metres of water, up 3%.",
            ),
        ]
    )
    part = [
        "How many days of water does the Alder Creek reservoir hold at the 2025 average daily consumption?"
    ]
    used = "In 2025 the town's average daily consumption was 8,400 cubic metres of water, up 3% on 2024."
    assert [p.answered for p in check_answer(used, part, reads, part[0]).parts] == [False]
    days = "About 150 days: 1,260,000 cubic metres held / 8,400 cubic metres used per day."
    assert [p.answered for p in check_answer(days, part, reads, part[0]).parts] == [True]
