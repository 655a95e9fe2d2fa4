"""Inputs varied from a piece's examples, and two samples run side by side on them (`cairn.tasks.probes`)."""

from __future__ import annotations

from cairn.tasks.pieces import Piece
from cairn.tasks.probes import consensus, disagreement, probe_calls

CLOSEST = Piece(
    name="closest",
    stub="",
    examples=">>> closest([1.0, 2.0, 2.2])\n(2.0, 2.2)\n>>> closest([5.0, 1.0])\n(1.0, 5.0)",
)
SORTS = "def closest(x):\n    s = sorted(x)\n    return min(zip(s, s[1:]), key=lambda p: p[1] - p[0])\n"
IN_ORDER = (  # the pair as it stands in the list, not smaller first
    "def closest(x):\n"
    "    pairs = [(a, b) for i, a in enumerate(x) for b in x[i + 1:]]\n"
    "    return min(pairs, key=lambda p: abs(p[1] - p[0]))\n"
)


def test_each_example_gives_varied_calls_in_turn_its_own_calls_left_out() -> None:
    calls = probe_calls(CLOSEST)
    assert calls[:2] == ["closest([2.2, 2.0, 1.0])", "closest([1.0, 5.0])"]  # one of each example first
    assert "closest([1.0, 2.0, 2.2])" not in calls and "closest([5.0, 1.0])" not in calls
    assert len(calls) == len(set(calls))
    assert len(probe_calls(CLOSEST, limit=3)) == 3


def test_calls_that_are_not_literals_or_not_the_piece_give_nothing() -> None:
    nested = Piece(name="f", stub="", examples=">>> f(g(2))\n4\n>>> g(3)\n9\n>>> print(f(1))\n2")
    assert probe_calls(nested) == []
    keyword = Piece(name="f", stub="", examples=">>> f(2, k='ab')\n1")
    assert "f(2, k='ba')" in probe_calls(keyword)


def test_two_samples_that_return_different_values_disagree_on_the_first_such_call() -> None:
    found = disagreement(SORTS, IN_ORDER, probe_calls(CLOSEST))
    assert found is not None and found.call == "closest([2.2, 2.0, 1.0])"
    assert (found.one, found.other) == ("(2.0, 2.2)", "(2.2, 2.0)")
    assert found.words() == "closest([2.2, 2.0, 1.0]) gives (2.0, 2.2) here and (2.2, 2.0) in another sample"
    assert disagreement(SORTS, SORTS, probe_calls(CLOSEST)) is None


def test_floats_within_rounding_agree_and_a_call_one_side_cannot_run_is_no_evidence() -> None:
    one = "def f(x):\n    return 0.1 * 3 if x else 1 / x\n"
    other = "def f(x):\n    return 0.3 if x else 5\n"  # 1 / 0 raises in `one`: skipped
    assert disagreement(one, other, ["f(1)", "f(0)"]) is None
    looping = "def f(x):\n    while x == 2:\n        pass\n    return 0.3\n"
    assert disagreement(looping, other, ["f(2)", "f(1)"]) is None  # the loop is cut at a second
    assert disagreement(one, "def f(x):\n    return [0.3]\n", ["f(1)"]) is not None  # other types differ


def test_of_samples_no_two_of_which_agree_the_one_nearest_the_others_is_chosen() -> None:
    # the order slip of IN_ORDER is its own; the other two share the answer on most lists
    other = SORTS.replace("key=lambda p: p[1] - p[0]", "key=lambda p: (p[1] - p[0], -p[0])")
    calls = probe_calls(CLOSEST)
    assert consensus([IN_ORDER, SORTS, other], calls) == 1  # SORTS and `other` tie: the first of them
    assert consensus([SORTS, IN_ORDER], calls) == 0  # two samples: nothing to choose by
