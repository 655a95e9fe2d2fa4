"""The benchmark's own check of the slug.py an agent wrote (not shown to the agent)."""

from slug import slugify


def test_punctuation_and_case() -> None:
    assert slugify("Hello, World!") == "hello-world"


def test_spaces_at_the_ends_and_inside() -> None:
    assert slugify("  Cairn   v2 ") == "cairn-v2"


def test_nothing_left() -> None:
    assert slugify("!!!") == ""
