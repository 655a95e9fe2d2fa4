"""A docstring written into a function: at its body's indentation, the rest of the module byte for
byte as it was; a function that has one, or a reply that holds none, leaves the module unchanged."""

from __future__ import annotations

import ast

import pytest

from cairn.tasks.messages.docstrings import docstring_in, function_code, undocumented, with_docstring

SLUG = """import re


def slugify(title: str) -> str:
    # runs of anything else become one hyphen
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
"""


def test_a_function_without_a_docstring_gets_it_at_its_bodys_indentation() -> None:
    written = with_docstring(SLUG, "slugify", "The title as a URL slug.")
    assert written == SLUG.replace(
        "    # runs", '    """The title as a URL slug."""\n    # runs'
    )  # one line added, every other byte as it was
    (node,) = [n for n in ast.parse(written).body if isinstance(n, ast.FunctionDef)]
    assert ast.get_docstring(node) == "The title as a URL slug."


def test_a_function_with_a_docstring_is_unchanged() -> None:
    documented = 'def f(x):\n    """Already said."""\n    return x\n'
    assert with_docstring(documented, "f", "Another.") == documented
    assert undocumented(documented) == []


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (  # decorators above the def: the docstring still goes under it
            "@lru_cache(maxsize=8)\n@other\ndef f(x):\n    return x\n",
            '@lru_cache(maxsize=8)\n@other\ndef f(x):\n    """Doc."""\n    return x\n',
        ),
        (  # an async def
            "async def f(x):\n    await x\n",
            'async def f(x):\n    """Doc."""\n    await x\n',
        ),
        (  # a decorated async method, indented twice, with tabs
            "class A:\n\t@staticmethod\n\tasync def f(x):\n\t\treturn x\n",
            'class A:\n\t@staticmethod\n\tasync def f(x):\n\t\t"""Doc."""\n\t\treturn x\n',
        ),
        (  # a signature over several lines
            "def f(\n    x: int,\n) -> int:\n    return x\n",
            'def f(\n    x: int,\n) -> int:\n    """Doc."""\n    return x\n',
        ),
        (  # a body on the def's own line moves under the docstring
            "def f(x): return x\n",
            'def f(x):\n    """Doc."""\n    return x\n',
        ),
    ],
)
def test_decorators_async_defs_and_methods_are_handled(code: str, expected: str) -> None:
    assert with_docstring(code, "f", "Doc.") == expected


def test_a_docstring_of_several_lines_is_indented_and_quotes_are_escaped() -> None:
    code = "def f(x):\n    return x\n"
    written = with_docstring(code, "f", 'Say "x".\n\nReturns x, as "given"')
    assert written == 'def f(x):\n    """Say "x".\n\n    Returns x, as "given\\"\n    """\n    return x\n'
    node = ast.parse(written).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert ast.get_docstring(node) == 'Say "x".\n\nReturns x, as "given"'


@pytest.mark.parametrize("code", ["def g(x):\n    return x\n", "def f(x:\n", ""])
def test_a_module_without_the_function_or_that_does_not_parse_is_unchanged(code: str) -> None:
    assert with_docstring(code, "f", "Doc.") == code
    assert with_docstring(SLUG, "slugify", "  ") == SLUG  # and an empty docstring changes nothing


def test_the_model_is_shown_the_function_alone_dedented() -> None:
    code = "class A:\n    @property\n    def size(self) -> int:\n        return 1\n\n    def _no(self): ...\n"
    assert function_code(code, "size") == "@property\ndef size(self) -> int:\n    return 1\n"
    assert undocumented(code) == ["size"]  # public functions and methods, as documented_share counts them


@pytest.mark.parametrize(
    "reply",
    [
        '"""Convert a title to a URL slug."""',
        '```python\n"""Convert a title to a URL slug."""\n```',
        '```python\ndef slugify(title):\n    """Convert a title to a URL slug."""\n    return title\n```',
        "Convert a title to a URL slug.",
        'Here is the docstring:\n\n```\n"""\nConvert a title to a URL slug.\n"""\n```',
        '"""Convert a title to a URL slug.',  # cut off at its cap
    ],
)
def test_a_replys_docstring_is_read_from_its_code_or_its_words(reply: str) -> None:
    assert docstring_in(reply, "slugify") == "Convert a title to a URL slug."


def test_code_without_a_docstring_is_no_docstring() -> None:
    assert docstring_in("```python\ndef slugify(title):\n    return title\n```", "slugify") == ""
