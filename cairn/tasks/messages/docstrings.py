"""Docstrings, one function at a time: which functions of a module lack one, the code a model is
shown to write one, what its reply says, and the docstring written into the function.

A coding task's suite wants its code documented (`validators/coding_task.json`). The 1.5B, whose
code passed its tests, never wrote a docstring when the planner was left to see to it; asked for
one function's docstring alone, it writes it (`cairn.flows.steps.docstring`). The docstring goes
in structurally: the line before the first statement of the function's body, at that
statement's indentation; every other byte of the module stays as it was.

>>> code = "@cache\\nasync def f(x):\\n    return x\\n"
>>> print(with_docstring(code, "f", "The same x."), end="")
@cache
async def f(x):
    \"\"\"The same x.\"\"\"
    return x
>>> once = with_docstring(code, "f", "The same x.")
>>> with_docstring(once, "f", "Another.") == once
True
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap

_FuncNode = ast.FunctionDef | ast.AsyncFunctionDef
_FENCE = re.compile(r"```[\w+-]*[ \t]*\n(.*?)(?:```|\Z)", re.S)  # a fenced block, closed or cut off
_QUOTED = re.compile(r'("""|\'\'\')(.*?)(?:\1|\Z)', re.S)  # a triple-quoted string, closed or cut off


def undocumented(code: str) -> list[str]:
    """The public functions and methods of a module without a docstring, in order (none when it
    does not parse): those `documented_share` counts against it.

    >>> undocumented("def f(): pass\\ndef _g(): pass\\nclass A:\\n    def m(self):\\n        'M.'\\n")
    ['f']
    """
    return [
        node.name
        for node in _functions(code)
        if not node.name.startswith("_") and ast.get_docstring(node) is None
    ]


def function_code(code: str, name: str) -> str:
    """The source of the function `name` (its decorators included, dedented), as a model is shown
    it; "" when the module does not define it."""
    node = _function(code, name)
    if node is None:
        return ""
    lines = code.splitlines(keepends=True)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return textwrap.dedent("".join(lines[first - 1 : node.end_lineno])).rstrip() + "\n"


def with_docstring(code: str, name: str, docstring: str) -> str:
    """The module with `docstring` as the first statement of the function `name`'s body, at its
    indentation; the module as it was when the function already has one, is not in it, the
    docstring is empty, or the result would not parse with that docstring read back."""
    node = _function(code, name)
    text = inspect.cleandoc(docstring).strip()
    if node is None or ast.get_docstring(node) is not None or not text:
        return code
    lines = code.splitlines(keepends=True)
    first = node.body[0]
    line = lines[first.lineno - 1]
    at = len(line.encode("utf-8")[: first.col_offset].decode("utf-8", errors="replace"))
    head = line[:at]
    if head.strip():  # `def f(x): return x`: the body moves to a line of its own, under the docstring
        indent = _indent(lines[node.lineno - 1]) + "    "
        new = [head.rstrip() + "\n", _quoted(text, indent), indent + line[at:]]
        written = "".join([*lines[: first.lineno - 1], *new, *lines[first.lineno :]])
    else:
        under = _under_signature(lines, node.lineno, first.lineno)
        written = "".join([*lines[:under], _quoted(text, head), *lines[under:]])
    return written if _reads_back(written, name, text) else code


def _under_signature(lines: list[str], header: int, body: int) -> int:
    """Where a docstring goes: the line after the signature, above any comment or blank line that
    precedes the body's first statement (line numbers from 1, the result an index into `lines`)."""
    at = body - 1
    while at - 1 >= header and (not lines[at - 1].strip() or lines[at - 1].lstrip().startswith("#")):
        at -= 1
    return at


def docstring_in(reply: str, name: str = "") -> str:
    """The docstring a model's reply gives: the docstring of the function `name` (or of the first
    function) in its code, else its first triple-quoted string, else its words; cleaned of quotes,
    fences and indentation. "" when it holds none: code without one is no docstring.

    >>> docstring_in('```python\\ndef f(x):\\n    \"\"\"Twice x.\"\"\"\\n    return 2 * x\\n```', "f")
    'Twice x.'
    >>> docstring_in('Here it is:\\n\"\"\"\\nTwice x.\\n\"\"\"'), docstring_in("`Twice x.`")
    ('Twice x.', 'Twice x.')
    >>> docstring_in("```python\\ndef f(x):\\n    return 2 * x\\n```", "f")
    ''
    """
    blocks = _FENCE.findall(reply) or [reply]
    words: list[str] = []  # blocks that are no code: prose
    for block in blocks:
        tree = _tree(block)
        if tree is None:
            words.append(block)
        elif found := _docstring_of(tree, name):
            return found
    if quoted := _QUOTED.search(reply):
        return inspect.cleandoc(quoted.group(2)).strip()
    return inspect.cleandoc(words[0].strip().strip("`'\"")).strip() if words else ""


def _tree(block: str) -> ast.Module | None:
    try:
        return ast.parse(textwrap.dedent(block))
    except (SyntaxError, ValueError):
        return None


def _docstring_of(tree: ast.Module, name: str) -> str:
    """The docstring of parsed code: the function `name`'s, else the first function's, else the
    code's own when it is only a string ("" when it has none)."""
    nodes = [n for n in ast.walk(tree) if isinstance(n, _FuncNode)]
    named = [n for n in nodes if n.name == name] or nodes[:1]
    if named:
        return ast.get_docstring(named[0]) or ""
    strings = all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) for s in tree.body)
    return (ast.get_docstring(tree) or "") if tree.body and strings else ""


def _functions(code: str) -> list[_FuncNode]:
    """The module's functions and methods, in the order they are written (none if it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found = [node for node in ast.walk(tree) if isinstance(node, _FuncNode)]
    return sorted(found, key=lambda node: (node.lineno, node.col_offset))


def _function(code: str, name: str) -> _FuncNode | None:
    return next((node for node in _functions(code) if node.name == name), None)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _quoted(text: str, indent: str) -> str:
    """The docstring's lines as written in code: triple-quoted, each line at `indent`."""
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if body.endswith('"'):
        body = body[:-1] + '\\"'
    lines = body.splitlines()
    rest = [f"{indent}{line}".rstrip() for line in lines[1:]]
    if not rest:
        return f'{indent}"""{lines[0]}"""\n'
    return "\n".join([f'{indent}"""{lines[0]}', *rest, f'{indent}"""']) + "\n"


def _reads_back(code: str, name: str, text: str) -> bool:
    node = _function(code, name)
    return node is not None and ast.get_docstring(node) == text


__all__ = ["docstring_in", "function_code", "undocumented", "with_docstring"]
