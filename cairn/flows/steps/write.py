"""The coding task's explicit step: when the planner has nothing new to propose, write the files
(or, when code changed since the tests last ran, run them; or, when they passed and the suite
wants documentation, ask for each function's docstring: `cairn.flows.steps.docstring`).

A small model that has read a spec proposes reading it again, re-asked or not (Qwen2.5-Coder-1.5B
on `bench/agent_tasks/slugify`, five iterations); asked for the files alone, it writes them. This
is to a coding task what `deliver` is to a question. Imports the model forgot come first, from
Cairn itself when certain (`cairn.tasks.code_imports`), before any test run or model call.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from cairn.core import CallKey, PlannedCall
from cairn.flows.steps import docstring, frontier, piecewise, redraw
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.memory.context.relevant import rules_block
from cairn.memory.log.state import TaskState
from cairn.tasks.code_imports import completions
from cairn.tasks.goal_examples import EXAMPLES_WHY, TEST_FILE, examples_test
from cairn.tasks.grounding.functions import named_files, named_functions
from cairn.tasks.messages.prompts import BODY_ASKS
from cairn.tasks.messages.schemas import Candidate, Excerpt, WriteInput, WriteOutput
from cairn.tasks.task_grounding import FullOutput

TESTS_WHY = "The code changed since the tests last ran."
KEPT_WHY = "Kept as they were, their examples passing:"
IMPORTS_WHY = "Cairn adds the imports that names used and bound nowhere need, in"
FILES_REQUIREMENT = "every file the goal names written"  # validators/coding_task.json


def coding_step(session: Session, executor: Executor, iteration: int, missing: list[str]) -> list[Candidate]:
    """What a coding task does next when its planner is out of ideas: nothing for other tasks."""
    state = session.state
    if state.task_type != "coding_task":
        return []
    names = session.toolset().names()
    if "write_file" in names and (fixes := import_fixes(state, session.artifacts)):
        return fixes  # no model needed, and before a test run that would only show the NameError
    if "run_tests" in names and untested(state):
        return [
            Candidate(
                tool="run_tests",
                rationale=TESTS_WHY,
                expected_evidence=["execution", "validation"],
            )
        ]
    if "write_file" not in names:
        return []
    if documented := docstring.step(session, executor, iteration, missing):
        return documented  # the tests passed: what the suite still wants is a docstring

    def asked(key: CallKey, ask: WriteInput, name: str) -> dict[str, str]:
        return _files(session, executor, key, ask, name)

    pieces = piecewise.step(session, iteration, asked)
    drafts = _drafts(session, executor, iteration, missing) if pieces is None else pieces
    return [*drafts, *examples_write(state, drafts)]


def _drafts(session: Session, executor: Executor, iteration: int, missing: list[str]) -> list[Candidate]:
    """The files the model writes when asked for them alone (with what failed, when fixing),
    asked again at once, in other words each time, while a function the goal names comes back
    without a body; then plainly (`cairn.flows.steps.redraw`) when that gave no new code. Once
    the plain ask was needed, a task whose code still fails (and that read no spec) goes to it
    straight away. Functions whose examples passed are kept as they were in every draft
    (`keeping`), so only the failing ones are asked for again."""
    state = session.state
    payload = _write_input(session, missing)
    names = named_functions(state.goal)
    run = _failing_run(state, session.reader, limit=None)
    keep = redraw.passing(state.goal, run, names)  # a new draft must not take these away
    drawn = redraw.draws(state, iteration)
    plain_only = redraw.plain_only(payload, names, drawn)
    artifacts = session.artifacts
    full = {} if plain_only else _full(session, executor, iteration, payload)
    # Kept before the redraw's test: a full draft that only rewrote (or stubbed) functions that
    # pass is the code written back unchanged, and the failing ones are drawn again.
    drafts = {path: keeping(artifacts / path, text, keep, names) for path, text in full.items()}
    fixing = [name for name in names if name not in keep]
    if plain := redraw.redraw_input(payload, drafts, fixing, drawn):
        key = CallKey(task_id=session.task_id, iteration=iteration, index=drawn, kind=redraw.KIND)
        redrawn = _files(session, executor, key, plain, f"redraw-{iteration}-{drawn}")
        redrawn = {path: keeping(artifacts / path, text, keep, names) for path, text in redrawn.items()}
        if not redraw.stubs(redrawn, names):  # a body at last: it replaces what failed
            drafts |= redrawn
    return [
        Candidate(
            tool="write_file",
            params={"path": path, "content": content},
            rationale="The files the goal asks for, written when asked for alone."
            + (f" {KEPT_WHY} {', '.join(keep)}." if keep and path.endswith(".py") else ""),
            expected_evidence=["file_creation", "code_implementation"],
        )
        for path, content in drafts.items()
        if path != TEST_FILE and (not payload.wanted or path in payload.wanted)
    ]


def keeping(path: Path, draft: str, keep: list[str], names: list[str]) -> str:
    """The draft of a code file, with the functions whose examples pass as the file on disk has them
    (a small model rewriting ten functions to fix one took away those that passed: 10 of 15
    examples passing became 1), and those the goal names that it dropped. A draft that defines
    none of the goal's functions is no draft of them (the 1.5B once answered
    `obj['bodies']['solution.py']`): it is left as it is, for `write_file` to refuse."""
    if not keep or not path.is_file() or path.suffix != ".py":
        return draft
    drafted = redraw.defined(draft)
    if not drafted & set(names):
        return draft
    dropped = [name for name in names if name not in drafted and name not in keep]
    current = path.read_text(encoding="utf-8", errors="replace")
    new = redraw.kept(current, draft, [*keep, *dropped])
    failing = [name for name in names if name not in keep]
    # The failing functions as they were (whatever else moved: imports, comments): no new code,
    # so the redraw asks for them plainly (the K = 10 rerun: drafts without Cairn's import lines).
    return current if redraw.same_functions(new, current, failing) else new


def _full(session: Session, executor: Executor, iteration: int, payload: WriteInput) -> dict[str, str]:
    """The full `write` ask, and its re-asks in other words while a body is missing."""
    names = named_functions(session.state.goal)
    key = CallKey(task_id=session.task_id, iteration=iteration, index=0, kind="write")
    drafts = _files(session, executor, key, payload)
    for phrasing in range(BODY_ASKS):
        if not (empty := redraw.stubs(drafts, names)):
            break
        # Shown the stub it wrote (and its failing run), the 1.5B wrote it back once more.
        again = payload.model_copy(update={"bodies": empty, "phrasing": phrasing, "current": [], "tests": ""})
        key = CallKey(task_id=session.task_id, iteration=iteration, index=1 + phrasing, kind="write")
        drafts = _files(session, executor, key, again) or drafts
    return drafts


def import_fixes(state: TaskState, artifacts: Path) -> list[Candidate]:
    """The task's Python files with the imports they lack added, when certain
    (`cairn.tasks.code_imports`); Cairn's own examples test aside."""
    files = {
        path: (artifacts / path).read_text(encoding="utf-8", errors="replace")
        for path in sorted(state.files)
        if path.endswith(".py") and (artifacts / path).is_file()
    }
    return [
        Candidate(
            tool="write_file",
            params={"path": path, "content": fix.content},
            rationale=f"{IMPORTS_WHY} {path}: {'; '.join(fix.added)}",
            expected_evidence=["code_implementation"],
        )
        for path, fix in completions(files).items()
        if path != TEST_FILE
    ]


def _write_input(session: Session, missing: list[str]) -> WriteInput:
    state = session.state
    reader = session.reader
    return WriteInput(
        goal=state.goal,
        excerpts=frontier.excerpts(state, full_output=reader),
        notes=frontier.notes(state),
        written=sorted(state.files),
        missing=missing,
        context=rules_block(state, session.deps.store),
        unmet=state.verdict.unmet if state.verdict else [],
        current=_current_code(state, session.artifacts),
        tests=_failing_run(state, reader),
        wanted=_only_missing_files(state),
    )


def _files(
    session: Session, executor: Executor, key: CallKey, payload: WriteInput, name: str = ""
) -> dict[str, str]:
    """Path -> content of the files a `write` reply holds (a block no line names goes where the
    goal says, or to the one file a plain ask named; one that cannot be placed is dropped)."""
    name = name or f"write-{key.iteration}" + (f"-again-{key.index}" if key.index else "")
    result = ask(session, executor, key, "write", payload, name)
    if not (result.ok and isinstance(result.output, WriteOutput)):
        return {}
    asked = payload.current[0].source if payload.form == "plain" and payload.current else ""
    found: dict[str, str] = {}
    for draft in result.output.files:
        path = (asked or draft.path.strip() or goal_path(payload.goal, draft.content)).removeprefix("./")
        if path and draft.content.strip():
            found.setdefault(path, unfenced(path, draft.content))  # the first of a name wins
    return found


def _only_missing_files(state: TaskState) -> list[str]:
    """The files the goal names that are not written, when they are all the last verdict missed:
    asked for the tests file alone, the 1.5B rewrote the passing solution instead (and broke it),
    so only the files asked for are taken."""
    verdict = state.verdict
    if verdict is None or verdict.missing != [FILES_REQUIREMENT]:
        return []
    return [part.part for part in verdict.parts if not part.answered]


def goal_path(goal: str, code: str) -> str:
    """Where a block of code the model named no file for goes: the test file the goal names when
    the code is tests, else the one other Python file it names ("" when that is not clear).

    >>> goal = "Write `add` in solution.py, with pytest tests in test_solution.py"
    >>> goal_path(goal, "def add(a, b):"), goal_path(goal, "def test_add():")
    ('solution.py', 'test_solution.py')
    """
    named = [p for p in named_files(goal) if p.endswith(".py")]
    tests = _tests(named)
    code_files = [p for p in named if p not in tests]
    wanted = tests if "def test_" in code else code_files
    return wanted[0] if len(wanted) == 1 else ""


def examples_write(state: TaskState, drafts: list[Candidate]) -> list[Candidate]:
    """The goal's own examples as a test of the module that defines what the goal names, written
    once (`cairn.tasks.goal_examples`): into the tests file the goal names when the model wrote
    none (asked for one, the 1.5B repeated assertions until its cap, or rewrote the code), else
    beside the model's."""
    if frontier.examples_files(state):
        return []  # written once, wherever it went
    path = _examples_path(state, drafts)
    module = next((m for d in drafts if (m := _module_naming(d, named_functions(state.goal)))), None)
    test = examples_test(state.goal, module) if module else None
    if test is None:
        return []
    return [Candidate(tool="write_file", params={"path": path, "content": test}, rationale=EXAMPLES_WHY)]


def _tests(paths: list[str]) -> list[str]:
    return [p for p in paths if PurePosixPath(p).name.startswith("test_")]


def _examples_path(state: TaskState, drafts: list[Candidate]) -> str:
    tests = _tests([p for p in named_files(state.goal) if p.endswith(".py")])
    drafted = {str(d.params.get("path", "")) for d in drafts}
    if len(tests) == 1 and tests[0] not in state.files and tests[0] not in drafted:
        return tests[0]
    return TEST_FILE


def _module_naming(draft: Candidate, names: list[str]) -> str | None:
    """The module a draft writes, when it defines a function the goal names (tests aside)."""
    path, content = str(draft.params.get("path", "")), str(draft.params.get("content", ""))
    module = PurePosixPath(path).stem
    defines = any(f"def {name}(" in content for name in names)
    return module if path.endswith(".py") and not module.startswith("test_") and defines else None


def _current_code(state: TaskState, artifacts: Path, limit: int = 6000) -> list[Excerpt]:
    """The code files the task wrote, as they are now (what a fix starts from); the goal's
    examples test aside (Cairn writes it, the failing run says what it found)."""
    found: list[Excerpt] = []
    for path in sorted(state.files):
        if path.endswith(".py") and path != TEST_FILE and (artifacts / path).is_file() and limit > 0:
            text = (artifacts / path).read_text(encoding="utf-8", errors="replace")[:limit]
            found.append(Excerpt(source=path, text=text))
            limit -= len(text)
    return found


def _failing_run(state: TaskState, reader: FullOutput, limit: int | None = 3000) -> str:
    """The output of the last test run (its end, `limit` characters), when it failed: what the fix
    must answer."""
    runs = [c for c in state.calls if c.tool == "run_tests"]
    if not runs or runs[-1].outcome == "success":
        return ""
    output = reader(runs[-1])
    return output[-limit:] if limit is not None else output


def with_tests(session: Session, batch: list[PlannedCall]) -> list[PlannedCall]:
    """The batch, plus a test run when a coding task's code changed since its tests last ran and
    the batch writes nothing (tests beside a write would race it): the 1.5B wrote the files, then
    planned reading them back and never ran the tests."""
    state = session.state
    tools = {call.tool for call in batch}
    if state.task_type != "coding_task" or not untested(state) or tools & {"write_file", "run_tests"}:
        return batch
    if "run_tests" not in session.toolset().names():
        return batch
    return [
        *batch,
        PlannedCall(tool="run_tests", rationale=TESTS_WHY, expected_evidence=["execution", "validation"]),
    ]


def unfenced(path: str, content: str) -> str:
    """A code file's content without the Markdown fence a model wrapped it in (the 1.5B wrote
    slug.py as "```python ... ```"); Markdown files are left as they are.

    >>> unfenced("slug.py", "```python\\nimport re\\n```\\n"), unfenced("a.md", "```\\nx\\n```")
    ('import re\\n', '```\\nx\\n```')
    """
    text = content.strip()
    if path.endswith((".md", ".markdown")) or not (text.startswith("```") and text.endswith("```")):
        return content
    _language, _, body = text[3:-3].partition("\n")
    if "```" in body:
        return content  # several fenced blocks: not one wrapped file
    return body.rstrip("\n") + "\n"


def untested(state: TaskState) -> bool:
    """A file was written since the last test run (or tests never ran after a write). A run whose
    tests failed ran them (its outcome is `failure`): the next step is a fix, not the same run."""
    last: dict[str, int] = {}
    for position, call in enumerate(state.calls):
        ran = call.outcome == "success" or (call.tool == "run_tests" and call.outcome == "failure")
        if ran and call.tool in ("write_file", "run_tests"):
            last[call.tool] = position
    return "write_file" in last and last["write_file"] > last.get("run_tests", -1)
