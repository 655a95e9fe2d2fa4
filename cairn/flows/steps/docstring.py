"""A coding task's documentation, asked for one function at a time.

With the 1.5B (Qwen2.5-Coder), a one-function task whose code passed its tests ran to its
iteration cap on the suite's documentation requirement alone: three iterations unmet, then
stuck twice, and no call ever asked for a docstring; the planner was left to see to it. Here,
once the tests pass and the requirement is still unmet, each public function of the task's code
files that lacks a docstring is asked for it alone (`docstring` calls: the function's code, one
line of ask), and the docstring is written into the function (`cairn.tasks.messages.docstrings`),
the code otherwise as it was. The next iteration runs the tests again: the code changed. A resumed
iteration asks with the same keys (the kind, and the function's place among this iteration's
asks) and finds its finished asks in the cache.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Final

from cairn.core import CallKey
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.memory.log.state import TaskState
from cairn.tasks.goal_examples import TEST_FILE
from cairn.tasks.grounding.functions import named_functions
from cairn.tasks.messages.docstrings import function_code, undocumented, with_docstring
from cairn.tasks.messages.schemas import Candidate, DocstringInput, DocstringOutput

KIND: Final = "docstring"  # the call key's kind: one ask per function, indexed by its place in the asks
DOCS_REQUIREMENT = "documentation (doc file or docstring share >= 0.5)"  # validators/coding_task.json
DOCS_WHY = "Each function's docstring, asked for alone:"
PER_ITERATION = 12  # functions asked for in one iteration (the rest wait for the next)


def step(session: Session, executor: Executor, iteration: int, missing: list[str]) -> list[Candidate]:
    """The code files with the docstrings the model wrote, when the tests passed and the suite
    still wants documentation (none otherwise, or when no reply gave one)."""
    state = session.state
    if DOCS_REQUIREMENT not in missing or not tests_passed(state):
        return []
    writes: list[Candidate] = []
    asked = 0
    for path in code_files(state, session.artifacts):
        try:
            code = (session.artifacts / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:  # written back, a replaced byte would change more than a docstring
            continue
        names = undocumented(code)[: PER_ITERATION - asked]
        written = code
        for name in names:
            key = CallKey(task_id=session.task_id, iteration=iteration, index=asked, kind=KIND)
            written = _documented(session, executor, key, path, written, name)
            asked += 1
        if written != code:
            writes.append(_write(path, written, [n for n in names if n not in undocumented(written)]))
    return writes


def _documented(session: Session, executor: Executor, key: CallKey, path: str, code: str, name: str) -> str:
    """The module with the function's docstring as the model writes it (as it was, when the reply
    gave none that fits)."""
    payload = DocstringInput(path=path, name=name, code=function_code(code, name))
    result = ask(session, executor, key, KIND, payload, f"docstring-{key.iteration}-{name}")
    if not (result.ok and isinstance(result.output, DocstringOutput)):
        return code
    return with_docstring(code, name, result.output.docstring)


def _write(path: str, content: str, documented: list[str]) -> Candidate:
    return Candidate(
        tool="write_file",
        params={"path": path, "content": content},
        rationale=f"{DOCS_WHY} {', '.join(documented)} (the code otherwise as it was).",
        expected_evidence=["code_implementation", "documentation"],
    )


def tests_passed(state: TaskState) -> bool:
    """The task's last test run passed."""
    runs = [c for c in state.calls if c.tool == "run_tests"]
    return bool(runs) and runs[-1].outcome == "success"


def code_files(state: TaskState, artifacts: Path) -> list[str]:
    """The Python files the task wrote that are not tests, those defining a function the goal
    names first."""
    paths = [
        p
        for p in sorted(state.files)
        if p.endswith(".py")
        and p != TEST_FILE
        and not PurePosixPath(p).name.startswith("test_")
        and (artifacts / p).is_file()
    ]
    names = named_functions(state.goal)

    def names_none(path: str) -> bool:
        text = (artifacts / path).read_text(encoding="utf-8", errors="replace")
        return not any(f"def {name}(" in text for name in names)

    return sorted(paths, key=names_none)


__all__ = ["DOCS_REQUIREMENT", "KIND", "code_files", "step", "tests_passed"]
