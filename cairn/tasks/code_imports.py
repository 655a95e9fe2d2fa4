"""The imports a model forgot, added by Cairn when they are certain.

Qwen2.5-Coder-1.5B writes whole modules and leaves out their imports: `re.findall` with no
`import re` (the issue's `counter.py`), `Tuple[int, int]` with no `from typing import Tuple` (all
ten functions of a HumanEval module lost at collection), a test that calls `word_count` without
importing it from `counter`. Shown the NameError and its file, it rewrote the whole file and left
the import out again, eight iterations in a row. A missing import needs no model: a name that a
module uses and binds nowhere fails the moment that line runs, and for many names there is one
import that binds it. So Cairn adds that import line and leaves every other byte as it was.

A name is completed only when its import is certain: another module the task wrote defines it
(exactly one, never a test file), it is a standard module (`re`, `math`), or it is in the short
table of well-known names below (`Counter`, `Tuple`, `reduce`, ...). Anything else stays for the
model and the tests to find. A module with `from x import *` is left alone (what it binds is not
known here).

>>> files = {"counter.py": "def word_count(text):\\n    return dict(Counter(re.findall(r'\\\\w+', text)))\\n",
...          "test_counter.py": "def test_it():\\n    assert word_count('a a') == {'a': 2}\\n"}
>>> completions(files)["counter.py"].added
['from collections import Counter', 'import re']
>>> completions(files)["test_counter.py"].added
['from counter import word_count']
"""

from __future__ import annotations

import ast
import builtins
import sys
import typing
from collections.abc import Mapping
from pathlib import PurePosixPath

from pydantic import BaseModel

_MODULE_NAMES = frozenset({"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__"})
_BUILTINS = frozenset(dir(builtins)) | _MODULE_NAMES

# Names whose one standard home is well known. Short or common words (`e`, `count`, `chain`,
# `product`, `field`) are left out: unbound, they are more likely a bug than a forgotten import.
_WELL_KNOWN: dict[str, tuple[str, ...]] = {
    "collections": ("Counter", "defaultdict", "deque", "OrderedDict", "namedtuple", "ChainMap"),
    "functools": ("reduce", "lru_cache", "partial", "cmp_to_key", "wraps"),
    "itertools": ("permutations", "combinations", "combinations_with_replacement", "accumulate",
                  "groupby", "zip_longest", "islice"),
    "math": ("sqrt", "gcd", "floor", "ceil", "factorial", "isqrt", "log2", "log10"),
    "heapq": ("heappush", "heappop", "heapify", "nlargest", "nsmallest"),
    "bisect": ("bisect_left", "bisect_right", "insort"),
    "string": ("ascii_lowercase", "ascii_uppercase", "ascii_letters", "punctuation"),
    "dataclasses": ("dataclass",),
    "pathlib": ("Path",),
    "fractions": ("Fraction",),
    "decimal": ("Decimal",),
}  # fmt: skip
_HOME = {name: module for module, names in _WELL_KNOWN.items() for name in names}
# typing's capitalised names (List, Tuple, Optional, ...), apart from those collections owns above.
_TYPING = frozenset(n for n in typing.__all__ if n[:1].isupper() and n not in _HOME)
_STDLIB = frozenset(n for n in sys.stdlib_module_names if not n.startswith("_")) - {"this", "antigravity"}


class Completion(BaseModel):
    """A module with the imports it lacked added (`content`), and those lines (`added`)."""

    content: str
    added: list[str]


def completions(files: Mapping[str, str]) -> dict[str, Completion]:
    """For each Python file that uses names it binds nowhere and whose imports are certain, its
    content with those imports added. Files that parse with nothing to add are not listed."""
    defined = {path: top_level_names(text) for path, text in files.items() if _importable(path)}
    found: dict[str, Completion] = {}
    for path, text in files.items():
        if not path.endswith(".py"):
            continue
        unbound = _unbound(text)
        lines = [
            line for name, dotted in unbound.items() if (line := import_for(name, path, defined, dotted))
        ]
        if lines:
            found[path] = Completion(content=with_imports(text, lines), added=lines)
    return found


def unbound_names(source: str) -> list[str]:
    """Names the module reads and binds nowhere (not a builtin), in order of first use; none for
    a module that does not parse or holds a star import.

    >>> unbound_names("import os\\ndef f(x):\\n    y = x + 1\\n    return re.sub('a', '', os.sep) + y")
    ['re']
    """
    return list(_unbound(source))


def _unbound(source: str) -> dict[str, bool]:
    """Each unbound name, and whether every use of it is `name.attribute` (a module's use)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    bound: set[str] = set()
    read: dict[str, bool] = {}
    first: dict[str, tuple[int, int]] = {}
    bases = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return {}
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read[node.id] = read.get(node.id, True) and id(node) in bases
            first[node.id] = min(
                first.get(node.id, (node.lineno, node.col_offset)), (node.lineno, node.col_offset)
            )
        elif isinstance(node, ast.Name):
            bound.add(node.id)
        else:
            bound.update(_binds(node))
    names = sorted((n for n in read if n not in bound and n not in _BUILTINS), key=first.__getitem__)
    return {name: read[name] for name in names}


def _binds(node: ast.AST) -> list[str]:
    """The names a node other than `ast.Name` binds (a def, a class, an argument, an import, an
    `except ... as`, a `global`, a pattern's capture, a type parameter)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    name = getattr(node, "name", None)  # type parameters (3.12): TypeVar, ParamSpec, TypeVarTuple
    return [name] if type(node).__name__ in ("TypeVar", "ParamSpec", "TypeVarTuple") and name else []


def import_for(name: str, path: str, defined: Mapping[str, set[str]], dotted: bool = True) -> str | None:
    """The one import line that binds `name` in the file at `path`, or None when it is not certain.
    A standard module is imported only for a name used as `name.attribute` alone (`dotted`): an
    unbound `numbers` iterated over is a bug, not `import numbers`.

    >>> import_for("Tuple", "solution.py", {}), import_for("json", "a.py", {})
    ('from typing import Tuple', 'import json')
    >>> import_for("numbers", "a.py", {}, dotted=False) is None
    True
    >>> import_for("helper", "a.py", {"b.py": {"helper"}, "c.py": {"helper"}}) is None  # which one?
    True
    """
    homes = [p for p, names in defined.items() if p != path and name in names]
    if len(homes) == 1:
        return f"from {PurePosixPath(homes[0]).stem} import {name}"
    if homes:
        return None
    if name in _HOME:
        return f"from {_HOME[name]} import {name}"
    if name in _TYPING:
        return f"from typing import {name}"
    if name in _STDLIB and dotted:
        return f"import {name}"
    return None


def top_level_names(source: str) -> set[str]:
    """What a module defines at its top level: functions, classes and assigned names."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def with_imports(source: str, lines: list[str]) -> str:
    """`source` with `lines` inserted after its docstring, `from __future__` and leading imports
    (the rest unchanged, byte for byte).

    >>> with_imports('\"\"\"Doc.\"\"\"\\nimport os\\n\\nX = 1\\n', ["import re"])
    '\"\"\"Doc.\"\"\"\\nimport os\\nimport re\\n\\nX = 1\\n'
    """
    tree = ast.parse(source)
    after = 0  # the line the new imports follow (0: the top of the file)
    for position, node in enumerate(tree.body):
        docstring = position == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (docstring or isinstance(node, ast.Import | ast.ImportFrom)):
            break
        after = node.end_lineno or node.lineno
    kept = source.splitlines(keepends=True)
    if not after:  # below a shebang, an encoding line or a leading comment such as "# counter.py"
        after = next((n for n, line in enumerate(kept) if not line.startswith("#")), len(kept))
    if after and after <= len(kept) and not kept[after - 1].endswith("\n"):
        kept[after - 1] += "\n"
    rest = kept[after:]
    block = "".join(f"{line}\n" for line in lines) + ("\n" if rest and rest[0].strip() else "")
    return "".join(kept[:after]) + block + "".join(rest)


def _importable(path: str) -> bool:
    """A module another file of the task can import by its stem: top level, not a test."""
    pure = PurePosixPath(path)
    return (
        path.endswith(".py")
        and len(pure.parts) == 1
        and pure.stem.isidentifier()
        and not pure.stem.startswith("test")
    )
