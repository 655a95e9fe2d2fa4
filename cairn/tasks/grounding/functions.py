"""The functions a coding goal names, and the passing test run that called each of them.

A goal names a function as code does (`slugify(text)`, `def has_close_elements(`) or in words
(`the function word_count`, ``the function `add` ``). A named function is exercised when the last
test run after the last code change passed and its tests called it (`cairn.tasks.tools.called`
records the calls).

>>> named_functions("Write slugify(text) in slug.py; it may use re.sub() and str.lower().")
['slugify']
>>> named_functions("Test the function `total`.\\ndef add(a: int, b: int) -> int:\\n    'Add a and b.'")
['add']
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable, Sequence

from cairn.core import FunctionCheck, PartCheck, ToolCall

_SIGNATURE = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(", re.M)
_AS_CODE = re.compile(r"(?<![\w.])(?:def\s+)?([A-Za-z_]\w*)\(")
# In words, a name must look like code: in backticks, or with an underscore (`word_count`).
_IN_WORDS = re.compile(r"\bfunctions?\s+(?:`([A-Za-z_]\w*)`|([A-Za-z]\w*_\w*))")
_FILE = re.compile(r"(?<![\w/.:-])((?:[\w-]+/)*[\w-]+\.(?:py|md|txt|toml|json|cfg|ini|yaml|yml))\b")
_NOT_NAMED = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"self", "cls", "e", "eg", "ie"}


def named_functions(goal: str) -> list[str]:
    """Names the goal gives functions, in order of first mention (builtins and keywords aside).
    A goal that holds signatures (`def name(`) names those: its prose may mention others."""
    if signatures := list(dict.fromkeys(_SIGNATURE.findall(goal))):
        return [name for name in signatures if name not in _NOT_NAMED]
    found = [m.group(1) for m in _AS_CODE.finditer(goal)]
    found += [m.group(1) or m.group(2) for m in _IN_WORDS.finditer(goal)]
    ordered = sorted(set(found), key=lambda name: goal.find(name))
    return [name for name in ordered if name not in _NOT_NAMED and not _prose(name, goal)]


def _prose(name: str, goal: str) -> bool:
    """`(for example)` is no call: a name counts only glued to its bracket or after `function`."""
    as_code = rf"(?<![\w.]){re.escape(name)}\("
    return not any(re.search(p, goal) for p in (as_code, rf"\bfunctions?\s+`?{re.escape(name)}\b"))


def named_files(goal: str) -> list[str]:
    """Files a coding goal asks for by name, in order (a `source:` path is read, not asked for).

    >>> named_files("Write `add` in solution.py, with pytest tests in test_solution.py; see source:a/spec.md")
    ['solution.py', 'test_solution.py']
    """
    return list(dict.fromkeys(_FILE.findall(goal)))


def check_files(names: Sequence[str], present: Callable[[str], bool]) -> list[PartCheck]:
    """Each file the goal names as a part of the goal: there (written, or already in the task's
    folders) or not. The 1.5B wrote a HumanEval solution and no tests file the goal asked for."""
    return [
        PartCheck(part=name, answered=(found := present(name)), why="" if found else f"{name} is not written")
        for name in names
    ]


def check_functions(
    names: Sequence[str], defined: Iterable[str], calls: Sequence[ToolCall]
) -> list[FunctionCheck]:
    """Each named function: defined by a file the task wrote, and called by the proving test run
    (the last `run_tests` after the last write, if it passed)."""
    proof = proving_run(calls)
    known = set(defined)
    return [
        FunctionCheck(
            name=name,
            defined=name in known,
            exercised=proof is not None and name in proof.exercised,
            test_run=proof.call_id if proof is not None else "",
        )
        for name in names
    ]


def proving_run(calls: Sequence[ToolCall]) -> ToolCall | None:
    """The last test run after the last successful write, when it passed; else None."""
    last: ToolCall | None = None
    for call in calls:
        if call.tool == "write_file" and call.outcome == "success":
            last = None
        elif call.tool == "run_tests":
            last = call
    return last if last is not None and last.outcome == "success" else None
