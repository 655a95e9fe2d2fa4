"""Arithmetic named by a model is worked out exactly, and anything but arithmetic is refused."""

from __future__ import annotations

import pytest

from cairn.tasks.grounding.arithmetic import worked


@pytest.mark.parametrize(
    ("expression", "result"),
    [
        ("1,260,000 / 8,400", "1260000 / 8400 = 150"),
        ("1260000 / 8400 = 15000", "1260000 / 8400 = 150"),  # the model's own wrong result dropped
        ("(42000 - 30000) / 3", "(42000 - 30000) / 3 = 4000"),
        ("10 / 3", "10 / 3 = 3.3333"),
        ("2.5 × 4", "2.5 * 4 = 10"),
        ("-3 * 7 ÷ 2", "-3 * 7 / 2 = -10.5"),
        ("0.1 + 0.2", "0.1 + 0.2 = 0.3"),
    ],
)
def test_plain_arithmetic_is_worked_out(expression: str, result: str) -> None:
    assert worked(expression) == result


@pytest.mark.parametrize(
    "expression",
    [
        "",
        "__import__('os').system('true')",
        "2 ** 99999",
        "9" * 300,
        "1 / 0",
        "x + 1",
        "True + 1",
        "1e999 * 2",
        "[1] * 3",
    ],
)
def test_anything_else_is_refused(expression: str) -> None:
    assert worked(expression) is None
