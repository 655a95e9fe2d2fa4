"""When the full `write` gives a coding task no working code: ask for one file plainly, and draw again.

Shown the write instructions with a HumanEval signature and docstring, the 1.5B wrote them back
without a body in every phrasing (HumanEval/10: five asks over three iterations); shown only the
file and "complete the body", it wrote one. A body that fails the goal's examples comes back the
same when asked again at temperature 0, and asked to fix it the model copied it back even when
sampled; so each later plain ask starts from the signature and docstring again, names what the
last body got wrong, and is a new draw (the model's nth sample, seed n).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from cairn.memory.log.state import TaskState
from cairn.tasks.code_imports import unbound_names
from cairn.tasks.goal_examples import goal_examples
from cairn.tasks.messages.file_reply import is_test
from cairn.tasks.messages.schemas import Excerpt, WriteInput

KIND = "redraw"  # the call key's kind, so the asks are counted across iterations


def draws(state: TaskState, iteration: int) -> int:
    """How many plain asks the task made before this iteration: this one's draw number (a resumed
    iteration asks with the same number, so it finds its finished ask in the cache)."""
    return sum(
        1 for call in state.model_calls if call.key.endswith(f"/{KIND}") and call.iteration < iteration
    )


def redraw_input(
    payload: WriteInput, drafts: dict[str, str], names: list[str], draw: int
) -> WriteInput | None:
    """The plain ask for the file that still lacks working code, or None when the drafts are new
    code (or nothing failed): a draft still without a body, or a test run whose tests failed
    (a run that found no tests says nothing of the code) on code the full ask wrote back
    unchanged, tests files aside (or did not write again)."""
    empty = stubs(drafts, names)
    if empty:
        path = empty[0].partition(" in ")[2]
        code = drafts[path]
    elif failures(payload.tests) and _unchanged(drafts, payload.current):
        module = next((e for e in payload.current if _defines(e.text, names)), None)
        if module is None:
            return None
        path, code = module.source, module.text
    else:
        return None
    bodies = [f"{name} in {path}" for name in names if _defines(code, [name])]
    return payload.model_copy(
        update={
            "form": "plain",
            "draw": draw,
            "current": [Excerpt(source=path, text=stripped(code, names))],
            "bodies": bodies,
            "tests": failures(payload.tests),
        }
    )


def stubs(files: dict[str, str], names: list[str]) -> list[str]:
    """The functions the goal names that a file defines with no body (a docstring, `pass`, `...`
    at most): the 1.5B, given a HumanEval signature and docstring, often wrote them back as they were.

    >>> stubs({"a.py": "def f(x):\\n    'Double.'\\n", "b.py": "def g():\\n    return 1\\n"}, ["f", "g"])
    ['f in a.py']
    """
    found: list[str] = []
    for path, content in files.items():
        functions = _functions(path, content)
        found += [f"{f.name} in {path}" for f in functions if f.name in names and _empty(f)]
    return found


def stripped(code: str, names: list[str]) -> str:
    """The code with the bodies of the named functions taken out (signature and docstring kept):
    what a new draw completes.

    >>> print(stripped('def f(x):\\n    "Double."\\n    return x + x\\n\\ndef g():\\n    return 1\\n', ["f"]))
    def f(x):
        "Double."
    <BLANKLINE>
    def g():
        return 1
    <BLANKLINE>
    """
    lines = code.splitlines(keepends=True)
    cuts: list[tuple[int, int]] = []
    for function in _functions("x.py", code):
        body = function.body[1:] if ast.get_docstring(function) is not None else function.body
        if function.name in names and body and function.end_lineno is not None:
            cuts.append((body[0].lineno - 1, function.end_lineno))
    for start, end in sorted(cuts, reverse=True):
        del lines[start:end]
    return "".join(lines)


_DOCTEST_FAILURE = re.compile(
    r"Failed example:\n\s+(.+?)\n(?:Expected:\n\s+(.+?)\nGot:\n\s+(.+?)\n|Exception raised:\n((?:\s+.*\n?)+))"
)


def failures(run: str, limit: int = 3) -> str:
    """The goal's examples a test run failed, in words; else its assertion lines (`E   ...`).

    >>> failures("Failed example:\\n    f(2)\\nExpected:\\n    4\\nGot:\\n    5\\n")
    'f(2) returned 5; the goal expects 4.'
    >>> failures("Failed example:\\n    f('a')\\nException raised:\\n    Traceback:\\n    ValueError: no\\n")
    "f('a') raised ValueError: no."
    """
    said = []
    for call, expected, got, raised in _DOCTEST_FAILURE.findall(run)[:limit]:
        error = raised.strip().splitlines()[-1].strip() if raised.strip() else ""
        said.append(
            f"{call} raised {error}." if raised else f"{call} returned {got}; the goal expects {expected}."
        )
    if said:
        return " ".join(said)
    errors = [line[1:].strip() for line in run.splitlines() if line.startswith("E ")]
    return " ".join(errors[: 2 * limit])


def passing(goal: str, run: str, names: list[str]) -> list[str]:
    """The functions the goal names whose examples all passed in a run that failed some others:
    what a new draft of their module must not take away. Nothing when no example failed (the run
    says nothing of which function is right) or an error failed them all.

    >>> goal = ">>> f(1)\\n2\\n>>> g(1)\\n3\\n>>> h(f(1))\\n4"
    >>> run = "Failed example:\\n    h(f(1))\\nExpected:\\n    4\\nGot:\\n    5\\n"
    >>> passing(goal, run, ["f", "g", "h", "k"])
    ['g']
    """
    bad = _called(_FAILED_EXAMPLE.findall(run))
    if not bad:
        return []
    ran = _called(
        line.removeprefix(">>>") for line in goal_examples(goal).splitlines() if line.startswith(">>>")
    )
    return [name for name in names if name in ran and name not in bad]


def kept(current: str, draft: str, names: list[str]) -> str:
    """The draft, with the top-level functions `names` as `current` defines them (put back in
    their place, or after the rest when the draft dropped them), and any function of `current`
    the draft dropped but still calls; the draft as it is when either does not parse.

    >>> draft = "def f():\\n    return 2\\n\\ndef g():\\n    return 3\\n"
    >>> print(kept("def f():\\n    return 1\\n", draft, ["f"]))
    def f():
        return 1
    <BLANKLINE>
    def g():
        return 3
    <BLANKLINE>
    """
    old, new = _top_level(current), _top_level(draft)
    if old is None or new is None:
        return draft
    lines = draft.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    source = current.splitlines(keepends=True)
    missing: list[str] = []
    for name in names:
        if name not in old:
            continue
        start, end = old[name]
        text = "".join(source[start:end]).rstrip("\n") + "\n"
        if name in new:
            lines[new[name][0] : new[name][1]] = [text]
            new = _shifted(new, new[name], 1)
        else:
            missing.append(text)
    called = set(unbound_names("".join(lines) + "".join(missing)))  # helpers the draft dropped but calls
    missing += [
        "".join(source[a:b]).rstrip("\n") + "\n" for n, (a, b) in old.items() if n in called and n not in new
    ]
    tail = "".join(f"\n\n{text}" for text in missing)
    return "".join(lines) + tail


def same_functions(code: str, other: str, names: list[str]) -> bool:
    """Both define each of `names` alike at the top level (comments and spacing aside), or both lack it.

    >>> same_functions("import re\\ndef f():  # old\\n    return 1\\n", "def f():\\n    return 1\\n", ["f"])
    True
    """
    return all(_definition(code, name) == _definition(other, name) for name in names)


def _definition(code: str, name: str) -> str | None:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name]
    return ast.dump(found[0]) if found else None


def defined(code: str) -> set[str]:
    """The top-level functions a module defines (none when it does not parse)."""
    return set(_top_level(code) or {})


def _top_level(code: str) -> dict[str, tuple[int, int]] | None:
    """Each top-level function's lines (from its first decorator, 0-based, end exclusive)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    spans: dict[str, tuple[int, int]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.setdefault(node.name, (first - 1, node.end_lineno))
    return spans


def _shifted(
    spans: dict[str, tuple[int, int]], replaced: tuple[int, int], length: int
) -> dict[str, tuple[int, int]]:
    """Spans after `replaced` became `length` lines."""
    start, end = replaced
    delta = length - (end - start)
    return {name: (a + delta, b + delta) if a >= end else (a, b) for name, (a, b) in spans.items()}


_FAILED_EXAMPLE = re.compile(r"^Failed example:\n\s+(.+)$", re.MULTILINE)


def _called(sources: Iterable[str]) -> set[str]:
    """The plain names called in these lines of code (those that do not parse say nothing)."""
    found: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source.strip())
        except SyntaxError:
            continue
        found |= {
            n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
    return found


def _unchanged(drafts: dict[str, str], current: list[Excerpt]) -> bool:
    """No code file of the drafts is new or different (tests files aside: the code is what failed)."""
    written = {e.source: e.text.strip() for e in current}
    code = {path: text for path, text in drafts.items() if path.endswith(".py") and not is_test(path)}
    return all(written.get(path) == text.strip() for path, text in code.items())


def plain_only(payload: WriteInput, names: list[str], drawn: int) -> bool:
    """Skip the full ask: a plain one was needed before, the code still fails, and the task read
    no files whose words only the full ask shows (the code file's docstring is the whole spec).
    With a spec read (`bench/agent_tasks/slugify`), plain asks alone lost its words: four draws failed
    its tests where the full ask, shown them and the failing run, had fixed the code."""
    on_disk = {e.source: e.text for e in payload.current}
    return bool(drawn and not payload.excerpts and (failures(payload.tests) or stubs(on_disk, names)))


def _defines(code: str, names: list[str]) -> bool:
    return any(f.name in names for f in _functions("x.py", code))


def _functions(path: str, content: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    if not path.endswith(".py"):
        return []
    try:
        tree = ast.parse(content)
    except SyntaxError:
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _empty(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    return all(
        isinstance(statement, ast.Pass)
        or (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
        for statement in body
    )
