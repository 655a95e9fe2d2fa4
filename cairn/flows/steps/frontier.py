"""The breadth-first frontier: candidates scored, merged, deduplicated and popped by beam.

Pure functions over plain data; the planner model only proposes candidates, these decide.

>>> a = PlannedCall(tool="read_file", params={"path": "a.md"}, expected_evidence=["synthesis"])
>>> [c.tool for c in pop_best(merge_frontier([], [a], set(), []), beam=1, done=set())[0]]
['read_file']
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from cairn.core import RERUN_AFTER_WRITE, EvidenceType, IterationMode, PlannedCall, ToolCall
from cairn.memory.log.state import TaskState
from cairn.tasks.goal_examples import EXAMPLES_WHY
from cairn.tasks.messages.elision import elision_in, shown
from cairn.tasks.messages.schemas import Candidate, DoneCall, Excerpt, KnownFile, Note, PlanInput, ToolSpec

# Which evidence types a requirement name points at (validators' `meta.requirement`).
_REQUIREMENT_EVIDENCE: dict[str, tuple[EvidenceType, ...]] = {
    "synthesis": ("synthesis",),
    "answer": ("synthesis", "file_creation"),
    "cite": ("documentation", "synthesis"),
    "document": ("documentation",),
    "code": ("code_implementation", "file_creation"),
    "test": ("execution",),
    "file": ("file_creation",),
    "evidence": ("file_creation", "synthesis", "execution"),
}
MODES: dict[IterationMode, tuple[int, int]] = {"fast": (4, 3), "deep": (8, 5)}  # (candidates, beam)
EXCERPT_CHARS = 6000  # the files' own words an answer may quote (about 1,500 tokens)


def score(candidate: PlannedCall, missing: list[str], done: set[str]) -> float:
    """Expected evidence toward what the validator still misses, plus novelty against history."""
    wanted = {
        ev for req in missing for word, evs in _REQUIREMENT_EVIDENCE.items() if word in req for ev in evs
    }
    toward = len(wanted.intersection(candidate.expected_evidence)) / max(1, len(wanted)) if wanted else 0.0
    novelty = 0.0 if candidate.signature in done else 1.0
    base = 0.2 if candidate.expected_evidence else 0.1
    return round(0.5 * toward + 0.3 * novelty + base, 6)


def from_candidates(candidates: Iterable[Candidate], missing: list[str], done: set[str]) -> list[PlannedCall]:
    planned = [
        PlannedCall(
            tool=c.tool, params=c.params, rationale=c.rationale, expected_evidence=c.expected_evidence
        )
        for c in candidates
    ]
    return [p.model_copy(update={"score": score(p, missing, done)}) for p in planned]


def merge_frontier(
    frontier: list[PlannedCall], candidates: list[PlannedCall], done: set[str], missing: list[str]
) -> list[PlannedCall]:
    """New candidates first among equals; queued ones rescored against the new missing list."""
    merged: dict[str, PlannedCall] = {}
    for call in [*candidates, *frontier]:
        if call.signature in done or call.signature in merged:
            continue
        merged[call.signature] = call.model_copy(update={"score": score(call, missing, done)})
    order = {sig: i for i, sig in enumerate(merged)}
    return sorted(merged.values(), key=lambda c: (-c.score, order[c.signature]))


def pop_best(
    frontier: list[PlannedCall], beam: int, done: set[str]
) -> tuple[list[PlannedCall], list[PlannedCall]]:
    """The `beam` best calls not run before (loop prevention), and what stays queued.

    At most one write per path goes into a batch, since two writes to one file cannot run in parallel.
    """
    batch: list[PlannedCall] = []
    writes: set[str] = set()
    rest: list[PlannedCall] = []
    for call in frontier:
        target = str(call.params.get("path", "")) if call.tool == "write_file" else ""
        if len(batch) < beam and call.signature not in done and target not in writes:
            batch.append(call)
            if target:
                writes.add(target)
        elif call.signature not in done:
            rest.append(call)
    return batch, rest


def plan_input(
    state: TaskState,
    tools: list[ToolSpec],
    context: str,
    missing: list[str],
    *,
    recovery: bool = False,
    requirements: list[str] | None = None,
    files: list[KnownFile] | None = None,
    lines: list[str] | None = None,
) -> PlanInput:
    """What the planner sees. `files`: what is on disk (sources, workspace), so even the first
    plan names real files; `requirements`: what "done" means for the task type."""
    candidates, _ = MODES[state.mode]
    return PlanInput(
        goal=state.goal,
        task_type=state.task_type,
        iteration=state.current,
        mode=state.mode,
        candidates=candidates,
        tools=tools,
        sources=[f"source:{name}" for name in sorted(state.sources)],
        files=_merged(files or [], known_files(state)),
        notes=notes(state),
        excerpts=excerpts(state) if state.task_type == "coding_task" else [],
        requirements=requirements or [],
        missing=missing,
        done_calls=done_calls(state),
        written=sorted(state.files),
        context=context,
        recovery=recovery,
        feedback=state.iteration_feedback,
        unmet=state.verdict.unmet if state.verdict else [],
        lines=lines or [],
    )


def done_calls(state: TaskState) -> list[DoneCall]:
    """The calls not to propose again, as the planner reads them (a long argument as a reference:
    `cairn.tasks.messages.elision`)."""
    done = done_signatures(state)
    found: dict[str, DoneCall] = {}
    for call in state.calls:
        signature = PlannedCall(tool=call.tool, params=call.params).signature
        if signature in done:
            found[signature] = DoneCall(
                tool=call.tool,
                params={k: shown(v, _written_to(call, k)) for k, v in call.params.items()},
                outcome=call.outcome,
                key=DoneCall.key_of(signature),
            )
    return list(found.values())


def _written_to(call: ToolCall, param: str) -> str:
    """The file a call's argument was written to (a write's content), which the planner can read."""
    return str(call.params.get("path", "")) if call.tool == "write_file" and param == "content" else ""


def _merged(on_disk: list[KnownFile], seen: list[KnownFile]) -> list[KnownFile]:
    by_path = {f.path: f for f in on_disk}
    for file in seen:
        before = by_path.get(file.path)
        by_path[file.path] = (
            file.model_copy(update={"size": before.size}) if before and not file.size else file
        )
    return list(by_path.values())


def screen(candidates: list[Candidate], tools: list[ToolSpec], state: TaskState) -> list[str]:
    """Why proposals cannot be used: an unknown tool or parameter, a source that does not exist,
    or a call already made. One line each, for the planner to read when it is asked again."""
    specs = {t.name: t for t in tools}
    done = done_signatures(state)
    reasons = ((cand, _reason(cand, specs, state, done)) for cand in candidates)
    return [f"{_shown(cand)}: {why}" for cand, why in reasons if why]


def _reason(cand: Candidate, specs: dict[str, ToolSpec], state: TaskState, done: set[str]) -> str | None:
    spec = specs.get(cand.tool)
    if spec is None:
        return f"there is no tool {cand.tool!r}; tools: {', '.join(specs)}"
    if unknown := sorted(set(cand.params) - set(spec.params)):
        return f"{cand.tool} has no parameter {', '.join(unknown)}; it takes {', '.join(spec.params)}"
    if bad := _unknown_source(cand, state):
        return f"no source {bad!r}; sources: {', '.join(sorted(state.sources)) or 'none'}"
    if marker := elision_in(cand.params):
        # The 1.5B proposed a file's shortened view as its new content; written, it broke the file.
        return f"{marker!r} is Cairn's reference to an earlier value, not its text: give the whole text"
    if PlannedCall(tool=cand.tool, params=cand.params).signature in done:
        return "already done (see done_calls); propose something new"
    if cand.tool == "write_file" and cand.params.get("path") in examples_files(state):
        # Asked to fix code its examples failed, the 1.5B rewrote this file instead (HumanEval/10).
        return "it holds the goal's own examples as a test (Cairn wrote it): fix the code it tests"
    return None


def examples_files(state: TaskState) -> set[str]:
    """The files Cairn wrote from the goal's examples (`cairn.tasks.goal_examples`)."""
    written = (
        c for c in state.calls if c.tool_selection_rationale == EXAMPLES_WHY and c.outcome == "success"
    )
    return {str(c.params.get("path", "")) for c in written}


def _shown(cand: Candidate) -> str:
    return f"{cand.tool}({', '.join(f'{k}={shown(v)!r}' for k, v in cand.params.items())})"


def _unknown_source(cand: Candidate, state: TaskState) -> str | None:
    for value in cand.params.values():
        if isinstance(value, str) and value.startswith("source:"):
            name = value.removeprefix("source:").split("/", 1)[0]
            if name not in state.sources:
                return name
    return None


def done_signatures(state: TaskState) -> set[str]:
    """Signatures of the calls already run; a check (tests, lint, a script) that ran no later than
    the last file write is not done: re-running it after a fix is new work, not a loop."""
    last_write = max((c.iteration for c in state.calls if _wrote(c)), default=0)
    return {
        PlannedCall(tool=c.tool, params=c.params).signature
        for c in state.calls
        if not (c.tool in RERUN_AFTER_WRITE and c.iteration <= last_write)
    }


def known_files(state: TaskState) -> list[KnownFile]:
    seen: dict[str, KnownFile] = {}
    for call in state.calls:
        for path in call.paths:
            read = call.tool == "read_file" and call.outcome == "success"
            previous = seen.get(path)
            seen[path] = KnownFile(path=path, read=read or bool(previous and previous.read))
    return list(seen.values())


NOTED = ("read_file", "search_memory", "run_python")


def _acted(state: TaskState, call: ToolCall) -> bool:
    """A call of an action goal's plan: every one of them is evidence for its answer."""
    return state.strategy == "action" and call.tool != "answer"


def notes(state: TaskState, limit: int = 40) -> list[Note]:
    found = [
        Note(source=(c.paths[0] if c.paths else c.call_id), text=c.insights, relevance=c.relevance)
        for c in state.calls
        if c.insights and c.outcome == "success" and (c.tool in NOTED or _acted(state, c))
    ]
    return found[-limit:]


def excerpts(
    state: TaskState, budget_chars: int = EXCERPT_CHARS, full_output: Callable[[ToolCall], str] | None = None
) -> list[Excerpt]:
    """The words of the files read that bear on the goal (not low relevance), the latest reading
    of each, and the source passages of the opening's searches, most relevant first, within a
    budget: what an answer quotes its figures from. `full_output` reads a call's whole output
    (its record keeps the first 1,000 characters)."""
    read = full_output or (lambda call: call.raw_output)
    latest = {_excerpt_source(c): c for c in state.calls if _quotable(c) or (_acted(state, c) and _ok(c))}
    ranked = sorted(
        latest.items(), key=lambda item: (item[1].relevance != "high", -item[1].iteration, item[1].index)
    )
    found: list[Excerpt] = []
    for source, call in ranked:
        if budget_chars <= 0:
            break
        found.append(Excerpt(source=source, text=read(call)[:budget_chars]))
        budget_chars -= len(found[-1].text)
    return found


def _ok(call: ToolCall) -> bool:
    return call.outcome == "success"


def _quotable(call: ToolCall) -> bool:
    if call.outcome != "success" or call.relevance == "low":
        return False
    return (
        (call.tool == "read_file" and bool(call.paths))
        or (call.tool == "search_memory" and _searched(call))
        or (call.tool == "find_lines" and bool(call.paths))
    )


def _searched(call: ToolCall) -> bool:
    """A search whose hits are passages of the sources (what the opening asks for)."""
    return "[document_chunk source:" in call.raw_output


def _excerpt_source(call: ToolCall) -> str:
    if call.tool == "find_lines":
        return f"find: {call.params.get('path', '')} {call.params.get('words', '')}"
    if call.tool == "read_file" and call.paths:
        return call.paths[0]
    if call.tool == "search_memory":
        return f"search: {call.params.get('query', '')}"
    # Any other call (an action goal's, of a tool of the user's own): the call names it.
    return f"{call.tool}({json.dumps(call.params, sort_keys=True, ensure_ascii=False)})"


def _wrote(call: ToolCall) -> bool:
    return call.tool == "write_file" and call.outcome == "success"
