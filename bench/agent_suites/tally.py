"""How one side did over many tasks: complete, correct, false complete, and how far "complete"
can be trusted (`precision_of_complete`, the share of complete answers that are correct, with its
95% Wilson score lower bound), overall and per kind of task. Where the grader read what each
answer states (the squad suites), also what was said: `answers`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from agent_suites.common import Outcome

Z_95 = 1.959963984540054  # the standard normal's 97.5th percentile: a two-sided 95% interval


def wilson_lower(successes: int, trials: int, z: float = Z_95) -> float | None:
    """The lower end of the Wilson score interval for a proportion (None with no trials): unlike
    successes/trials it says how little 3 of 3 proves.

    >>> round(wilson_lower(8, 10), 3), round(wilson_lower(3, 3), 3), wilson_lower(0, 0)
    (0.49, 0.439, None)
    >>> wilson_lower(0, 5)
    0.0
    """
    if trials == 0:
        return None
    p = successes / trials
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return max(0.0, (p + z * z / (2 * trials) - spread) / (1 + z * z / trials))


def counts(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Tasks, complete, correct, false complete, precision of complete (with its lower bound) and
    the share of tasks correct.

    >>> runs = [Outcome(task="a", side="cairn", complete=True, correct=True),
    ...         Outcome(task="b", side="cairn", complete=True, correct=False)]
    >>> counts(runs)["precision_of_complete"], counts(runs)["correct_share"]
    (0.5, 0.5)
    """
    complete = sum(o.complete for o in outcomes)
    trusted = sum(o.complete and o.correct for o in outcomes)
    lower = wilson_lower(trusted, complete)
    return {
        "tasks": len(outcomes),
        "complete": complete,
        "correct": sum(o.correct for o in outcomes),
        "false_complete": sum(o.false_complete for o in outcomes),
        "precision_of_complete": round(trusted / complete, 3) if complete else None,
        "precision_lower_95": None if lower is None else round(lower, 3),
        "correct_share": round(sum(o.correct for o in outcomes) / len(outcomes), 3) if outcomes else None,
    } | answers(outcomes)


def answers(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Over the outcomes whose answer the grader read (`stated` given; none: no keys): complete and
    right, right but unverified (not complete, given as unverified), a false "not stated" (an
    answerable question said to be unanswered), and their shares of the answerable questions.

    >>> runs = [Outcome(task="a", side="cairn", complete=False, correct=False, kind="answerable",
    ...                 stated="not_stated"),
    ...         Outcome(task="b", side="cairn", complete=False, correct=True, kind="answerable",
    ...                 stated="unverified", value="Rollo")]
    >>> found = answers(runs)
    >>> found["false_not_stated"], found["right_unverified"], found["right_share_answerable"]
    (1, 1, 0.5)
    """
    read = [o for o in outcomes if o.stated is not None]
    if not read:
        return {}
    answerable = [o for o in read if o.kind == "answerable"]
    right = [o for o in read if o.complete and o.correct]
    false_not_stated = [o for o in answerable if o.stated == "not_stated"]

    def share(n: int) -> float | None:
        return round(n / len(answerable), 3) if answerable else None

    return {
        "complete_and_right": len(right),
        "false_not_stated": len(false_not_stated),
        "right_unverified": sum(o.correct and not o.complete and o.stated == "unverified" for o in read),
        "answerable": len(answerable),
        "complete_and_right_share": share(sum(o.complete and o.correct for o in answerable)),
        "right_share_answerable": share(sum(o.correct for o in answerable)),
        "false_not_stated_share": share(len(false_not_stated)),
    }


def by_kind(outcomes: Sequence[Outcome]) -> dict[str, dict[str, Any]]:
    """`counts` per kind of task, in the order kinds first appear (empty where tasks have none)."""
    kinds = dict.fromkeys(o.kind for o in outcomes if o.kind)
    return {kind: counts([o for o in outcomes if o.kind == kind]) for kind in kinds if kind}


def totals(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """One side's totals: `counts`, scores, calls, tokens, time, and `by_kind`."""
    correct = [o for o in outcomes if o.correct]
    scores = [o.score for o in outcomes if o.score is not None]
    tokens = sum(o.tokens for o in outcomes)
    return {
        **counts(outcomes),
        "mean_score": round(sum(scores) / len(scores), 3) if scores else None,
        "model_calls": sum(o.model_calls for o in outcomes),
        "tokens": tokens,
        "tokens_per_correct_task": round(tokens / len(correct)) if correct else None,
        "seconds": round(sum(o.seconds for o in outcomes), 1),
        "by_kind": by_kind(outcomes),
    }


def trust(t: dict[str, Any]) -> str:
    """A totals row's precision in words, for the table.

    >>> trust({"precision_of_complete": 0.5, "precision_lower_95": 0.09, "correct": 1, "tasks": 2})
    'precision 0.50 (95% ≥ 0.09), correct 1/2'
    """
    share = f"correct {t['correct']}/{t['tasks']}"
    if t["precision_of_complete"] is None:
        return f"nothing complete, {share}"
    return f"precision {t['precision_of_complete']:.2f} (95% ≥ {t['precision_lower_95']:.2f}), {share}"
