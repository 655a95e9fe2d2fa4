"""Layer 2: the reasoning history as compressed one-line records fitted to a token budget.

Relevance tiers first (high, then medium, then low), chronological within a tier; lines are
dropped from the lowest tier and the oldest first, so recent high-relevance records stay while any
lower tier remains.
"""

from __future__ import annotations

from collections.abc import Callable

from memory.state import TaskState

_TIERS = ("high", "medium", "low")


def approx_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def reasoning_lines(
    state: TaskState, *, budget_tokens: int, count: Callable[[str], int] = approx_tokens
) -> list[str]:
    calls = state.calls
    chosen: list[tuple[int, int, str]] = []  # (tier, order, line)
    for order, call in enumerate(calls):
        chosen.append((_TIERS.index(call.relevance), order, f"- [{call.relevance}] it{call.iteration} {call.one_line()}"))
    chosen.sort()
    total = sum(count(line) for _, _, line in chosen)
    # Drop from the lowest tier, oldest first, until the lines fit.
    for victim in sorted(chosen, key=lambda t: (-t[0], t[1])):
        if total <= budget_tokens:
            break
        chosen.remove(victim)
        total -= count(victim[2])
    return [line for _, _, line in chosen]
