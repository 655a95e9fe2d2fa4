"""The word lists of `cairn.tasks` live in one module, `cairn.tasks.grounding.lexicon`, each once.

Hand lists of words (prepositions, weekdays, auxiliaries...) spread over many modules drift apart:
one copy gains a word, another does not, and two readers of one question disagree. A module of
`cairn/tasks` other than the lexicon that defines a list of words at its top level fails here, so a
new one cannot come back unnoticed; and no two of the lexicon's own sets are the same set.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.memory.embed import words
from cairn.tasks.grounding import lexicon

ROOT = Path(__file__).resolve().parents[3]
TASKS = ROOT / "cairn" / "tasks"
LEXICON = Path(lexicon.__file__).resolve()
SHORTEST = 4  # fewer words than this is a comparison written out (`("what", "which")`), not a list
_WORD = re.compile(r"[a-z]+(?:['’-][a-z]+)*")
# Module-level lists of lower-case words that are names, not words of English: where, and why.
NOT_WORDS = {
    ("cairn/tasks/validation/suites.py", "ROWS"): "the kinds of a suite's rows, as its tables name them",
    ("cairn/tasks/grounding/functions.py", "_NOT_NAMED"): "like calls, never functions (`self`, `e.g`)",
    ("cairn/tasks/actions.py", "COMPOSED"): "a label a person reads: where a value came from",
    ("cairn/tasks/model/llm.py", "KEPT"): "a message a person reads: a runaway reply was kept",
    ("cairn/tasks/verifier/part_values.py", "SAID_ABSENT"): "a message a person reads: an unshown absence",
}


def _words_of(node: ast.expr) -> list[str] | None:
    """The words a literal list of words holds, or None when `node` is no such list: a set, list or
    tuple of string literals that are all lower-case single words, or one string of such words
    (`"of for to in".split()`, `frozenset("...".split())`, `terms("who whom ...")`)."""
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return texts if len(texts) == len(node.elts) and all(_WORD.fullmatch(t) for t in texts) else None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        texts = node.value.split()
        return texts if texts and all(_WORD.fullmatch(t) for t in texts) else None
    return None


def _lists(value: ast.expr) -> Iterator[list[str]]:
    """Every literal list of words in a module-level value, however deep (a union, a call), but
    not inside a dict (a table of values: `{"yesterday": -1, ...}`) or a type (`Literal[...]`)."""
    found = _words_of(value)
    if found is not None and len(found) >= SHORTEST:
        yield found
        return
    if isinstance(value, ast.Dict | ast.DictComp | ast.Subscript):
        return
    for child in ast.iter_child_nodes(value):
        if isinstance(child, ast.expr):
            yield from _lists(child)


def hand_lists(source: str) -> list[str]:
    """The names a module's top level binds to a literal list of words (or a value holding one)."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = [ast.unparse(t) for t in node.targets], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [ast.unparse(node.target)], node.value
        else:
            continue
        if targets != ["__all__"] and any(True for _ in _lists(value)):
            found += targets
    return found


def _modules() -> Iterator[Path]:
    for path in sorted(TASKS.rglob("*.py")):
        if path.resolve() != LEXICON:
            yield path


@pytest.mark.parametrize(
    ("source", "names"),
    [
        ('_AUX = frozenset(["is", "are", "was", "were"])', ["_AUX"]),
        ('_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")', ["_WEEKDAYS"]),
        ('_TEXT = "of for to in on"\nOPENERS = frozenset(_TEXT.split())', ["_TEXT"]),
        ('FRAME = WORDS | frozenset("please tell me us".split())', ["FRAME"]),
        ('_TERMS = terms("who whom whose what")', ["_TERMS"]),
        ('_STOP = A | {"each", "every", "all", "any"}', ["_STOP"]),
        ('_PAIR = ("what", "which")', []),  # too short to be a list
        ('_SKIP = {"__pycache__", "node_modules", ".git", "venv"}', []),  # not words
        ('NOT_STATED = "The files read do not say"', []),  # prose
        ('_SHIFT = {"yesterday": -1, "today": 0, "tomorrow": 1, "tonight": 0}', []),  # a table
        ('Kind = Literal["name", "which", "place", "date"]', []),  # a type
        ('__all__ = ["parse", "tokens", "forms", "lemma"]', []),
    ],
)
def test_a_hand_list_is_told_from_what_is_not_one(source: str, names: list[str]) -> None:
    assert hand_lists(source) == names


def test_no_module_of_cairn_tasks_but_the_lexicon_defines_a_word_list() -> None:
    found = [
        f"{path.relative_to(ROOT).as_posix()}: {name}"
        for path in _modules()
        for name in hand_lists(path.read_text(encoding="utf-8"))
        if (path.relative_to(ROOT).as_posix(), name) not in NOT_WORDS
    ]
    assert found == [], "word lists belong in cairn/tasks/grounding/lexicon (one copy each)"


def test_the_names_let_through_are_still_there() -> None:
    for where, name in NOT_WORDS:
        assert name in hand_lists((ROOT / where).read_text(encoding="utf-8")), f"{where}: {name}"


def _named_sets() -> dict[str, frozenset[object]]:
    """The lexicon's public lists, each as the set of what it holds (a table: its words)."""
    found: dict[str, frozenset[object]] = {}
    for name in lexicon.__all__:
        value = getattr(lexicon, name)
        if isinstance(value, frozenset | tuple | dict):
            found[name] = frozenset(value)
    return found


def test_no_two_lists_of_the_lexicon_are_the_same_set() -> None:
    named = _named_sets()
    same = [(a, b) for a in sorted(named) for b in sorted(named) if a < b and named[a] == named[b]]
    assert same == []


def test_every_list_of_the_lexicon_is_named_in_its_face_and_holds_words() -> None:
    public = {n for n, v in vars(lexicon).items() if n.isupper() and isinstance(v, frozenset | tuple | dict)}
    assert public == set(lexicon.__all__)
    assert all(_named_sets()[name] for name in public), "no list is empty"


def test_the_function_words_are_the_memory_rooms_own() -> None:
    """Memory never imports `cairn.tasks`: its list stays there, and the lexicon names that one."""
    assert lexicon.FUNCTION_WORDS is words.FUNCTION_WORDS
