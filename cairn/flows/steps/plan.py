"""The plan step of an iteration: ask the planner, screen what it proposes, ask once more if
nothing can run, then merge into the frontier and pop the beam.

What the planner sees is built for models weaker than their authors: the completion requirements
of the task type and the real files (sources and workspace) from the very first plan; calls made
so far as JSON values with their outcomes; and, when every proposal was a repeat or could not
run, the reason for each, once.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from cairn.core import CallKey, ModelJudgement, PlannedCall, PlanRecorded
from cairn.flows.steps import frontier
from cairn.flows.steps.coverage import next_reads, spec_of
from cairn.flows.steps.deliver import delivery
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.flows.steps.write import coding_step, with_tests
from cairn.memory.log.state import TaskState
from cairn.tasks.messages.schemas import Candidate, KnownFile, Plan, PlanInput
from cairn.tasks.model.capabilities import context_window
from cairn.tasks.opening import opening_calls, words_budget
from cairn.tasks.task_grounding import full_output_reader, lines_to_answer_from
from cairn.tasks.validation import requirements

FILES_PER_ROOT = 60  # files listed per source up front; `list_directory` shows the rest
_SKIP = {".git", "__pycache__", ".venv", "node_modules", ".pytest_cache"}


def plan_batch(
    session: Session, executor: Executor, iteration: int, context: str, recovery: bool = False
) -> list[PlannedCall]:
    """The calls this iteration runs (read back from the log when it was interrupted)."""
    state = session.state
    if state.plan:
        return state.plan
    wanted = requirements_for(state.task_type, session.config.validators_dir)
    missing = state.verdict.missing if state.verdict else [line.split(":")[0] for line in wanted]
    if opening := next_reads(session) or _opening(session):  # a coverage goal reads on, batch by batch
        session.recorder.record(
            PlanRecorded(iteration=iteration, candidates=opening, batch=opening, frontier=state.frontier)
        )
        return opening
    if spec_of(state) is not None:  # every source read: the ledger is all there is to deliver
        session.recorder.record(PlanRecorded(iteration=iteration, candidates=[], batch=[], frontier=[]))
        return []
    if _sources_read(session) and (step := coding_step(session, executor, iteration, missing)):
        candidates, batch, rest = _choose(session, state, step, missing)  # write, test, fix: no plan
        if batch:
            session.recorder.record(
                PlanRecorded(iteration=iteration, candidates=candidates, batch=batch, frontier=rest)
            )
            return batch
    if (handover := delivery(session, executor, iteration, missing, context)) is not None:
        answer = handover.call
        session.recorder.record(
            PlanRecorded(
                iteration=iteration,
                candidates=[answer],
                batch=[answer],
                frontier=state.frontier,
                worked=handover.worked,
                judged=handover.judged,
            )
        )
        return [answer]
    payload = frontier.plan_input(
        state,
        session.toolset().specs(),
        context,
        missing,
        recovery=recovery,
        requirements=wanted,
        files=files_on_disk(state, session.recorder.repo.artifacts),
        lines=lines_to_answer_from(state, full_output_reader(session.recorder.repo.root)),
    )
    proposed = _propose(session, executor, iteration, payload, 0)
    candidates, batch, rest = _choose(session, state, proposed, missing)
    arithmetic: list[str] = []
    judged: list[ModelJudgement] = []
    if not batch and proposed is not None:  # every proposal a repeat or unusable: say why, once
        retry = payload.model_copy(update={"rejected": _why(payload, proposed, state)})
        again = _propose(session, executor, iteration, retry, 1) or []
        candidates, batch, rest = _choose(session, state, [*proposed, *again], missing)
    if not batch:  # nothing new, or the plan call itself failed (a runaway reply): deliver, or write
        if handover := delivery(session, executor, iteration, missing, context, force=True):
            candidates, batch = [handover.call], [handover.call]  # nothing new: answer with what is known
            arithmetic, judged = handover.worked, handover.judged
        if not batch and (step := coding_step(session, executor, iteration, missing)):
            candidates, batch, rest = _choose(session, state, step, missing)  # write, or test
    batch = with_tests(session, batch)
    session.recorder.record(
        PlanRecorded(
            iteration=iteration,
            candidates=candidates,
            batch=batch,
            frontier=rest,
            worked=arithmetic,
            judged=judged,
        )
    )
    return batch


def _propose(
    session: Session, executor: Executor, iteration: int, payload: PlanInput, attempt: int
) -> list[Candidate] | None:
    """The planner's candidates; None when the call itself failed (no point asking again)."""
    key = CallKey(task_id=session.task_id, iteration=iteration, index=attempt, kind="plan")
    name = f"plan-{iteration}" if attempt == 0 else f"plan-{iteration}-again"
    result = ask(session, executor, key, "plan", payload, name)
    if not (result.ok and isinstance(result.output, Plan)):
        return None
    return list(result.output.candidates)


def _choose(
    session: Session, state: TaskState, proposed: list[Candidate] | None, missing: list[str]
) -> tuple[list[PlannedCall], list[PlannedCall], list[PlannedCall]]:
    """(new candidates, the batch, what stays queued): usable proposals merged into the frontier."""
    specs = session.toolset().specs()
    usable = [c for c in proposed or [] if not frontier.screen([c], specs, state)]
    done = frontier.done_signatures(state)
    candidates = frontier.from_candidates(usable, missing, done)
    queued = frontier.merge_frontier(state.frontier, candidates, done, missing)
    _, beam = frontier.MODES[state.mode]
    width = min(beam, session.config.beam + (state.mode == "deep") * 2)
    batch, rest = frontier.pop_best(queued, width, done)
    return candidates, batch, rest


def _why(payload: PlanInput, proposed: list[Candidate], state: TaskState) -> list[str]:
    reasons = frontier.screen(proposed, payload.tools, state) or ["the reply proposed no call"]
    read = [f.path for f in payload.files if f.read]
    if read and not state.files:
        files = ", ".join(read[:6])
        reasons.append(f"you have read {files}: if your notes answer the goal, deliver it now with `answer`")
    return reasons


def _opening(session: Session) -> list[PlannedCall]:
    """The first iteration's calls when the task has sources: read them whole, or search them."""
    state = session.state
    if state.calls or state.iterations or not state.sources:
        return []
    tools = session.toolset().names()
    calls = opening_calls(files_on_disk(state, session.recorder.repo.artifacts), state.parts, _words(session))
    return [call for call in calls if call.tool in tools]


def _sources_read(session: Session) -> bool:
    """Every source file the task can name was read (true when it has none)."""
    state = session.state
    read = {path for call in state.calls if call.tool == "read_file" for path in call.paths}
    files = files_on_disk(state, session.recorder.repo.artifacts)
    return all(f.path in read for f in files if f.path.startswith("source:"))


def _words(session: Session) -> int:
    return words_budget(context_window(session.config.model))


@lru_cache(maxsize=16)
def requirements_for(task_type: str, suites_dir: str | None) -> list[str]:
    return requirements(task_type, Path(suites_dir) if suites_dir else None)


def files_on_disk(state: TaskState, artifacts: Path) -> list[KnownFile]:
    """The files the tools can name: every source's (up to FILES_PER_ROOT each) and the
    workspace's that the log records. A file of the workspace the log does not know is what an
    interrupted attempt left: listing it would give a resumed plan another input than the first."""
    found: list[KnownFile] = []
    for name, path in sorted(state.sources.items()):
        walked = _walk(Path(path))[:FILES_PER_ROOT]
        found += [KnownFile(path=f"source:{name}/{rel}", size=size) for rel, size in walked]
    recorded = [(rel, size) for rel, size in _walk(artifacts) if rel in state.files]
    return found + [KnownFile(path=rel, size=size) for rel, size in recorded[:FILES_PER_ROOT]]


def _walk(root: Path) -> list[tuple[str, int]]:
    files: list[tuple[str, int]] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        for name in sorted(names):
            path = Path(folder) / name
            if not name.startswith(".") and path.is_file() and not path.is_symlink():
                files.append((path.relative_to(root).as_posix(), path.stat().st_size))
    return files
