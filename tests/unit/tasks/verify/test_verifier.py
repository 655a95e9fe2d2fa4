"""The fitted reader's parts as plain functions: what a question asks, the values a sentence
offers, the inputs read from structure, and the weights it ships."""

from __future__ import annotations

import pytest

from cairn.tasks.grounding.units import units_of
from cairn.tasks.verify import Corpus, read_question
from cairn.tasks.verify.features import Asking, sentence_features
from cairn.tasks.verify.model import load_verifier
from cairn.tasks.verify.spans import shape, spans, text_of
from cairn.tasks.verify.tokens import words


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


def test_a_swapped_name_and_a_negation_show_in_the_sentence_inputs() -> None:
    read = Corpus(units_of("source:a.md", "William conquered England in 1066. Harold did not flee."))
    asking = Asking.of(read_question("When did Harold conquer Scotland?"), read)
    first, second = sentence_features(asking, read, 0), sentence_features(asking, read, 1)
    assert first["miss_names_s"] >= 1  # `Harold` and `Scotland` are not on the first line
    assert second["neg_mismatch"] == 1.0 and first["neg_mismatch"] == 0.0


def test_a_records_key_is_the_fields_name_never_its_value() -> None:
    """A front matter `ms_at_95th_percentile: 260` gave `95` as the p95 budget: the figure of its key."""
    from cairn.tasks.verify.reader import candidates

    text = "---\nsystem: achast resolver\nms_at_95th_percentile: 260\nresponsible_team: Team Curlew\n---\n"
    read = Corpus(units_of("source:achast-resolver.md", text))
    asking = Asking.of(read_question("What is the p95 latency budget of achast resolver?"), read)
    found = [c.text for c in candidates(asking, read, load_verifier().ranker)]
    assert found[0] == "260" and not {"95", "95th", "95th percentile"} & set(found)


def test_the_shipped_weights_load_with_their_thresholds() -> None:
    weights = load_verifier()
    assert weights.offline.names and 0.0 <= weights.thresholds.absent <= weights.thresholds.complete <= 1.0
