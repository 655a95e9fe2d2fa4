"""Inputs varied from a piece's examples: where two samples of the same function may disagree.

A body that passes the goal's two or three examples can still be wrong on every other input
(HumanEval/20 and /32 with the 1.5B: the examples passed, the hidden tests did not). Cairn cannot
know the right value of an input the goal does not give, but it can ask the model for a second,
independent sample of the function and run both on inputs near the examples': two samples that
return different values for the same input cannot both be right, so the piece is not verified.

The inputs vary one argument of one example call at a time (a number one up, one down, zero; a
string or list reversed, shortened, lengthened). An input outside what the function accepts
raises in one sample or both; such an input is no evidence either way and is skipped.

>>> piece = Piece(name="add", stub="", examples=">>> add(2, [1, 2])\\n5")
>>> probe_calls(piece)[:4]
['add(3, [1, 2])', 'add(1, [1, 2])', 'add(0, [1, 2])', 'add(4, [1, 2])']
"""

from __future__ import annotations

import ast
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from cairn.core import Disagreement, Frozen
from cairn.tasks.pieces import Piece
from cairn.tasks.tools.code import run_python

LIMIT = 24  # probes per piece: enough to find a disagreement, cheap to run (one process)


def probe_calls(piece: Piece, limit: int = LIMIT) -> list[str]:
    """Calls of the piece's function on inputs varied from its examples', one argument at a
    time, in a fixed order, the examples' own calls left out."""
    calls = [call for line in piece.examples.splitlines() if (call := _call(line, piece.name))]
    seen = {ast.unparse(call) for call in calls}
    found: list[str] = []
    for varied in _interleaved([_varied(call) for call in calls]):
        source = ast.unparse(varied)
        if source not in seen:
            seen.add(source)
            found.append(source)
        if len(found) >= limit:
            break
    return found


def _call(line: str, name: str) -> ast.Call | None:
    """The example line's call of `name` (`>>> name(...)`), when every argument is a literal."""
    if not line.startswith(">>>"):
        return None
    try:
        node = ast.parse(line.removeprefix(">>>").strip(), mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name):
        return None
    values = [*node.args, *(k.value for k in node.keywords)]
    return node if values and all(_literal(v) for v in values) else None


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _varied(call: ast.Call) -> Iterator[ast.Call]:
    """The call with one argument replaced by each of its variants, argument by argument."""
    for i, arg in enumerate(call.args):
        for value in variants(ast.literal_eval(arg)):
            args = [*call.args[:i], _node(value), *call.args[i + 1 :]]
            yield ast.Call(func=call.func, args=args, keywords=call.keywords)
    for i, keyword in enumerate(call.keywords):
        for value in variants(ast.literal_eval(keyword.value)):
            one = ast.keyword(arg=keyword.arg, value=_node(value))
            changed = [*call.keywords[:i], one, *call.keywords[i + 1 :]]
            yield ast.Call(func=call.func, args=call.args, keywords=changed)


def variants(value: object) -> list[object]:
    """Values near `value` of its own type: what a quick reading of a spec gets wrong at.

    >>> variants(3), variants(-2.0), variants("ab")
    ([4, 2, 0, 6, 10], [-1.5, -2.5, 0.0, -4.0, -1.0], ['ba', 'a', 'aba', 'AB', ''])
    >>> variants([1, 2])
    [[2, 1], [1], [1, 2, 1], [], [2, 2]]
    """
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return _distinct(value, _signed(value, [value + 1, value - 1, 0, 2 * value, 3 * value + 1]))
    if isinstance(value, float):
        return _distinct(value, _signed(value, [value + 0.5, value - 0.5, 0.0, 2 * value, value / 2]))
    if isinstance(value, str):
        return _distinct(value, [value[::-1], value[:-1], value + value[:1], value.upper(), ""])
    if isinstance(value, list | tuple):
        kind = type(value)
        items = list(value)
        rotated = items[1:] + items[:1]
        first = [v for v in variants(items[0]) if type(v) is type(items[0])][:1] if items else []
        changed = [[first[0], *items[1:]]] if first else []
        options = [items[::-1], items[:-1], items + items[:1], rotated, [], *changed]
        return _distinct(value, [kind(o) for o in options])
    return []


def _signed(value: float, options: list[float]) -> list[object]:
    """The numbers of `options` on `value`'s side of zero (zero too): a spec that says "a positive
    number" makes a negative one an input outside it, where samples may differ and both be right
    (HumanEval/2: `x - int(x)` and `x % 1`)."""
    return [o for o in options if o == 0 or (o > 0) == (value > 0)]


def _distinct(value: object, options: list[object]) -> list[object]:
    kept: list[object] = []
    for option in options:
        if option != value and option not in kept:
            kept.append(option)
    return kept


def _node(value: object) -> ast.expr:
    return ast.parse(repr(value), mode="eval").body


def _interleaved(streams: list[Iterator[ast.Call]]) -> Iterator[ast.Call]:
    """One from each example's variants in turn: every example contributes before the limit."""
    live = list(streams)
    while live:
        for stream in list(live):
            item = next(stream, None)
            if item is None:
                live.remove(stream)
            else:
                yield item


def disagreement(one: str, other: str, calls: list[str]) -> Disagreement | None:
    """The first call on which two modules' functions both return and the values differ (floats
    within a relative 1e-6 are the same), run in a sandboxed process, a second a call; None when
    they agree wherever both ran."""
    for call, ran in zip(calls, _ran([one, other], calls), strict=False):
        if ran.values[0] is not None and ran.values[1] is not None and not ran.same[0][1]:
            return Disagreement(call=call, one=ran.values[0], other=ran.values[1])
    return None


def consensus(bodies: list[str], calls: list[str]) -> int:
    """The index of the body that agrees with the others on the most calls (the first among
    equals): when samples disagree and no two agree everywhere, the one nearest to them all is the
    likeliest right (a sample's slip is its own; the spec's answer is what they share)."""
    if len(bodies) < 3 or not calls:
        return 0
    runs = _ran(bodies, calls)
    score = [
        sum(r.same[i][j] for r in runs for j in range(len(bodies)) if j != i) for i in range(len(bodies))
    ]
    return max(range(len(bodies)), key=lambda i: (score[i], -i))


class _Ran(Frozen):
    values: list[str | None]  # each module's value's repr (None: it raised or ran past a second)
    same: list[list[bool]]  # whether modules i and j both returned the same value


def _ran(bodies: list[str], calls: list[str]) -> list[_Ran]:
    """Each call run on every body, in one sandboxed process."""
    if not calls:
        return []
    with tempfile.TemporaryDirectory(prefix="cairn-probe-") as folder:
        for n, body in enumerate(bodies):
            (Path(folder) / f"cairn_probe_{n}.py").write_text(body, encoding="utf-8")
        script = _COMPARE.replace("COUNT", str(len(bodies))).replace("CALLS", repr(json.dumps(calls)))
        ran = run_python(Path(folder), code=script, timeout_s=60.0)
    return [_Ran.model_validate_json(line) for line in ran.stdout.splitlines() if line.startswith("{")]


_COMPARE = """\
import importlib, json, math, signal

modules = [importlib.import_module(f"cairn_probe_{n}") for n in range(COUNT)]


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9) or (a != a and b != b)
        except TypeError:
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def timeout(signum, frame):
    raise TimeoutError()


def value(module, call):
    signal.alarm(1)
    try:
        return True, eval(call, dict(vars(module)))
    except BaseException:
        return False, None
    finally:
        signal.alarm(0)


signal.signal(signal.SIGALRM, timeout)
for call in json.loads(CALLS):
    ran = [value(module, call) for module in modules]
    values = [repr(v)[:200] if ok else None for ok, v in ran]
    agree = [[a[0] and b[0] and same(a[1], b[1]) for b in ran] for a in ran]
    print(json.dumps({"values": values, "same": agree}), flush=True)
"""
