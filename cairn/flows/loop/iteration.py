"""One BFS iteration, as a plain function: context, plan (the task's strategy chooses), execute,
compress, record, synthesize.

`run_iteration` is the algorithm and nothing else. How its calls run is the executor's business
(`cairn.flows.steps.executor`): the task's flow hands it one that makes each call a cached Prefect task
run (`cairn.flows.prefect.durable`), tests and benchmarks one that calls in process.

A batch's calls see the task as it was before the batch: its results are recorded, in call order,
only once every call of it has finished, so a `search_memory` beside a `find_lines` never finds
the other's result, whichever finished first.

Resume is part of the algorithm: finished calls are read back from `history.jsonl`, so an
iteration that runs again (a Prefect retry, `cairn resume`, Retry in the UI) continues from its
first unfinished call; a call whose tool finished but whose record was not written (its batch had
not finished) finds its result in Prefect's cache under its call key, and does not run again.

>>> summary = run_iteration(session, 1, "fast", False, InProcessExecutor(client))  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from cairn.core import (
    CallKey,
    IterationCompleted,
    IterationMode,
    IterationRecord,
    IterationStarted,
    PlannedCall,
    PlanRecorded,
    Progress,
    ToolCall,
)
from cairn.flows.loop.progress import record_coverage
from cairn.flows.loop.results import record_call
from cairn.flows.loop.uncertain import in_call_order, settle_calls
from cairn.flows.steps.compression import Recordable, compress_batch, compress_call
from cairn.flows.steps.executor import Executor, ToolResult
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.flows.strategies import Turn, strategy_of
from cairn.memory.context.relevant import rules_block
from cairn.tasks.messages.schemas import SynthesizeInput, SynthesizeOutput


class IterationSummary(BaseModel):
    iteration: int
    calls: int
    new_evidence: int
    progress: Progress
    synthesis: str


def run_iteration(
    session: Session, iteration: int, mode: IterationMode, recovery: bool, executor: Executor
) -> IterationSummary:
    """Run iteration `iteration` of the session's task (or finish it, if it was interrupted)."""
    if session.state.current != iteration:
        feedback = session.state.pending_feedback
        session.recorder.record(IterationStarted(iteration=iteration, mode=mode, feedback=feedback))
    evidence_before = sum(ev.iteration < iteration for ev in session.state.evidence)
    context = session.context()
    batch = plan(Turn(session, executor, iteration, context, recovery))
    finished = {call.index for call in session.state.pending_calls}
    runs = [
        (CallKey(task_id=session.task_id, iteration=iteration, index=n, kind="tool"), call)
        for n, call in enumerate(batch, start=1)
        if n not in finished
    ]
    runs, found = settle_calls(session, executor, runs)  # side effects: at most once across crashes
    results = in_call_order(found, executor.run_tools(runs, session.tool_context()))
    # The whole batch finishes before its first result is recorded (and indexed), then each is
    # recorded in call order: a call sees what was recorded before its batch, never a sibling's
    # result, however the executor scheduled them.
    for key, call, output, compression, cost in compress_results(session, executor, results):
        record_call(session, key, call, output, compression, cost)
    record_coverage(session, iteration, executor)  # how far it got; a coverage goal's ledger and report
    return synthesize(session, executor, iteration, mode, evidence_before)


def compress_results(session: Session, executor: Executor, results: Iterable[ToolResult]) -> list[Recordable]:
    """The batch's results, compressed in call order once every call has finished: with `each`,
    each as it arrives (later calls may still be running); with `batch`, all of them in one request."""
    if session.config.compress == "batch":
        return compress_batch(session, executor, list(results))
    return [
        (key, call, output, *compress_call(session, executor, key, call, output))
        for key, call, output in results
    ]


def plan(turn: Turn) -> list[PlannedCall]:
    """The calls this iteration runs, as the task's strategy chose them; recorded here, the one
    place a plan is (read back from the log when the iteration was interrupted)."""
    session = turn.session
    if session.state.plan:
        return session.state.plan
    chosen = strategy_of(session.state).next_calls(turn)
    session.recorder.record(
        PlanRecorded(
            iteration=turn.iteration,
            candidates=chosen.candidates,
            batch=chosen.batch,
            frontier=chosen.frontier,
            worked=chosen.worked,
            judged=chosen.judged,
        )
    )
    return chosen.batch


def synthesize(
    session: Session, executor: Executor, iteration: int, mode: IterationMode, evidence_before: int
) -> IterationSummary:
    """Ask how the iteration went, and record the iteration as complete."""
    state = session.state
    calls = state.pending_calls
    new_evidence = len(state.evidence) - evidence_before
    payload = SynthesizeInput(
        goal=state.goal,
        iteration=iteration,
        calls=[c.one_line() for c in calls],
        previous=[it.synthesis for it in state.iterations[-3:]],
        new_evidence=new_evidence,
        missing=state.verdict.missing if state.verdict else [],
        context=rules_block(state, session.deps.store),
        feedback=state.iteration_feedback,
    )
    # An action goal's plan, not its progress, says what comes next: nothing for a model to weigh.
    weighed = _modelled(calls) and state.strategy != "action"
    out = _ask_synthesis(session, executor, iteration, payload) if weighed else None
    acting = state.strategy == "action"  # a plan's call that ran is its progress, however it rated
    found = any(call.outcome == "success" and (acting or call.relevance != "low") for call in calls)
    progress: Progress = (
        out.progress_assessment if out else ("advancing" if new_evidence or found else "stuck")
    )
    synthesis = out.synthesis if out else _plain_synthesis(calls, new_evidence)
    if not new_evidence and not any(call.outcome == "success" for call in calls):
        progress = "stuck"  # nothing worked and nothing was found, whatever the model says
    record = IterationRecord(
        iteration=iteration,
        mode=mode,
        tool_calls=calls,
        synthesis=synthesis,
        progress_assessment=progress,
        user_feedback="\n".join(state.iteration_feedback),
    )
    session.recorder.record(IterationCompleted(record=record))
    return IterationSummary(
        iteration=iteration,
        calls=len(calls),
        new_evidence=new_evidence,
        progress=progress,
        synthesis=synthesis,
    )


def _modelled(calls: list[ToolCall]) -> bool:
    """Whether any call's output went through the model: else there is nothing new for a model
    to weigh (files read whole for the answer, files written, a test run) and the iteration is
    summed up without one."""
    return any(call.compression_cost.tokens or call.compression_cost.seconds for call in calls)


def _ask_synthesis(
    session: Session, executor: Executor, iteration: int, payload: SynthesizeInput
) -> SynthesizeOutput | None:
    key = CallKey(task_id=session.task_id, iteration=iteration, index=0, kind="synthesize")
    result = ask(session, executor, key, "synthesize", payload, f"synthesize-{iteration}")
    return result.output if result.ok and isinstance(result.output, SynthesizeOutput) else None


def _plain_synthesis(calls: list[ToolCall], new_evidence: int) -> str:
    done = "; ".join(call.one_line()[:160] for call in calls[:4]) or "no calls"
    return f"{done} ({len(calls)} calls, {new_evidence} new evidence)"
