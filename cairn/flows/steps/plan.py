"""The planner's step: ask the model's planner, screen what it proposes, ask once more if nothing
can run, then merge into the frontier and pop the beam. A strategy (`cairn.flows.strategies`)
decides when the planner is asked; the calls it decides on its own (the opening reads) are here too.

What the planner sees is built for models weaker than their authors: the completion requirements
of the task type and the real files (sources and workspace) from the very first plan; calls made
so far as JSON values with their outcomes; and, when every proposal was a repeat or could not
run, the reason for each, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cairn.core import CallKey, ModelJudgement, PlannedCall
from cairn.flows.steps import frontier
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.memory.index.sources import text_files
from cairn.memory.log.state import TaskState
from cairn.tasks.messages.schemas import Candidate, KnownFile, Plan, PlanInput
from cairn.tasks.opening import opening_calls
from cairn.tasks.task_grounding import lines_to_answer_from
from cairn.tasks.validation import requirements

FILES_PER_ROOT = 60  # files listed per source up front; `list_directory` shows the rest


@dataclass(frozen=True)
class NextCalls:
    """What one iteration runs, and what its plan records beside it: the new candidates, the
    batch popped from the frontier, what stays queued, the arithmetic worked out for an answer
    and a served model's yes/no on the values judged."""

    batch: list[PlannedCall]
    candidates: list[PlannedCall]
    frontier: list[PlannedCall]
    worked: list[str] = field(default_factory=list)
    judged: list[ModelJudgement] = field(default_factory=list)

    @classmethod
    def just(cls, calls: list[PlannedCall], frontier: list[PlannedCall]) -> NextCalls:
        """Calls the strategy decided on its own (reads, a write), the frontier left as it was."""
        return cls(batch=calls, candidates=calls, frontier=frontier)


def missing_checks(session: Session) -> list[str]:
    """The checks the task's verdict left unmet (before any verdict: every requirement's name)."""
    state = session.state
    wanted = requirements_for(state.task_type, session.config.validators_dir)
    return state.verdict.missing if state.verdict else [line.split(":")[0] for line in wanted]


def planner_calls(
    session: Session, executor: Executor, iteration: int, context: str, recovery: bool = False
) -> NextCalls:
    """The calls the model's planner proposes that can run, asked once more with the reason for
    each when none could (not when the call itself failed: asking again would fail again)."""
    state = session.state
    missing = missing_checks(session)
    payload = frontier.plan_input(
        state,
        session.toolset().specs(),
        context,
        missing,
        recovery=recovery,
        requirements=requirements_for(state.task_type, session.config.validators_dir),
        files=files_on_disk(state, session.artifacts),
        lines=lines_to_answer_from(state, session.reader),
    )
    proposed = _propose(session, executor, iteration, payload, 0)
    chosen = choose(session, proposed)
    if not chosen.batch and proposed is not None:  # every proposal a repeat or unusable: say why, once
        retry = payload.model_copy(update={"rejected": _why(payload, proposed, state)})
        again = _propose(session, executor, iteration, retry, 1) or []
        chosen = choose(session, [*proposed, *again])
    return chosen


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


def choose(session: Session, proposed: list[Candidate] | None) -> NextCalls:
    """Usable proposals merged into the frontier, and the beam popped from it."""
    state = session.state
    missing = missing_checks(session)
    specs = session.toolset().specs()
    usable = [c for c in proposed or [] if not frontier.screen([c], specs, state)]
    done = frontier.done_signatures(state)
    candidates = frontier.from_candidates(usable, missing, done)
    queued = frontier.merge_frontier(state.frontier, candidates, done, missing)
    _, beam = frontier.MODES[state.mode]
    width = min(beam, session.config.beam + (state.mode == "deep") * 2)
    batch, rest = frontier.pop_best(queued, width, done)
    return NextCalls(batch=batch, candidates=candidates, frontier=rest)


def _why(payload: PlanInput, proposed: list[Candidate], state: TaskState) -> list[str]:
    reasons = frontier.screen(proposed, payload.tools, state) or ["the reply proposed no call"]
    read = [f.path for f in payload.files if f.read]
    if read and not state.files:
        files = ", ".join(read[:6])
        reasons.append(f"you have read {files}: if your notes answer the goal, deliver it now with `answer`")
    return reasons


def opening(session: Session) -> list[PlannedCall]:
    """The first iteration's calls when the task has sources: read them whole, or search them."""
    state = session.state
    if state.calls or state.iterations or not state.sources:
        return []
    tools = session.toolset().names()
    calls = opening_calls(files_on_disk(state, session.artifacts), state.parts, session.words)
    return [call for call in calls if call.tool in tools]


def sources_read(session: Session) -> bool:
    """Every source file the task can name was read (true when it has none)."""
    state = session.state
    read = {path for call in state.calls if call.tool == "read_file" for path in call.paths}
    files = files_on_disk(state, session.artifacts)
    return all(f.path in read for f in files if f.path.startswith("source:"))


@lru_cache(maxsize=16)
def requirements_for(task_type: str, suites_dir: str | None) -> list[str]:
    return requirements(task_type, Path(suites_dir) if suites_dir else None)


def files_on_disk(state: TaskState, artifacts: Path) -> list[KnownFile]:
    """The files the tools can read: every source's (up to FILES_PER_ROOT each) and the
    workspace's that the log records. A file of the workspace the log does not know is what an
    interrupted attempt left: listing it would give a resumed plan another input than the first."""
    found: list[KnownFile] = []
    for name, path in sorted(state.sources.items()):
        walked = _walk(Path(path))[:FILES_PER_ROOT]
        found += [KnownFile(path=f"source:{name}/{rel}", size=size) for rel, size in walked]
    recorded = [(rel, size) for rel, size in _walk(artifacts) if rel in state.files]
    return found + [KnownFile(path=rel, size=size) for rel, size in recorded[:FILES_PER_ROOT]]


def _walk(root: Path) -> list[tuple[str, int]]:
    return [(rel, path.stat().st_size) for rel, path in text_files(root)]  # binary files are none to read
