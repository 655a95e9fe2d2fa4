"""The model's own test of a function the goal gives no example of (`cairn.tasks.pieces`).

Such a function has nothing of the goal's to run (HumanEval/38's `decode_cyclic`: its docstring
says what it undoes, and shows no call). The model is asked once for a test of it, shown the
function's stub as the goal writes it; the test goes into the tests file the goal names. If it
fails on the model's code, one of the two is wrong and nothing says which: the task says so and
does not loop on it (`cairn.flows.loop.policy`).

>>> piece = Piece(name="decode", stub="def decode(s: str):\\n    'Undo encode.'\\n", helpers=["encode"])
>>> print(tests_stub(piece, "solution"), end="")
from solution import decode, encode
<BLANKLINE>
<BLANKLINE>
def test_decode():
    # decode, as the goal specifies it:
    # def decode(s: str):
    #     'Undo encode.'
"""

from __future__ import annotations

import ast

from cairn.tasks.pieces import Piece, bodiless


def test_of(piece: Piece) -> str:
    """The name of the test asked for: `test_decode`."""
    return f"test_{piece.name}"


def tests_stub(piece: Piece, module: str) -> str:
    """The tests file the model is asked to complete: the import of the function (and the
    helpers it names) and an empty test whose comment is the function's stub."""
    names = ", ".join([piece.name, *piece.helpers])
    spec = "".join(f"    # {line}".rstrip() + "\n" for line in piece.stub.rstrip().splitlines())
    head = f"from {module} import {names}\n\n\ndef {test_of(piece)}():\n"
    return f"{head}    # {piece.name}, as the goal specifies it:\n{spec}"


def tests_in(draft: str, piece: Piece, pieces: list[Piece]) -> str | None:
    """The test functions of a reply (`def test_*` with a body, top level) after its imports of
    other modules, when it has the one asked for and defines none of the goal's functions itself
    (a test of its own copy would test nothing); None otherwise.

    >>> p = Piece(name="f", stub="")
    >>> tests_in("from m import f\\ndef test_f():\\n    assert f(1) == 2\\n", p, [p])
    'def test_f():\\n    assert f(1) == 2\\n'
    >>> tests_in("def f(x):\\n    return 2\\ndef test_f():\\n    assert f(1) == 2\\n", p, [p]) is None
    True
    """
    try:
        tree = ast.parse(draft)
    except SyntaxError:
        return None
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if any(n.name in {p.name for p in pieces} for n in functions):
        return None
    tests = [n for n in functions if n.name.startswith("test_") and not bodiless(n)]
    if test_of(piece) not in {n.name for n in tests}:
        return None
    names = {p.name for p in pieces}
    imports = [
        ast.get_source_segment(draft, n) or ""
        for n in tree.body
        if isinstance(n, ast.Import)
        or (isinstance(n, ast.ImportFrom) and not {a.name for a in n.names} & names)
    ]
    head = "".join(f"{line}\n" for line in imports)
    return head + "\n\n".join(ast.get_source_segment(draft, n) or "" for n in tests) + "\n"
