"""The near-miss generator (`bench/near_misses.py`): each rule it promises, on a corpus made up here
with names and topics found nowhere else in Cairn (so nothing in it can lean on today's words),
then on the shapes of the two suites it feeds (a LoCoMo-style conversation, the house tasks)."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

import near_misses  # noqa: E402
import source_lines  # noqa: E402
from agent_suites import house, locomo, near  # noqa: E402
from near_misses import NearMiss, Skipped, corpus, keeps_all_but_one, make, rng_for, subject  # noqa: E402
from source_lines import lemma, terms  # noqa: E402

CREWS = """# Crews

Three crews keep the harbour's systems running.

## Crew Quokka

Crew Quokka runs the ledger service and the invoice queue.
The crew is steered by Zara Okonkwo and works from the Quito studio.

## Crew Wombat

Crew Wombat runs the mailer service.
It is steered by Ilse Brandt.

## Crew Dingo

Crew Dingo runs the ranking service and works from the Tromso studio.
"""
BUDGETS = """# Budgets

Every budget below is a p90 figure, in seconds, measured at the quay gate.

| service | p90 budget (s) |
|---|---|
| ledger | 3 |
| mailer | 7 |
| ranking | 5 |

The paging service wakes whoever is on duty.
Each crew rotates the duty weekly and files a short log.
"""
DOCS = [CREWS, BUDGETS]
QUESTIONS = [
    "Who steers Crew Quokka?",
    "Which studio does Crew Dingo work from?",
    "What is the p90 budget of the mailer service?",
    "Which crew runs the ledger service?",
]


@pytest.fixture(scope="module")
def made() -> list[NearMiss]:
    """Every near miss of the four questions over ten seeds."""
    read = corpus(DOCS)
    found = [
        make(q, read, kind, rng_for(seed, f"q{n}", kind))
        for n, q in enumerate(QUESTIONS)
        for kind in ("attribute", "subject")
        for seed in range(10)
    ]
    return [m for m in found if isinstance(m, NearMiss)]


def _mentioning(word: str) -> list[frozenset[str]]:
    return corpus(DOCS).mentioning(lemma(word))


def test_the_lines_are_turns_sentences_rows_and_items_under_their_heading() -> None:
    lines = source_lines.lines(BUDGETS + "\n- One item here.\n\nAda: a turn.\n")
    owns = [line.own for line in lines]
    assert "ledger | 3" in owns and "One item here." in owns and "Ada: a turn." in owns
    row = next(line for line in lines if line.own == "mailer | 7")
    assert {"mailer", "p90", "budget", "service"} <= row.terms  # the row is read with its header
    steered = next(line for line in source_lines.lines(CREWS) if line.own == "It is steered by Ilse Brandt.")
    assert "wombat" in steered.terms  # the heading it stands under names its subject


def test_the_subject_is_a_name_else_the_word_before_a_head_noun() -> None:
    read = corpus(DOCS)
    for question, key, how in [
        ("Who steers Crew Quokka?", "Quokka", "name"),
        ("What is the p90 budget of the mailer service?", "mailer", "slot"),
        ("Which crew runs the ledger service?", "ledger", "slot"),
    ]:
        found = subject(question, read)
        assert found is not None and found.how == how
        assert near_misses.tokens(question)[found.key].text == key


def test_every_kind_is_made_for_the_made_up_corpus(made: list[NearMiss]) -> None:
    kinds = {(m.original, m.kind) for m in made}
    assert {
        ("Who steers Crew Quokka?", "subject"),
        ("Which crew runs the ledger service?", "subject"),
    } <= kinds
    assert any(kind == "attribute" for _, kind in kinds)
    assert "Who steers Crew Wombat?" not in {m.question for m in made}  # Wombat's lead is stated


def test_a_near_miss_keeps_every_content_term_but_one(made: list[NearMiss]) -> None:
    for m in made:
        assert keeps_all_but_one(m.original, m.question), m
        assert terms(m.question) - terms(m.original) == {lemma(m.new or "")}, m
        assert terms(m.original) - terms(m.question) == {lemma(m.old or "")}, m


def test_the_swapped_in_word_occurs_in_the_sources(made: list[NearMiss]) -> None:
    words = {w.lower() for doc in DOCS for w in re.findall(r"[A-Za-z0-9]+", doc)}
    for m in made:
        assert (m.new or "").lower() in words, m


def test_an_attribute_swap_is_never_in_a_line_that_mentions_the_subject(made: list[NearMiss]) -> None:
    read = corpus(DOCS)
    for m in (m for m in made if m.kind == "attribute"):
        found = subject(m.original, read)
        assert found is not None
        key = near_misses.tokens(m.original)[found.key].lemma
        assert all(lemma(m.new or "") not in line for line in read.mentioning(key)), m


def test_a_swapped_subject_lacks_the_fact(made: list[NearMiss]) -> None:
    for m in (m for m in made if m.kind == "subject"):
        others = terms(m.original) - {lemma(m.old or "")}
        lines = _mentioning(m.new or "")
        assert not any(others <= line for line in lines), m  # no one line states it...
        assert not others <= frozenset().union(*lines), m  # ...nor its lines together (not a speaker)


def test_the_same_seed_makes_the_same_question_and_seeds_vary_it() -> None:
    read = corpus(DOCS)
    question = "Which studio does Crew Dingo work from?"
    first = [make(question, read, "attribute", rng_for(seed, "t", "attribute")) for seed in range(12)]
    again = [make(question, corpus(DOCS), "attribute", rng_for(seed, "t", "attribute")) for seed in range(12)]
    assert first == again
    assert len({m.question for m in first if isinstance(m, NearMiss)}) > 1
    assert rng_for(0, "t", "subject").random() == random.Random("0/t/subject").random()


def test_a_kind_that_cannot_be_made_is_skipped_with_its_reason() -> None:
    read = corpus(DOCS)
    rng = random.Random(0)
    assert make("Summarise the budgets.", read, "subject", rng) == Skipped(
        "subject", "Summarise the budgets.", "not a question"
    )
    why = make("Is it raining?", read, "attribute", rng)
    assert isinstance(why, Skipped) and why.why == "no subject found"
    counts = near_misses.tally([why, NearMiss("attribute", "a?", "b?", "x", "y")])
    assert counts == {"attribute": {"made": 1, "skipped": 1}}


def test_removed_drops_exactly_the_lines_that_state_a_fact() -> None:
    text, gone = source_lines.drop(CREWS, lambda line: house.states(line, "Zara Okonkwo"))
    assert gone == ["The crew is steered by Zara Okonkwo and works from the Quito studio."]
    assert "Zara" not in text
    assert text.splitlines() == [line for line in CREWS.splitlines() if "Zara" not in line]
    # A paragraph that lost a sentence is written again as its other sentences on one line.
    joined, _ = source_lines.drop("A one. B two.\nC three.\n", lambda line: line.startswith("B"))
    assert joined == "A one. C three.\n"
    table, rows = source_lines.drop(BUDGETS, lambda line: house.states(line, "7"))
    assert rows == ["mailer | 7"] and "| ledger | 3 |" in table and "mailer" not in table


def test_removed_takes_a_dropped_headings_section_with_it() -> None:
    """Without "## Team Heron" its lines would stand under "## Team Falcon" and say that Falcon owns
    the recommendations service: a near miss the files would answer (wrongly, but as written)."""
    teams = "# Teams\n\n## Team Falcon\nOwns billing.\n\n## Team Heron\nOwns recommendations.\n\n"
    teams += "## Team Osprey\nOwns mail.\n"
    text, gone = source_lines.drop(teams, lambda line: house.states(line, "Heron"))
    assert "recommendations" not in text and "## Team Osprey\nOwns mail." in text
    assert gone == ["Team Heron", "Owns recommendations."]


def _conversation() -> dict[str, Any]:
    turns = [
        ("Odile", "D1:1", "I planted the quince tree by the shed last Sunday!"),
        ("Bram", "D1:2", "Lovely. I repainted the boat in green."),
        ("Odile", "D1:3", "The quince tree needs water every evening."),
        ("Bram", "D1:4", "My sister visits the lighthouse on Fridays."),
    ]
    return {
        "sample_id": "c-x",
        "conversation": {
            "speaker_a": "Odile",
            "speaker_b": "Bram",
            "session_1_date_time": "9:00 am on 2 June, 2024",
            "session_1": [{"speaker": s, "dia_id": d, "text": t} for s, d, t in turns],
        },
        "qa": [
            _qa("When did Odile plant the quince tree?", 2, ["D1:1"], answer="last Sunday"),
            _qa("What colour did Bram repaint the boat?", 4, ["D1:2"], answer="green"),
            _qa("What did Bram plant?", 5, ["D1:2"], adversarial_answer="a quince tree"),
        ],
    }


def _qa(question: str, category: int, evidence: list[str], **answers: str) -> dict[str, Any]:
    return {"question": question, "category": category, "evidence": evidence, **answers}


def test_a_speaker_is_swapped_for_the_other_speaker_who_never_said_it() -> None:
    sample = _conversation()
    read = corpus([locomo.transcript(sample)], speakers=["Odile", "Bram"])
    m = make("When did Odile plant the quince tree?", read, "subject", random.Random(0))
    assert isinstance(m, NearMiss) and m.question == "When did Bram plant the quince tree?"


def test_removed_in_a_conversation_drops_exactly_the_evidence_turns(tmp_path: Path) -> None:
    sample = _conversation()
    data = tmp_path / "dev.json"
    data.write_text(json.dumps([sample]), encoding="utf-8")
    cases = [case for case, _, _ in near.locomo_cases(data, None, 0, 0, ("removed",))]
    assert [c.name for c in cases] == ["near-removed-locomo-c-x-0", "near-removed-locomo-c-x-1"]
    full = locomo.transcript(sample).splitlines()
    reduced = cases[0].files["c-x"]["c-x.md"].splitlines()
    assert [line for line in full if line not in reduced] == [
        "Odile: I planted the quince tree by the shed last Sunday!"
    ]
    assert len(full) - len(reduced) == 1


def test_the_house_near_misses_are_made_and_counted_for_every_answerable_task() -> None:
    rows = near.generated("house", None, 0, 0, near_misses.KINDS)
    originals = {name for name, _ in rows}
    answerable = {n for n, spec, _ in house.specs() if spec.facts and not spec.unanswerable}
    assert originals == answerable and "slugify" not in originals
    assert {m.why for name, m in rows if name == "summary" and isinstance(m, Skipped)} == {"not a question"}
    made = {(name, m.kind): m for name, m in rows if isinstance(m, NearMiss)}
    lead = made[("teams-falcon-lead", "subject")].question
    assert lead in {"Who leads Team Osprey?", "Who leads Team Heron?"}  # Kestrel's lead is stated
    assert all(m.question == m.original for (_, kind), m in made.items() if kind == "removed")


def test_the_generator_prints_its_table_as_json() -> None:
    import subprocess

    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "near_misses.py"), "--suite", "house", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert set(report["counts"]) == {"attribute", "subject", "removed"}
    assert all(row["near_miss"] or row["why"] for row in report["rows"])


def test_removed_takes_every_evidence_id_written_even_two_in_one_string() -> None:
    sample = _conversation()
    qa = _qa("When did Odile plant the quince tree?", 2, ["D1:1; D1:3", "D"], answer="last Sunday")
    case = near._locomo_removed("t", qa["question"], sample, qa)
    reduced = case.files["c-x"]["c-x.md"]
    assert "quince" not in reduced and "repainted the boat" in reduced


def test_removed_also_drops_a_turn_that_states_the_fact_outside_the_evidence() -> None:
    """LoCoMo's evidence names one turn; "Odile: ... I planted it, the quince tree" states it too."""
    sample = _conversation()
    sample["conversation"]["session_1"].append(
        {"speaker": "Odile", "dia_id": "D1:5", "text": "Yes, I planted it myself, the quince tree."}
    )
    qa = _qa("When did Odile plant the quince tree?", 2, ["D1:1"], answer="last Sunday")
    reduced = near._locomo_removed("t", qa["question"], sample, qa).files["c-x"]["c-x.md"]
    assert "planted" not in reduced
    assert "The quince tree needs water every evening." in reduced  # no `plant`: it stays


def test_a_goal_of_several_parts_gets_no_swap_only_its_removed_kind() -> None:
    # "Which queue owns the billing service, and what is its p95 latency budget?" still asks for
    # a budget the files state: giving it is right, so the goal was no near miss.
    cases = near.house_cases(None, 0, 0, near_misses.KINDS)
    made = {(case.original, case.made.kind): case.made for case, _, _ in cases}
    assert isinstance(made["billing-owner", "attribute"], Skipped)
    assert isinstance(made["billing-owner", "removed"], NearMiss)
    assert isinstance(made["teams-billing-owner", "attribute"], NearMiss)  # one question: swapped
