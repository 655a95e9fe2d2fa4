"""Offline docstrings: one line said from the function's name and signature, no meaning guessed.

>>> code = "def slugify(title: str) -> str:\\n    ...\\n"
>>> print(docstring(DocstringInput(path="slug.py", name="slugify", code=code)))
Slugify, given title (str); returns str.
>>> print(docstring(DocstringInput(path="a.py", name="reset_all", code="async def reset_all(): ...")))
Reset all.
"""

from __future__ import annotations

import ast
import textwrap

from cairn.tasks.messages.schemas import DocstringInput

__all__ = ["docstring"]


def docstring(inp: DocstringInput) -> str:
    """The function's name in words, then its parameters and what it returns, where written."""
    words = inp.name.strip("_").replace("_", " ") or inp.name
    said = words[:1].upper() + words[1:]
    node = _function(inp.code, inp.name)
    if node is None:
        return f"{said}."
    args = node.args
    named = [a for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.arg not in ("self", "cls")]
    params = [f"{a.arg} ({ast.unparse(a.annotation)})" if a.annotation else a.arg for a in named]
    given = f", given {', '.join(params)}" if params else ""
    returns = f"; returns {ast.unparse(node.returns)}" if node.returns else ""
    return f"{said}{given}{returns}."


def _function(code: str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError):
        return None
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return next((n for n in nodes if n.name == name), nodes[0] if nodes else None)
