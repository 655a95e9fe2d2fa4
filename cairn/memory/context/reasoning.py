"""Layer 2: the reasoning history as compressed one-line records fitted to a token budget.

Every executed call becomes one line (`call_line`). `reasoning_lines` orders them by relevance
tier (high, then medium, then low) and chronologically within a tier, and when they do not fit the
budget drops lines from the lowest tier first, oldest first: a high-relevance record is dropped only
once no medium or low line is left, and then the oldest goes first.

Token counts come from a counter passed in (litellm's tokenizer in a run, `approx_tokens` in
tests); `LineCounter` caches them per line, so assembling the context of a 200-iteration task costs
dictionary look-ups, not tokenizer runs.

>>> from cairn.core import ToolCall
>>> calls = [ToolCall(call_id=f"c{i}", iteration=i, index=1, tool="read_file", params={"path": f"f{i}.md"},
...                   insights="x" * 80, relevance=rel) for i, rel in enumerate(["low", "high", "medium"])]
>>> [line.split("]")[0] for line in fit_lines(calls, budget_tokens=70)]
['- [high', '- [medium']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cairn.core import ToolCall
from cairn.memory.log.state import TaskState

TIERS = ("high", "medium", "low")
LINE_CHARS = 280  # one record stays one line, whatever the compressor wrote
BUDGET_SHARE = 0.25  # of the model's context window
BUDGET_CAP = 8000  # tokens; more history rarely helps and always costs
BUDGET_FLOOR = 256

Count = Callable[[str], int]


def approx_tokens(text: str) -> int:
    """About four characters per token: the estimate used where no tokenizer is at hand."""
    return max(1, len(text) // 4)


class LineCounter:
    """Token counts with a per-line cache: the same line is tokenized once per process.

    >>> counter = LineCounter(approx_tokens)
    >>> counter("abcdefgh"), counter("abcdefgh"), counter.misses
    (2, 2, 1)
    """

    def __init__(self, count: Count, max_entries: int = 100_000) -> None:
        self._count = count
        self._cache: dict[str, int] = {}
        self._max = max_entries
        self.misses = 0

    def __call__(self, text: str) -> int:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        if len(self._cache) >= self._max:
            self._cache.clear()  # a crude bound; lines of a live task are re-counted at most once more
        self.misses += 1
        tokens = self._cache[text] = self._count(text)
        return tokens


def context_budget(window: int, share: float = BUDGET_SHARE, cap: int = BUDGET_CAP) -> int:
    """The reasoning-history budget for a model with `window` input tokens.

    >>> context_budget(8192), context_budget(128_000)
    (2048, 8000)
    """
    return max(BUDGET_FLOOR, min(cap, int(window * share)))


def call_line(call: ToolCall) -> str:
    """One call as a prompt line: relevance, iteration, and its compressed record."""
    text = " ".join(call.one_line().split())
    if len(text) > LINE_CHARS:
        text = text[: LINE_CHARS - 3] + "..."
    return f"- [{call.relevance}] it{call.iteration} {text}"


def fit_lines(calls: Sequence[ToolCall], *, budget_tokens: int, count: Count = approx_tokens) -> list[str]:
    """The calls' lines, tiered and chronological, within `budget_tokens` (newlines included)."""
    rows = [(TIERS.index(c.relevance), order, call_line(c)) for order, c in enumerate(calls)]
    cost = {order: count(line) + 1 for _, order, line in rows}  # +1: the newline joining lines
    total = sum(cost.values())
    dropped: set[int] = set()
    # Lowest tier first, oldest first: the victims, in order, until what is left fits.
    for _, order, _ in sorted(rows, key=lambda r: (-r[0], r[1])):
        if total <= budget_tokens:
            break
        dropped.add(order)
        total -= cost[order]
    return [line for _, order, line in sorted(rows) if order not in dropped]


def reasoning_lines(state: TaskState, *, budget_tokens: int, count: Count = approx_tokens) -> list[str]:
    """Layer 2 of a task: every call so far, fitted to the budget (see `fit_lines`).

    >>> reasoning_lines(TaskState(), budget_tokens=100)
    []
    """
    return fit_lines(state.calls, budget_tokens=budget_tokens, count=count)


# --- key decisions: the long view of a task, for the `summarize_history` tool --------------------


def key_decisions(state: TaskState, focus: str = "", limit: int = 30) -> list[str]:
    """The decisions and turning points of a task, read from its records (no model).

    Rules and feedback the user gave, files written, hot issues opened and resolved, the iterations
    where progress or mode changed, the latest verdict, and the most recent high-relevance findings.
    `focus` keeps only the findings and turning points that mention one of its words.

    >>> key_decisions(TaskState(goal="Ship it"))[0]
    'GOAL: Ship it'
    """
    words = {w for w in focus.lower().split() if len(w) > 2}

    def keep(line: str) -> bool:
        return not words or any(w in line.lower() for w in words)

    sections = [
        ("RULES", _rules(state)),
        ("USER FEEDBACK", [f"- {text}" for text in state.feedback]),
        ("FILES WRITTEN", _files(state)),
        ("HOT ISSUES", _issues(state)),
        ("TURNING POINTS", [line for line in _turning_points(state) if keep(line)][-limit:]),
        ("VALIDATION", _validation(state)),
        ("KEY FINDINGS", [line for line in _findings(state) if keep(line)][-limit:]),
    ]
    out = [f"GOAL: {state.goal}", f"ITERATIONS: {len(state.iterations)}, calls: {len(state.calls)}"]
    for title, lines in sections:
        if lines:
            out += ["", f"{title}:", *lines]
    return out


def _rules(state: TaskState) -> list[str]:
    return [f"- [{'active' if c.active else 'retired'}] {c.rule} ({c.key})" for c in state.constraints]


def _files(state: TaskState) -> list[str]:
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for call in state.calls:
        if call.tool == "write_file" and call.outcome == "success":
            for path in call.paths or [str(call.params.get("path", ""))]:
                first.setdefault(path, call.iteration)
                last[path] = call.iteration
    return [f"- {p} (it{first[p]}" + (f", last it{last[p]})" if last[p] != first[p] else ")") for p in first]


def _issues(state: TaskState) -> list[str]:
    return [
        f"- [{'open' if h.active else f'resolved by {h.resolved_by}'}] {h.content} (opened by {h.opened_by})"
        for h in state.hot_issues
    ]


def _turning_points(state: TaskState) -> list[str]:
    points: list[str] = []
    previous = None
    for it in state.iterations:
        shape = (it.progress_assessment, it.mode)
        if shape != previous or it.user_feedback:
            heard = f" after feedback: {it.user_feedback}" if it.user_feedback else ""
            points.append(
                f"- it{it.iteration} [{it.progress_assessment}, {it.mode}]{heard} {it.synthesis}"[:400]
            )
        previous = shape
    return points


def _validation(state: TaskState) -> list[str]:
    verdict = state.verdict
    if verdict is None:
        return []
    missing = f"; missing: {', '.join(verdict.missing)}" if verdict.missing else ""
    return [
        f"- {len(state.verdicts)} validations; latest (it{verdict.iteration}): "
        f"complete={verdict.complete}, confidence={verdict.confidence:.2f}{missing}"
    ]


def _findings(state: TaskState) -> list[str]:
    return [call_line(c) for c in state.calls if c.relevance == "high" and c.outcome == "success"]
