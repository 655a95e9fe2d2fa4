"""One BFS iteration as a Prefect subflow run: context, plan, execute, compress, record, synthesize.

Finished calls are read back from `history.jsonl`, so a retried or resumed iteration continues
from the first unfinished call; a call that finished its tool but not its recording finds its
result in Prefect's cache under its call key.
"""

# No `from __future__ import annotations`: Prefect validates flow parameters from the annotations.
import time

from prefect import flow
from pydantic import BaseModel

from flows.session import compress_results, open_session, plan_batch, record_call
from memory.events import IterationCompleted, IterationStarted
from memory.models import IterationMode, IterationRecord, Progress
from memory.relevant import rules_block
from tasks._prefect import CallKey
from tasks.deps import RunConfig
from tasks.schemas import SynthesizeInput, SynthesizeOutput
from tasks.steps import kill_point_for_tests, run_tool


class IterationSummary(BaseModel):
    iteration: int
    calls: int
    new_evidence: int
    progress: Progress
    synthesis: str


@flow(
    name="bfs-iteration",
    flow_run_name="iteration-{iteration}",
    retries=2,
    retry_delay_seconds=1,
    persist_result=True,
    log_prints=False,
)
def bfs_iteration(
    config: RunConfig, task_id: str, iteration: int, mode: IterationMode = "fast", recovery: bool = False
) -> IterationSummary:
    session = open_session(config, task_id)
    if session.state.current != iteration:
        feedback = session.state.pending_feedback
        session.recorder.record(IterationStarted(iteration=iteration, mode=mode, feedback=feedback))
    evidence_before = sum(ev.iteration < iteration for ev in session.state.evidence)  # resumed: same count
    context = session.context()
    batch = plan_batch(session, iteration, context, recovery)
    finished = {c.index for c in session.state.pending_calls}
    ctx = session.tool_context()
    keys = [
        CallKey(task_id=task_id, iteration=iteration, index=n, kind="tool") for n in range(1, len(batch) + 1)
    ]
    started = time.monotonic()
    futures = {
        key.index: run_tool.with_options(
            task_run_name=_name(call.tool, call.params), tags=_tags(call.tool)
        ).submit(key, call, ctx)
        for key, call in zip(keys, batch, strict=True)
        if key.index not in finished
    }
    results = (
        (key, call, kill_point_for_tests(futures[key.index].result(), futures.values()))
        for key, call in zip(keys, batch, strict=True)
        if key.index not in finished
    )
    for key, call, output, compression, cost in compress_results(session, results):
        record_call(session, key, call, output, compression, cost, time.monotonic() - started)
    return _synthesize(session, config, task_id, iteration, mode, evidence_before)


def _synthesize(
    session,
    config: RunConfig,
    task_id: str,
    iteration: int,
    mode: IterationMode,  # type: ignore[no-untyped-def]
    evidence_before: int,
) -> IterationSummary:
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
    key = CallKey(task_id=task_id, iteration=iteration, index=0, kind="synthesize")
    result = session.ask(key, "synthesize", payload, f"synthesize-{iteration}")
    out = result.output if result.ok and isinstance(result.output, SynthesizeOutput) else None
    progress: Progress = out.progress_assessment if out else ("advancing" if new_evidence else "stuck")
    synthesis = out.synthesis if out else f"{len(calls)} calls, {new_evidence} new evidence"
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


def _tags(tool: str) -> list[str]:
    return [f"tool:{tool}"]


def _name(tool: str, params: dict[str, object]) -> str:
    from memory.models import main_argument

    arg = main_argument(params)  # type: ignore[arg-type]
    return f"{tool}-{arg}" if arg else tool
