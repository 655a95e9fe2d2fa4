"""A coding goal of several functions as pieces a small model can write one at a time.

A goal that gives the signatures and docstrings of several functions (HumanEval's problems asked
as one module, a small library's spec) is split into one piece per function: its stub as the goal
writes it, the goal's examples that call it, and the other pieces it names (helpers it may call).
Each piece is asked for alone, spliced into the module Cairn assembles, and verified by its own
examples in the task's test run; a piece whose examples passed is never asked for again.

>>> goal = '''Write solution.py:
... ```python
... from typing import List
...
... def double(x: int) -> int:
...     \"\"\"Twice x.
...     >>> double(2)
...     4
...     \"\"\"
...
... def quad(x: int) -> int:
...     \"\"\"double(double(x)).
...     >>> quad(1)
...     4
...     \"\"\"
... ```'''
>>> [(p.name, p.examples.splitlines()[0], p.helpers) for p in pieces_of(goal)]
[('double', '>>> double(2)', []), ('quad', '>>> quad(1)', ['double'])]
>>> preamble(goal)
'from typing import List\\n'
"""

from __future__ import annotations

import ast
import re
import textwrap
from functools import lru_cache

from pydantic import Field

from cairn.core import Frozen
from cairn.tasks.goal_examples import goal_examples

_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)  # a fenced block of code
_SECTIONS = ("Expected", "Got", "Exception raised")  # the parts of a doctest failure
# Samples of one function over a task. A body that failed its examples six times (two rounds of
# three) is given unverified: HumanEval/32 drawn ten times with the 1.5B passed them once, wrongly.
DRAWS = 6


class Piece(Frozen):
    """One function of the goal: what it is asked with and verified by."""

    name: str
    stub: str  # its signature and docstring, as the goal writes them
    examples: str = ""  # the goal's `>>>` lines that call it, with their replies
    # the goal's other functions its stub names, or its code block gives whole before it
    helpers: list[str] = Field(default_factory=list)
    given: bool = False  # the goal writes its body too (HumanEval/10's `is_palindrome`): never asked
    # the import lines of the block that gives it, and of blocks that give no function: what the
    # goal shows beside it (HumanEval/1 alone says `from typing import List`, not every problem's)
    imports: str = ""


def pieces_of(goal: str) -> list[Piece]:
    """The functions the goal's code gives (their signatures in fenced blocks, or the goal itself
    when it is code), in order; the first definition of a name wins."""
    return list(_pieces(goal))


@lru_cache(maxsize=32)
def _pieces(goal: str) -> tuple[Piece, ...]:
    """`pieces_of`, parsed once per goal: every step of every iteration asks for them."""
    stubs: dict[str, str] = {}
    given: set[str] = set()
    neighbours: dict[str, list[str]] = {}  # the functions a block defines before each of its own
    imports: dict[str, list[str]] = {}
    blocks: dict[str, int] = {}  # which block (its place in the goal) first gives each function
    shared = [line for block in _blocks(goal) if not _functions(block) for line in _import_lines(block)]
    for at, block in enumerate(_blocks(goal)):
        before: list[str] = []
        for node in _functions(block):
            imports.setdefault(node.name, _import_lines(block))
            blocks.setdefault(node.name, at)
            neighbours.setdefault(node.name, list(before))
            before.append(node.name)
            if node.name not in stubs and not bodiless(node):
                given.add(node.name)
            stubs.setdefault(node.name, _segment(block, node) if node.name in given else _stub(block, node))
    names = list(stubs)
    return tuple(
        Piece(
            name=name,
            stub=stub,
            examples=_examples_calling(stub, name),
            helpers=[
                other
                for other in names
                if other != name
                and (
                    (other in neighbours[name] and other in given)
                    # a plain word names a helper only above it in the same block: HumanEval/14's
                    # "from shortest to longest" is not HumanEval/12's `longest`, asked apart
                    or named_in(stub, other, above=_above(other, name, names, blocks))
                )
            ],
            given=name in given,
            imports=_joined(shared + imports[name]),
        )
        for name, stub in stubs.items()
    )


def _above(other: str, name: str, names: list[str], blocks: dict[str, int]) -> bool:
    """Whether `other` is given before `name` in the same block of code."""
    return names.index(other) < names.index(name) and blocks[other] == blocks[name]


def named_in(text: str, function: str, above: bool = False) -> bool:
    """Whether `text` names the function: called (`g(x)`), in backticks, or by a name no word of
    prose could be (`is_palindrome`), anywhere; by a plain word only when the function is defined
    `above` it (helpers first, as a goal reads top down). HumanEval/10's "the longest postfix" is
    not HumanEval/12's `longest`, defined after it; a library's "the words of text (see words)"
    is its `words`, defined before.

    >>> named_in("Find the longest postfix", "longest"), named_in("see longest(xs)", "longest")
    (False, True)
    >>> named_in("the distinct words of text (see words)", "words", above=True)
    True
    >>> named_in("uses is_palindrome on each", "is_palindrome"), named_in("calls `double`", "double")
    (True, True)
    """
    word = re.escape(function)
    if re.search(rf"\b{word}\s*\(|`{word}`", text):
        return True
    return (above or not function.isalpha()) and re.search(rf"\b{word}\b", text) is not None


def preamble(goal: str) -> str:
    """The import lines of the goal's code, once each: what every piece's module starts with."""
    return _joined([line for block in _blocks(goal) for line in _import_lines(block)])


def _import_lines(block: str) -> list[str]:
    """The top-level import statements of one block of code, as written."""
    try:
        tree = ast.parse(block)
    except SyntaxError:
        return []
    nodes = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    return [text for node in nodes if (text := ast.get_source_segment(block, node))]


def _joined(lines: list[str]) -> str:
    """Lines once each, in order, one per line."""
    return "".join(f"{line}\n" for line in dict.fromkeys(lines))


def prose_of(goal: str) -> str:
    """The goal's own words, each fenced block of code it quotes left out (`(code)` in its place):
    a person states rules in words; the code is the spec's. The 1.5B, shown HumanEval/10's code,
    made a rule of it ("Extract the constraint from the given input.").

    >>> prose_of("Write f in a.py; never use eval.\\n\\n```python\\ndef f(x):\\n    pass\\n```\\n")
    'Write f in a.py; never use eval.\\n\\n(code)\\n'
    """
    return _FENCE.sub("(code)", goal)


def ask_text(piece: Piece, pieces: list[Piece]) -> str:
    """The code a piece is asked to complete: its own imports and its helpers', the stubs of the
    helpers it names (to call, not to write), and its own stub: for a HumanEval problem, the very
    prompt the bare model is given.

    >>> one = Piece(name="f", stub='def f(x):\\n    "Add one; see g(x)."\\n', helpers=["g"])
    >>> two = Piece(name="g", stub='def g(x):\\n    "Same."\\n')
    >>> print(ask_text(one, [one, two]), end="")
    def g(x):
        "Same."
        ...
    <BLANKLINE>
    <BLANKLINE>
    def f(x):
        "Add one; see g(x)."
    """
    helpers = [p for p in pieces if p.name in piece.helpers]
    imports = _joined([line for p in [*helpers, piece] for line in p.imports.splitlines()])
    parts = [imports.rstrip("\n")] if imports else []
    parts += [p.stub.rstrip() if p.given else f"{p.stub.rstrip()}\n    ..." for p in helpers]
    parts.append(piece.stub.rstrip())
    return "\n\n\n".join(parts) + "\n"


def module_of(goal: str, pieces: list[Piece], current: str) -> str:
    """The module as it stands: the file written so far, else the goal's imports and every stub
    (a stub returns None: its examples fail until its piece is written)."""
    if current.strip() and _parses(current):
        return current
    stubs = "\n\n".join(p.stub.rstrip() + "\n" for p in pieces)
    imports = preamble(goal)
    return f"{imports}\n\n{stubs}" if imports else stubs


def splice(current: str, draft: str, name: str, pieces: list[Piece]) -> str | None:
    """`current` with the function `name` as `draft` writes it, with the helpers the draft adds
    (functions that are no piece of the goal and `current` lacks) and its imports that `current`
    lacks; None when the draft does not parse or does not define `name` with a body.

    >>> current = "import re\\n\\ndef f(x):\\n    'One.'\\n\\ndef g(x):\\n    return 2\\n"
    >>> draft = "import math\\nimport re\\ndef _h(x):\\n    return x\\n"
    >>> draft += "def f(x):\\n    'One.'\\n    return _h(1)\\n"
    >>> print(splice(current, draft, "f", [Piece(name="f", stub=""), Piece(name="g", stub="")]), end="")
    import re
    import math
    <BLANKLINE>
    def f(x):
        'One.'
        return _h(1)
    <BLANKLINE>
    def g(x):
        return 2
    <BLANKLINE>
    <BLANKLINE>
    def _h(x):
        return x
    """
    try:
        drafted, tree = ast.parse(draft), ast.parse(current)
    except SyntaxError:
        return None
    found = {n.name: n for n in _top(drafted)}
    if name not in found or bodiless(found[name]):
        return None
    goal_names = {p.name for p in pieces}
    have = {n.name for n in _top(tree)}
    helpers = [n for n in _top(drafted) if n.name not in goal_names and n.name not in have]
    text = _segment(draft, found[name])
    lines = current.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    old = next((n for n in _top(tree) if n.name == name), None)
    if old is not None and old.end_lineno is not None:
        lines[_first_line(old) - 1 : old.end_lineno] = [text]
    else:
        lines.append(f"\n\n{text}")
    lines += [f"\n\n{_segment(draft, helper)}" for helper in helpers]
    imports = [
        line
        for node in drafted.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        and (line := _segment(draft, node)) not in {_segment(current, n) for n in tree.body}
    ]
    at = _after_imports(tree)
    return "".join(lines[:at] + imports + lines[at:])


def completed(piece: Piece, draft: str) -> str:
    """The draft as code that defines the piece: itself when it does; else the lines that go after
    the piece's docstring (what a piece is asked for), under its stub, any import at the start of
    a line put first.

    >>> piece = Piece(name="f", stub='def f(x):\\n    "One more."\\n')
    >>> print(completed(piece, "import math\\n    return math.floor(x) + 1\\n"), end="")
    import math
    <BLANKLINE>
    def f(x):
        "One more."
        return math.floor(x) + 1
    """
    try:
        if any(n.name == piece.name for n in _top(ast.parse(draft))):
            return draft
    except SyntaxError:
        pass
    lines = draft.splitlines()
    imports = [line for line in lines if line.startswith(("import ", "from "))]
    body = textwrap.dedent("\n".join(line for line in lines if line not in imports)).strip("\n")
    stub = piece.stub.rstrip("\n").splitlines()
    indent = " " * _body_column(piece.stub)
    head = "".join(f"{line}\n" for line in imports) + ("\n" if imports else "")
    return head + "\n".join(stub) + "\n" + textwrap.indent(body, indent) + "\n"


def failures_of(run: str, name: str, limit: int = 3) -> str:
    """The goal's examples calling `name` that a test run failed, in words ("" when none).

    >>> run = "Failed example:\\n    f(2)\\nExpected:\\n    4\\nGot:\\n    5\\n"
    >>> failures_of(run, "f"), failures_of(run, "g")
    ('f(2) returned 5; the goal expects 4.', '')
    """
    said = [words for call, words in failed_examples(run) if name in _called(call)]
    return " ".join(said[:limit])


def failed_examples(run: str) -> list[tuple[str, str]]:
    """Each example a doctest run failed: its call, and what went wrong in words (a wrong value,
    `Got nothing`, or the exception it raised).

    >>> failed_examples("Failed example:\\n    f(1)\\nExpected:\\n    [1]\\nGot nothing\\n*****\\n")
    [('f(1)', 'f(1) returned nothing; the goal expects [1].')]
    >>> failed_examples("Failed example:\\n    g()\\nException raised:\\n    Traceback:\\n    KeyError: 2\\n")
    [('g()', 'g() raised KeyError: 2.')]
    """
    found: list[tuple[str, str]] = []
    lines = run.splitlines()
    for n, line in enumerate(lines):
        if line.strip() != "Failed example:" or n + 1 >= len(lines):
            continue
        call = lines[n + 1].strip()
        block = dict(_sections(lines[n + 2 :]))
        if "Exception raised" in block:
            error = block["Exception raised"].splitlines()[-1].strip() if block["Exception raised"] else ""
            found.append((call, f"{call} raised {error}."))
        else:
            expected, got = block.get("Expected") or "nothing", block.get("Got") or "nothing"
            found.append((call, f"{call} returned {got}; the goal expects {expected}."))
    return found


def verified(pieces: list[Piece], runs: list[tuple[bool, str]]) -> list[str]:
    """The pieces whose examples passed in the last test run that says so: a run that passed
    verifies every piece with examples; a failing run, those whose examples ran and none failed
    (when an error failed them all, or no example failed, it says nothing and an earlier run
    decides). `runs`: each test run's (passed, output), oldest first.

    >>> a = Piece(name="a", stub="", examples=">>> a(1)\\n1")
    >>> b = Piece(name="b", stub="", examples=">>> b(1)\\n2")
    >>> failed = "Failed example:\\n    b(1)\\nExpected:\\n    2\\nGot:\\n    3\\n"
    >>> verified([a, b], [(False, failed)]), verified([a, b], [(True, "2 passed")]), verified([a, b], [])
    (['a'], ['a', 'b'], [])
    """
    tested = [p.name for p in pieces if p.examples]
    for passed, output in reversed(runs):
        if passed:
            return tested
        bad = {name for call, _ in failed_examples(output) for name in _called(call)}
        if bad and not set(tested) <= bad:
            return [name for name in tested if name not in bad]
    return []


def _sections(lines: list[str]) -> list[tuple[str, str]]:
    """A doctest failure's `Expected:` / `Got:` / `Exception raised:` sections with their indented
    lines (`Got nothing` is an empty `Got`), up to the next failure or the end of the report."""
    out: list[tuple[str, str]] = []
    for line in lines:
        head = line.strip()
        if line.startswith((" ", "\t")) and out:
            out[-1] = (out[-1][0], f"{out[-1][1]}\n{head}".strip())
        elif head.startswith(_SECTIONS):
            out.append((head.removesuffix(":").removesuffix(" nothing"), ""))
        else:
            break
    return out


def _blocks(goal: str) -> list[str]:
    fenced = [m.group(1) for m in _FENCE.finditer(goal)]
    return fenced or ([goal] if _parses(goal) else [])


def _functions(block: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    try:
        return _top(ast.parse(block))
    except SyntaxError:
        return []


def _top(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _stub(block: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The function's lines up to the end of its docstring (its signature alone without one)."""
    lines = block.splitlines(keepends=True)
    doc = node.body[0] if ast.get_docstring(node) is not None else None
    end = doc.end_lineno if doc is not None and doc.end_lineno is not None else node.body[0].lineno - 1
    return "".join(lines[_first_line(node) - 1 : end])


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def _examples_calling(stub: str, name: str) -> str:
    """The stub's `>>>` examples that call `name`, each with its reply lines."""
    kept: list[str] = []
    taking = False
    for line in goal_examples(stub).splitlines():
        if line.startswith(">>>"):
            taking = name in _called(line.removeprefix(">>>"))
        if taking:
            kept.append(line)
    return "\n".join(kept)


def _called(source: str) -> set[str]:
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return set()
    return {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _segment(code: str, node: ast.stmt) -> str:
    lines = code.splitlines(keepends=True)
    first = _first_line(node) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else node.lineno
    text = "".join(lines[first - 1 : node.end_lineno])
    return text if text.endswith("\n") else text + "\n"


def _after_imports(tree: ast.Module) -> int:
    """The line after the module's leading docstring and imports (0-based)."""
    end = 0
    for n, node in enumerate(tree.body):
        docstring = n == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (docstring or isinstance(node, ast.Import | ast.ImportFrom)) or node.end_lineno is None:
            break
        end = node.end_lineno
    return end


def _body_column(stub: str) -> int:
    """The column of a stub's docstring: where its body's lines start (4 when it has none)."""
    try:
        node = _top(ast.parse(stub))[0]
    except (SyntaxError, IndexError):
        return 4
    return node.body[0].col_offset


def bodiless(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function has no body beyond its docstring, `pass` or `...` (a stub)."""
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    constant = [isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) for s in body]
    return all(isinstance(s, ast.Pass) or c for s, c in zip(body, constant, strict=True))


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


__all__ = [
    "Piece",
    "ask_text",
    "bodiless",
    "completed",
    "failed_examples",
    "failures_of",
    "module_of",
    "pieces_of",
    "preamble",
    "prose_of",
    "splice",
    "verified",
]
