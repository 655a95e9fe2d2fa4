"""A task's deliverable checked against what the task read: the rows its suite judges.

What counts as read: the source files it read (`read_file`, listings and summaries of a
`source:` folder), the source passages its memory searches returned, and the output of the
user's own tools (Python functions, MCP servers). What does not: files the task wrote, its notes,
code it ran (`run_python` prints whatever the model wrote).

>>> from cairn.memory.log.state import TaskState
>>> state = TaskState(goal="Who owns billing?", task_type="simple_question", parts=["Who owns billing?"])
>>> checked_for(state, "", str).parts[0].answered
False
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath

from cairn.core import CodeReference, Coverage, FunctionCheck, ModelJudgement, PartCheck, ToolCall
from cairn.memory.index.sources import text_files
from cairn.memory.log.state import TaskState
from cairn.tasks.actions import plans_done
from cairn.tasks.coverage.goal import CoverageGoal, coverage_goal, ranges_over
from cairn.tasks.grounding import ReadIndex, split_goal
from cairn.tasks.grounding.answer_text import answer_body, terms
from cairn.tasks.grounding.asked import parse
from cairn.tasks.grounding.functions import check_files, check_functions, named_files, named_functions
from cairn.tasks.grounding.lemmas import content_terms
from cairn.tasks.grounding.lexicon import QUESTION_FRAME
from cairn.tasks.grounding.parts import is_question
from cairn.tasks.grounding.reads import Read, passages
from cairn.tasks.pieces import pieces_of
from cairn.tasks.tools.builtins import BUILTIN_NAMES
from cairn.tasks.validation import Checked
from cairn.tasks.verifier import CairnJudge, PartToVerify, Verifier, VerifyRequest
from cairn.tasks.verifier.answer_check import Grounding, check_answer
from cairn.tasks.verifier.exact import normalised
from cairn.tasks.verifier.seam import verified

FullOutput = Callable[[ToolCall], str]  # a call's whole output (its record keeps only the start)
_SOURCE_TOOLS = frozenset({"read_file", "list_directory", "summarize_directory"})
_SHOWN = re.compile(r"\((?P<shown>\d+) of (?P<all>\d+) matching lines\)\s*$")
_FRAME_TERMS = terms(" ".join(sorted(QUESTION_FRAME)))


def full_output_reader(task_root: Path) -> FullOutput:
    """Read a call's whole output from the task's `outputs/` folder, or its record when short."""

    def read(call: ToolCall) -> str:
        if call.output_path:
            try:
                return (task_root / call.output_path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                pass
        return call.raw_output

    return read


def task_reads(state: TaskState, full_output: FullOutput) -> list[Read]:
    """Everything the task read from outside itself (see the module docstring)."""
    return list(_reads(state.calls, full_output))


def _reads(calls: list[ToolCall], full_output: FullOutput) -> Iterator[Read]:
    for call in calls:
        if call.outcome != "success":
            continue
        path = str(call.params.get("path", ""))
        if call.tool in _SOURCE_TOOLS and path.startswith("source:"):
            yield Read(path, full_output(call))
        elif call.tool in ("search_memory", "find_lines"):
            yield from passages(full_output(call))
        elif call.tool not in BUILTIN_NAMES:
            yield Read(call.call_id, full_output(call), about=_asked(call))


def _asked(call: ToolCall) -> str:
    """A tool call as the question its output answers: `time.convert_time Europe/London 12:00
    Asia/Tokyo` (the output's JSON says `21:00` without saying where or of what)."""
    values = " ".join(str(v)[:80] for v in call.params.values() if isinstance(v, str | int | float))
    return f"{call.tool} {values}".strip()


def given_text(state: TaskState) -> str:
    """What people said: the goal and their feedback (an answer may repeat it without a source)."""
    return "\n".join([state.goal, *state.feedback])


def sources_exhausted(state: TaskState, full_output: FullOutput) -> bool:
    """Every source file was read whole, or searched with `find_lines` (every match shown) for
    words of each question of the goal: a line stating an answer could not have been missed."""
    read = {
        str(c.params.get("path", "")) for c in state.calls if c.tool == "read_file" and c.outcome == "success"
    }
    searches = [
        (str(c.params.get("path", "")).rstrip("/"), content_terms(str(c.params.get("words", ""))))
        for c in state.calls
        if c.tool == "find_lines" and c.outcome == "success" and _every_match(full_output(c))
    ]
    wanted = [parse(p).attribute for p in state.parts or split_goal(state.goal) if is_question(p)]
    for path in source_files(state):
        if path in read:
            continue
        scopes = [words for where, words in searches if path == where or path.startswith(f"{where}/")]
        if not wanted or not all(any(words and words <= need for words in scopes) for need in wanted):
            return False
    return True


def source_files(state: TaskState) -> list[str]:
    """Every file of the task's sources that the tools read, as they name it (`source:NAME/path`),
    in order: binary files and files too large to read are none (`TaskState.skipped_sources`)."""
    found = []
    for name, folder in sorted(state.sources.items()):
        found += [f"source:{name}/{rel}" for rel, _ in text_files(Path(folder))]
    return sorted(found)


def _every_match(output: str) -> bool:
    tail = _SHOWN.search(output)
    return tail is not None and tail["shown"] == tail["all"]


def checked_for(
    state: TaskState, deliverable: str, full_output: FullOutput, verifier: Verifier | None = None
) -> Checked:
    """The claim, part and function rows of the task's deliverable (its Markdown text); its parts
    as `verifier` judges them (Cairn's own judge when None), once."""
    if state.task_type == "coding_task":
        defined = {name for code in state.code.values() for name in _defined(code)}
        given = {piece.name for piece in pieces_of(state.goal) if piece.given}  # code the goal wrote itself
        asked = [name for name in named_functions(state.goal) if name not in given]
        functions = [_seconded(f, state) for f in check_functions(asked, defined, state.calls)]
        return Checked(functions=functions, parts=check_files(named_files(state.goal), _present(state)))
    if state.strategy == "action":
        return Checked(parts=[_acted(state, deliverable, verifier)])
    parts = state.parts or split_goal(state.goal)
    if (spec := goal_over_items(state)) is not None and state.coverage is not None:
        return Checked(parts=[_covered(part, spec, state) for part in parts])  # each cell proven as read
    read = task_reads(state, full_output)
    exhausted = sources_exhausted(state, full_output)
    found = check_answer(
        deliverable, parts, ReadIndex(read), given_text(state), state.worked, exhausted=exhausted
    )
    judged = judged_by(verifier, state.goal, deliverable, found, read, exhausted=exhausted, said=state.judged)
    return Checked(claims=found.claims, parts=judged.parts + _ranging(state), every_source_read=exhausted)


def _acted(state: TaskState, deliverable: str, verifier: Verifier | None) -> PartCheck:
    """An action goal as one part: what its plan's calls did (`cairn.tasks.actions.plans_done`), as the
    verifier judges it (a served model's word on whether they did what the goal asked), within
    Cairn's exact check that every step was made as planned."""
    made = plans_done(state.plans, state.checked_actions, state.calls)
    quotes = [] if made.why else made.quotes
    check = PartCheck(part=state.goal, answered=False, value=made.value, why=made.why, quotes=quotes)
    said = [j.p_yes for j in state.judged if j.part == state.goal and j.value == made.value]
    part = PartToVerify(
        part=state.goal,
        value=made.value,
        quotes=quotes,
        cairn=check,
        p_yes=max(said, default=None),
        kind="calls",
    )
    request = VerifyRequest(goal=state.goal, answer=answer_body(deliverable), parts=[part])
    return verified(request, verifier or CairnJudge())[0]


def judged_by(
    verifier: Verifier | None,
    goal: str,
    answer: str,
    found: Grounding,
    read: list[Read],
    *,
    exhausted: bool,
    said: Sequence[ModelJudgement] = (),
) -> Grounding:
    """The answer's parts (`found`: each value with the lines read holding it) as `verifier`
    (Cairn's own judge when None) decides them; `said`: a served model's yes/no on values and
    their lines."""
    request = verify_request(goal, answer, found, read, exhausted, "cairn", said)
    return Grounding(claims=found.claims, parts=verified(request, verifier or CairnJudge()))


def verify_request(
    goal: str,
    answer: str,
    found: Grounding,
    read: list[Read],
    exhausted: bool,
    judge: str,
    said: Sequence[ModelJudgement] = (),
) -> VerifyRequest:
    """What a `Verifier` is asked of one answer: each part's value with the lines read that hold
    it (Cairn's exact check; for a figure Cairn worked out, the lines of its operands), beside
    Cairn's own judge's word (`judge`: its name)."""
    parts = [
        PartToVerify(
            part=check.part,
            value=check.value,
            quotes=check.quotes if check.value else [],  # found exactly (`part_values`)
            cairn=check.model_copy(update={"judge": judge}),
            p_yes=_model_says(check, said),
        )
        for check in found.parts
    ]
    return VerifyRequest(goal=goal, answer=answer_body(answer), parts=parts, every_source_read=exhausted)


def _model_says(check: PartCheck, said: Sequence[ModelJudgement]) -> float | None:
    """The served model's P(yes) on the part's value (the most it gave on any line), or None."""
    found = [
        j.p_yes
        for j in said
        if j.part == check.part and check.value and normalised(j.value) == normalised(check.value)
    ]
    return max(found, default=None)


def _seconded(function: FunctionCheck, state: TaskState) -> FunctionCheck:
    """The function's check with what a second sample of it said, when one disagreed."""
    checked = state.pieces.get(function.name)
    if checked is None or checked.disagreement is None:
        return function
    return function.model_copy(update={"disagreement": checked.disagreement.words()})


def goal_over_items(state: TaskState) -> CoverageGoal | None:
    """The task's goal as one about every item of a kind, or None: a coding task never is one, nor
    a goal whose every source was read without finding one item of its kind (`What percent does
    the law require all spirits to have?` asks one value; the ledger it seemed to ask for is empty,
    and the goal is answered as asked).

    >>> goal = "For every service, list its owner."
    >>> goal_over_items(TaskState(goal=goal)).kind
    'service'
    >>> read = Coverage(sources=5, read=5, items=0)
    >>> goal_over_items(TaskState(goal=goal, coverage=read)) is None
    True
    """
    if state.task_type == "coding_task":
        return None
    found = state.coverage
    if found is not None and found.sources and found.read >= found.sources and not found.items:
        return None
    return coverage_goal(state.goal)


def _ranging(state: TaskState) -> list[PartCheck]:
    """A goal that quantifies a kind (`each of the services`) but whose fields could not be read:
    Cairn cannot tell how much it asks, so it says so and reads every source before it may be
    complete, rather than completing on a handful of rows."""
    kind = ranges_over(state.goal) if state.task_type != "coding_task" else None
    if kind is None:
        return []
    coverage = state.coverage or Coverage()
    part = f"every {kind} the goal may range over"
    if coverage.sources and coverage.read >= coverage.sources:
        return [PartCheck(part=part, answered=True, value=f"every source read ({coverage.line()})")]
    why = f"the goal may range over every {kind}, and not every source was read: {coverage.line()}"
    return [PartCheck(part=part, answered=False, why=why)]


def _covered(part: str, spec: CoverageGoal, state: TaskState) -> PartCheck:
    """A coverage goal's part: answered when every source was read and every item's fields are
    quoted or stated as not given."""
    coverage = state.coverage or Coverage()
    rows = list(state.ledger.values())
    unsettled = [row.item for row in rows if not row.done]
    if coverage.complete and rows and not unsettled:
        return PartCheck(part=part, answered=True, value=coverage.line())
    lacking = f"; no proven {spec.kind} field for {', '.join(unsettled[:5])}" if unsettled else ""
    found = "" if rows else f"; no {spec.kind} found yet"
    return PartCheck(part=part, answered=False, why=f"{coverage.line()}{lacking}{found}")


def _present(state: TaskState) -> Callable[[str], bool]:
    """Whether a file the goal names is there: written by the task, or in one of its sources."""
    written = set(state.files) | {PurePosixPath(path).name for path in state.files}
    roots = [Path(folder) for folder in state.sources.values()]

    def present(name: str) -> bool:
        base = PurePosixPath(name).name
        return name in written or any(next(root.rglob(base), None) for root in roots if root.is_dir())

    return present


def _defined(code: CodeReference) -> Iterator[str]:
    yield from (function.name for function in code.functions)
    yield from (method.name for cls in code.classes for method in cls.methods)


def lines_to_answer_from(state: TaskState, full_output: FullOutput, k: int = 6) -> list[str]:
    """After a verdict that found the answer wanting: the lines of what the task read that hold
    the words of the parts still unanswered (of the goal, when every part was answered but a
    claim was not supported), each as `source: line`; first the lines that prove a value the
    answer did not give."""
    verdict = state.verdict
    if verdict is None or not verdict.unmet:
        return []
    unanswered = [p for p in verdict.parts if not p.answered]
    proving = [f"{q.source}:{q.line}: {q.text[:300]}" for p in unanswered if p.value for q in p.quotes]
    open_parts = [p.part for p in unanswered] or [state.goal]
    wanted = set().union(*(terms(part) for part in open_parts)) - _FRAME_TERMS
    about = ReadIndex(task_reads(state, full_output)).lines_about(wanted, k)
    return list(dict.fromkeys(proving + about))[: max(k, len(proving))]
