"""Arithmetic a small model asks for and Cairn works out: exact, bounded, nothing but numbers.

A 1.5B model reads "1,260,000 m³" and "8,400 m³ a day" correctly and still divides them wrong.
It can name the expression, though, and an expression over numbers is safe to evaluate: the
syntax tree may hold only numbers, + - * / and parentheses (no names, calls or powers).

>>> worked("1,260,000 / 8,400")
'1260000 / 8400 = 150'
>>> worked("(42000 - 30000) / 3"), worked("__import__('os')"), worked("2 ** 99999")
('(42000 - 30000) / 3 = 4000', None, None)
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from fractions import Fraction

MAX_CHARS = 200
_OPERATORS: dict[type[ast.operator], Callable[[Fraction, Fraction], Fraction]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def worked(expression: str) -> str | None:
    """`expression = value`, or None when it is not plain arithmetic (or divides by zero)."""
    text = _plain(expression)
    if not text or len(text) > MAX_CHARS:
        return None
    try:
        value = _value(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return f"{text} = {_show(value)}"


def _plain(expression: str) -> str:
    """Thousands separators and a trailing '= ...' gone; × and ÷ as * and /."""
    text = expression.split("=")[0].replace("×", "*").replace("÷", "/")
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text).strip()


def _value(node: ast.expr) -> Fraction:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return Fraction(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_value(node.left), _value(node.right))
    raise ValueError("not plain arithmetic")


def _show(value: Fraction) -> str:
    """An integer as an integer; anything else to four decimals, trailing zeros dropped."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.4f}".rstrip("0").rstrip(".")
