"""What an answer gives each question of the goal, found exactly on the lines read: the answer's
own words (or their core, a name or a figure, when only that is on a line), never cut or re-cased,
and absence only where every source was read and no line holds the question's words."""

from __future__ import annotations

from cairn.core import Claim
from cairn.tasks.grounding.reads import Read
from cairn.tasks.verifier.part_values import part_values, says_absent

TEAMS = [Read("source:d/teams.md", "## Team Falcon\nTeam Falcon owns billing.\nLead: Priya Nandakumar.")]


def test_a_value_on_a_line_read_is_given_with_that_line() -> None:
    (check,) = part_values(["Who leads Team Falcon?"], "Priya Nandakumar leads it.", TEAMS)
    assert check.value == "Priya Nandakumar" and [q.line for q in check.quotes] == [3]
    assert not check.answered  # found is not proven: that is the judge's call


def test_an_answer_no_line_holds_is_given_whole_as_it_was_written() -> None:
    for answer, value in [
        (
            "William Ellery Channing and Ralph Waldo Emerson.",
            "William Ellery Channing and Ralph Waldo Emerson",
        ),
        ("Śródmieście", "Śródmieście"),
        ("they lead that team.", "they lead that team"),  # a common word of it is no value
    ]:
        (check,) = part_values(["Who leads Team Falcon?"], answer, TEAMS)
        assert (check.value, check.quotes) == (value, []) and check.why == f"no line read holds {value}"


def test_each_part_gets_its_own_clause() -> None:
    parts = ["Which team owns billing", "who leads it?"]
    checks = part_values(parts, "Team Falcon owns it, and Priya Nandakumar leads it.", TEAMS)
    assert [c.value for c in checks] == ["Team Falcon", "Priya Nandakumar"]


def test_absence_needs_every_source_read_a_heading_naming_its_subject_and_no_section_with_its_words() -> None:
    said = "The files read do not say it."
    (absent,) = part_values(["Where does Team Falcon sit?"], said, TEAMS, exhausted=True)
    (unread,) = part_values(["Where does Team Falcon sit?"], said, TEAMS, exhausted=False)
    (held,) = part_values(["Who leads Team Falcon?"], said, TEAMS, exhausted=True)
    # No line names Osprey: the files may call it otherwise (LoCoMo's question says "Jean" for "Gina").
    (unnamed,) = part_values(["Who leads Team Osprey?"], said, TEAMS, exhausted=True)
    assert absent.not_stated and absent.status == "absent"
    assert not unread.not_stated and unread.why.endswith("not every source was read")
    assert not held.not_stated and held.why.endswith("a line read holds the part's words")
    assert not unnamed.not_stated and unnamed.why.endswith("no heading or table row read names its subject")
    assert all(says_absent(c) for c in (unread, held, unnamed)) and not says_absent(absent)


def test_a_figure_cairn_worked_out_is_proven_by_its_operands_lines() -> None:
    reads = [
        Read(
            "source:d/water.md",
            "The tank holds 1,260,000 litres of water.\nThe town uses 8,400 litres a day.",
        )
    ]
    worked = Claim(text="150 days", kind="figure", status="computed", where="1260000 / 8400 = 150")
    (check,) = part_values(
        ["How many days of water does the tank hold?"], "150 days.", reads, computed=[worked]
    )
    assert check.answered and check.judge == "cairn (arithmetic)" and [q.line for q in check.quotes] == [1, 2]


def test_a_worked_figure_is_held_by_its_operands_own_sentences_not_their_neighbours() -> None:
    """`How many days of dead ...`: `dead storage` is on the stock's line, in the next sentence."""
    text = "The tank holds 1,260,000 litres of water. A further 90,000 litres of dead storage lie below.\n"
    reads = [Read("source:d/water.md", text + "The town uses 8,400 litres of water a day.")]
    worked = Claim(text="150 days", kind="figure", status="computed", where="1260000 / 8400 = 150")
    for part, proven in [
        ("How many days of water does the tank hold?", True),
        ("How many days of dead does the tank hold?", False),
    ]:
        (check,) = part_values([part], "150 days.", reads, computed=[worked])
        assert check.answered is proven
