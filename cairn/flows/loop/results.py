"""What becomes of a tool call's result: compressed by the model (one by one or in a batch), then
recorded as a `ToolCall` with the file it wrote (committed) and the evidence it yields. The record
keeps the raw output truncated to `RAW_CHARS` beside the compression; the full text goes to a
workspace file when it is longer.

Compression (`cairn.tasks.compress`) asks its model through a `CompressModel`; the loop's is
`ExecutorCompressModel`, whose every request is a model call through the executor, recorded.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.flows.steps.executor import Executor, ToolResult
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.memory.context.relevant import rules_block
from cairn.memory.log.events import EvidenceRecorded, FileRecorded, ToolCallRecorded
from cairn.memory.models import CallCost, Compression, PlannedCall, ToolCall
from cairn.redact import redact
from cairn.tasks.call_key import CallKey
from cairn.tasks.compress import RAW_CHARS, compress_many, compress_one, mechanical, needs_model, truncate
from cairn.tasks.evidence import evidence_for, register_file
from cairn.tasks.messages.schemas import CompressBatchInput, CompressInput
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.opening import extractive
from cairn.tasks.tools.base import ToolOutput


@dataclass
class ExecutorCompressModel:
    """Compression's model in a task's loop: each request is one model call through the executor
    (a cached task run, keyed after the tool calls it compresses), recorded in the task's history."""

    session: Session
    executor: Executor

    def compress(self, call: CallKey, payload: CompressInput) -> LLMResult[Any]:
        key = call.model_copy(update={"kind": "compress"})
        name = f"compress-{call.iteration}-{call.index}"
        return ask(self.session, self.executor, key, "compress", payload, name)

    def compress_batch(self, calls: Sequence[CallKey], payload: CompressBatchInput) -> LLMResult[Any]:
        # The batch's cache key names its calls: a resumed iteration batches only the unfinished ones,
        # and must not be handed the cached answer for a different set.
        first = calls[0]
        kind = "compress_batch:" + ",".join(str(call.index) for call in calls)
        key = first.model_copy(update={"index": 0, "kind": kind})
        name = f"compress-batch-{first.iteration}"
        return ask(self.session, self.executor, key, "compress_batch", payload, name)


def compress_call(
    session: Session, executor: Executor, key: CallKey, planned: PlannedCall, output: ToolOutput
) -> tuple[Compression, CallCost]:
    """One call's compression, in the cycle that produced it (mechanical for the skip list, the
    lines holding the goal's words for a call whose words go to the answer whole)."""
    if planned.extractive:
        return extractive(session.state.goal, planned, output), CallCost()
    if not needs_model(planned.tool, session.config.skip_compress, session.state.mode):
        return mechanical(planned, output), CallCost()
    context = rules_block(session.state, session.deps.store)
    model = ExecutorCompressModel(session, executor)
    return compress_one(session.state.goal, (key, planned, output), context, model)


def compress_results(
    session: Session, executor: Executor, finished: Iterable[ToolResult]
) -> Iterator[tuple[CallKey, PlannedCall, ToolOutput, Compression, CallCost]]:
    """Compress results as the iteration's compression step: `each` one by one as they arrive,
    `batch` all of them in one model call once the last tool has finished."""
    if session.config.compress == "each":
        for key, planned, output in finished:
            yield key, planned, output, *compress_call(session, executor, key, planned, output)
        return
    items = list(finished)
    state = session.state
    modelled = [
        i
        for i in items
        if not i[1].extractive and needs_model(i[1].tool, session.config.skip_compress, state.mode)
    ]
    done: dict[int, tuple[Compression, CallCost]] = {}
    if modelled:
        context = rules_block(state, session.deps.store)
        many = compress_many(state.goal, modelled, context, ExecutorCompressModel(session, executor))
        done = {key.index: result for (key, _, _), result in zip(modelled, many, strict=True)}
    for key, planned, output in items:
        unmodelled = (
            extractive(state.goal, planned, output) if planned.extractive else mechanical(planned, output)
        )
        compression, cost = done.get(key.index) or (unmodelled, CallCost())
        yield key, planned, output, compression, cost


def record_call(
    session: Session,
    key: CallKey,
    planned: PlannedCall,
    output: ToolOutput,
    compression: Compression,
    cost: CallCost,
) -> ToolCall:
    """Record a finished call, the file it wrote (committed), and the evidence it yields."""
    repo = session.recorder.repo
    call_id = f"call-{key.iteration}-{key.index}"
    secrets = session.recorder.secrets
    output_path = _keep_full_output(repo.outputs, call_id, output.text, secrets)
    call = tool_call(call_id, key, planned, output, compression, cost, output_path)
    file = code = None
    if output.written is not None:
        repo.commit(
            [repo.artifacts / output.written.path], f"{planned.tool} {output.written.path} ({call_id})"
        )
        previous = session.state.files.get(output.written.path)
        file, code = register_file(call_id, output.written, previous, time.time())
    evidence = evidence_for(call, file, code, output.written.content if output.written else "")
    # One write: a kill between the call and its file would leave a finished call (a resume skips
    # it) whose file the task never learns of.
    session.recorder.record(
        ToolCallRecorded(call=call),
        *([FileRecorded(file=file, code=code)] if file is not None else []),
        *([EvidenceRecorded(evidence=evidence)] if evidence else []),
    )
    return call


def tool_call(
    call_id: str,
    key: CallKey,
    planned: PlannedCall,
    output: ToolOutput,
    compression: Compression,
    compression_cost: CallCost,
    output_path: str | None,
) -> ToolCall:
    """The record of a finished call: what was asked, what came back (the raw output truncated), its
    compression, and what the call and its compression cost."""
    raw, _ = truncate(output.text)
    return ToolCall(
        call_id=call_id,
        iteration=key.iteration,
        index=key.index,
        tool=planned.tool,
        params=planned.params,
        raw_output=raw,
        output_path=output_path,
        outcome=output.outcome,
        execution_time=output.seconds,
        cost=CallCost(seconds=output.seconds),
        compression_cost=compression_cost,
        tool_selection_rationale=planned.rationale,
        insights=compression.insights,
        learning=compression.learning,
        relevance=compression.relevance,
        next_suggested_actions=compression.next_suggested_actions,
        error=output.error,
        checks=output.checks,
        paths=output.paths,
        exercised=output.exercised,
    )


def _keep_full_output(outputs: Path, call_id: str, text: str, secrets: tuple[str, ...] = ()) -> str | None:
    if len(text) <= RAW_CHARS:
        return None
    outputs.mkdir(parents=True, exist_ok=True)
    path = outputs / f"{call_id}.txt"
    path.write_text(redact(text, secrets), encoding="utf-8", errors="replace")  # never keep a secret on disk
    return f"outputs/{call_id}.txt"
