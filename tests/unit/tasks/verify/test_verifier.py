"""The verifier's parts as plain functions: what a question asks, the values a sentence offers,
whether an answer gives a value, the inputs read from structure, and the decision (proven,
unverified, absent) taken by the thresholds of the weights it is given."""

from __future__ import annotations

import pytest

from cairn.tasks.grounding.units import units_of
from cairn.tasks.verify import Corpus, Verifier, judge, prove, read_question
from cairn.tasks.verify.features import Asking, sentence_features
from cairn.tasks.verify.model import Logistic, Thresholds, load_verifier
from cairn.tasks.verify.spans import shape, spans, text_of
from cairn.tasks.verify.stated import gives
from cairn.tasks.verify.tokens import words

RANKER = Logistic(
    names=["gap_fill", "in_q"], mean=[0.0, 0.0], scale=[1.0, 1.0], weights=[2.0, -4.0], bias=0.0
)


def weighted(complete: float = 0.9, absent: float = 0.2) -> Verifier:
    """Weights whose verifier believes a value as much as its sentence states the question's
    words (cov_ctx), and never one that repeats the question (in_q)."""
    offline = Logistic(
        names=["cov_ctx", "in_q", "miss_names_s"],
        mean=[0.5, 0.0, 0.0],
        scale=[0.1, 0.1, 0.1],
        weights=[1.2, -3.0, -2.0],
        bias=0.0,
    )
    return Verifier(
        ranker=RANKER, offline=offline, thresholds={"offline": Thresholds(complete=complete, absent=absent)}
    )


@pytest.mark.parametrize(
    ("question", "wh", "head"),
    [
        ("In what country is Normandy located?", "whatnoun", "country"),
        ("When did the Normans conquer England?", "when", None),
        ("Who is the head of the Osprey team?", "who", "head"),  # a role, asked for a name
        ("How many days of water does it hold?", "howmany", "day"),
        ("Which century did it start in?", "whatdate", "century"),
        ("The church was built when?", "when", None),
        ("What is the p95 latency budget of billing?", "what", "budget"),
    ],
)
def test_the_wh_phrase_is_read_wherever_it_stands(question: str, wh: str, head: str | None) -> None:
    asked = read_question(question)
    assert (asked.wh, asked.head) == (wh, head)


def test_an_aside_names_the_unit_and_is_no_word_a_line_must_state() -> None:
    asked = read_question("What is its p95 latency budget (in milliseconds) of billing?")
    assert asked.unit == "ms" and "millisecond" not in asked.terms and "billing" in asked.terms


def test_decimals_currency_and_names_with_joiners_stay_whole() -> None:
    found = words("It cost $57,000 and 14.50 each at the Peabody Museum of Archaeology and Ethnology.")
    values = {text_of(found, s) for s in spans(found)}
    assert {"$57,000", "14.50", "Peabody Museum of Archaeology and Ethnology"} <= values
    assert shape(words("10th and 11th centuries")) == "date" and shape(words("Team Falcon")) == "name"


@pytest.mark.parametrize(
    ("answer", "value", "given"),
    [
        ("The fee is 14.50 dollars.", "14.50", True),
        ("The fee is 14 dollars.", "14.50", False),  # a figure is its value, not its first digits
        ("In February 1082.", "February 1082", True),
        ("In 1082.", "February 1082", False),  # a month is not stated by its year alone
        ("In February 1082.", "1082", False),  # nor given by an answer more precise than the line
        ("Team Falcon leads it.", "Falcon", True),
        ("Falcon leads it.", "Team Falcon", False),
        ("", "Falcon", False),
    ],
)
def test_an_answer_gives_a_value_by_its_figure_its_day_or_all_its_words(
    answer: str, value: str, given: bool
) -> None:
    assert gives(answer, value) is given


def test_a_swapped_name_and_a_negation_show_in_the_sentence_inputs() -> None:
    read = Corpus(units_of("source:a.md", "William conquered England in 1066. Harold did not flee."))
    asking = Asking.of(read_question("When did Harold conquer Scotland?"), read)
    first, second = sentence_features(asking, read, 0), sentence_features(asking, read, 1)
    assert first["miss_names_s"] >= 1  # `Harold` and `Scotland` are not on the first line
    assert second["neg_mismatch"] == 1.0 and first["neg_mismatch"] == 0.0


def test_a_value_the_answer_gives_is_proven_only_at_the_complete_threshold() -> None:
    read = Corpus(units_of("source:t.md", "Team Falcon owns billing. The billing budget is 180 ms."))
    question = "What is the billing budget?"
    assert (
        judge(question, read, weighted(complete=0.5), said=lambda v, line: v.startswith("180")).status
        == "proven"
    )
    assert (
        judge(question, read, weighted(complete=0.999), said=lambda v, line: v.startswith("180")).status
        == "unverified"
    )


def test_a_records_key_is_the_fields_name_never_its_value() -> None:
    """A front matter `ms_at_95th_percentile: 260` gave `95` as the p95 budget: the figure of its key."""
    from cairn.tasks.verify.reader import candidates

    text = "---\nsystem: achast resolver\nms_at_95th_percentile: 260\nresponsible_team: Team Curlew\n---\n"
    read = Corpus(units_of("source:achast-resolver.md", text))
    asking = Asking.of(read_question("What is the p95 latency budget of achast resolver?"), read)
    found = [c.text for c in candidates(asking, read, load_verifier().ranker)]
    assert found[0] == "260" and not {"95", "95th", "95th percentile"} & set(found)


def test_absence_is_claimed_only_after_every_source_was_read_and_below_the_absent_threshold() -> None:
    read = Corpus(
        units_of("source:t.md", "The search service has a p95 latency of 180 ms. Lunch is at noon.")
    )
    question = "What is the p99 latency of search?"
    assert judge(question, read, weighted(absent=0.99), exhausted=True).status == "absent"
    assert judge(question, read, weighted(absent=0.99), exhausted=False).status == "unverified"
    assert judge(question, read, weighted(absent=0.0), exhausted=True).status == "unverified"


def test_an_unverified_part_gives_the_answers_own_words_when_no_line_does() -> None:
    read = Corpus(units_of("source:t.md", "Team Falcon owns billing."))
    check = prove(["Who owns search?"], "Team Kestrel owns search.", read, verifier=weighted(complete=0.999))[
        0
    ]
    assert check.status == "unverified" and check.value == "Team Kestrel owns search"


def test_a_question_that_points_back_is_asked_with_the_rarest_words_before_it() -> None:
    read = Corpus(units_of("source:t.md", "Team Falcon owns billing. The billing budget is 180 ms."))
    checks = prove(
        ["Which team owns billing", "what is its budget?"],
        "Team Falcon; 180 ms.",
        read,
        verifier=weighted(complete=0.5),
    )
    assert [c.value for c in checks][1].startswith("180")


def test_the_shipped_weights_load_with_thresholds_for_the_offline_kind() -> None:
    weights = load_verifier()
    model, thresholds = weights.judge("offline")
    assert model.names and 0.0 <= thresholds.absent <= thresholds.complete <= 1.0
    assert weights.judge("served")[1] == weights.thresholds.get("served", thresholds)
