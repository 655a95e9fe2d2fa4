"""The WordNet table that ships with Cairn: relations that must hold, unknown words, precedence."""

from __future__ import annotations

import time
from importlib import resources

import pytest

from cairn.tasks.verify import wordnet
from cairn.tasks.verify.wordnet import antonyms, derived, related, synonyms


@pytest.mark.parametrize(
    ("a", "b"),
    [("increase", "decrease"), ("first", "last"), ("allow", "deny"), ("buy", "sell"), ("true", "false")],
)
def test_antonyms_hold_both_ways(a: str, b: str) -> None:
    assert b in antonyms(a)
    assert a in antonyms(b)
    assert related(a, b) == related(b, a) == "antonym"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("own", "owner"),
        ("owner", "ownership"),
        ("lead", "leader"),
        ("govern", "government"),
        ("govern", "governor"),
        ("city", "urban"),  # a pertainym
        ("increased", "increase"),  # the morphological base of an adjective lemma
    ],
)
def test_derived_forms_hold_both_ways(a: str, b: str) -> None:
    assert b in derived(a)
    assert a in derived(b)
    assert related(a, b) == related(b, a) == "derived"


@pytest.mark.parametrize(
    ("a", "b"), [("large", "big"), ("begin", "start"), ("buy", "purchase"), ("allow", "permit")]
)
def test_synonyms_of_the_first_senses(a: str, b: str) -> None:
    assert b in synonyms(a)
    assert related(a, b) == related(b, a) == "synonym"


def test_synonyms_are_cautious() -> None:
    # "kill" and "murder" share a synset, but not among kill's two most frequent verb senses.
    assert "murder" not in synonyms("kill")
    # Two steps of derivation are not one: own -> owner -> ownership.
    assert related("own", "ownership") is None


def test_input_case_is_ignored_and_results_are_lower_case() -> None:
    assert antonyms("Increase") == antonyms("increase")
    assert "leader" in derived("LEAD")
    assert all(word == word.lower() for word in derived("lead") | synonyms("lead") | antonyms("lead"))


def test_unknown_words_have_no_relations() -> None:
    for word in ("xyzzyq", "", "owners", "ice-cream", "b52"):
        assert antonyms(word) == derived(word) == synonyms(word) == frozenset()
    assert related("xyzzyq", "plughq") is None


def test_related_precedence() -> None:
    assert related("Own", "own") == "same"
    assert related("big", "big") == "same"
    # advance / advanced: derived (its morphological base) and synonyms; derived wins.
    assert "advanced" in derived("advance") and "advanced" in synonyms("advance")
    assert related("advance", "advanced") == "derived"
    # ravel / unravel: synonyms (to disentangle) and antonyms (to tangle); synonym wins.
    assert "unravel" in synonyms("ravel") and "unravel" in antonyms("ravel")
    assert related("ravel", "unravel") == related("unravel", "ravel") == "synonym"
    # passerine / nonpasserine: derived and antonyms; derived wins.
    assert "nonpasserine" in derived("passerine") and "nonpasserine" in antonyms("passerine")
    assert related("passerine", "nonpasserine") == "derived"
    assert related("own", "big") is None


def test_results_are_frozensets() -> None:
    for found in (antonyms("increase"), derived("own"), synonyms("large"), antonyms("xyzzyq")):
        assert isinstance(found, frozenset)


def test_the_table_loads_once_and_quickly() -> None:
    wordnet._table.cache_clear()
    started = time.perf_counter()
    table = wordnet._table()
    took = time.perf_counter() - started
    assert wordnet._table() is table
    assert len(table["derived"]) > 30_000
    assert took < 2.0  # about 0.1 s here; generous for a loaded test machine


def test_the_notice_ships_next_to_the_data() -> None:
    data = resources.files("cairn.tasks.verify").joinpath("data")
    assert data.joinpath("wordnet.json.gz").is_file()
    notice = data.joinpath("NOTICE.md").read_text(encoding="utf-8")
    assert "Princeton WordNet 3.0" in notice
    assert "WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved." in notice
    assert "wordnet-base" in notice and "bench/wordnet_tables.py" in notice
