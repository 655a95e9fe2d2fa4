"""What becomes of a tool call's result: compressed by the model (one by one or in a batch), then
recorded with the file it wrote (committed) and the evidence it yields.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cairn.flows.steps.executor import Executor, ToolResult
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.memory.context.relevant import rules_block
from cairn.memory.log.events import EvidenceRecorded, FileRecorded, ToolCallRecorded
from cairn.memory.models import CallCost, Compression, PlannedCall, ToolCall
from cairn.redact import redact
from cairn.tasks import compress as comp
from cairn.tasks.call_key import CallKey
from cairn.tasks.evidence import evidence_for, register_file
from cairn.tasks.messages.schemas import CompressBatchInput, CompressInput
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.opening import extractive
from cairn.tasks.tools.base import ToolOutput


def compress_call(
    session: Session, executor: Executor, key: CallKey, planned: PlannedCall, output: ToolOutput
) -> tuple[Compression, CallCost]:
    """One call's compression, in the cycle that produced it (mechanical for the skip list, the
    lines holding the goal's words for a call whose words go to the answer whole)."""
    if planned.extractive:
        return extractive(session.state.goal, planned, output), CallCost()
    if not comp.needs_model(planned.tool, session.config.skip_compress, session.state.mode):
        return comp.mechanical(planned, output), CallCost()
    context = rules_block(session.state, session.deps.store)
    return comp.compress_one(session.state.goal, planned, output, context, _ask_one(session, executor, key))


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
        if not i[1].extractive and comp.needs_model(i[1].tool, session.config.skip_compress, state.mode)
    ]
    done: dict[int, tuple[Compression, CallCost]] = {}
    if modelled:
        context = rules_block(state, session.deps.store)
        pairs = [(planned, output) for _, planned, output in modelled]
        first = modelled[0][0]
        ask_batch = _ask_batch(session, executor, first, [key.index for key, _, _ in modelled])
        many = comp.compress_many(
            state.goal,
            pairs,
            context,
            ask_batch,
            lambda n, payload: _ask_one(session, executor, modelled[n][0])(payload),
        )
        done = {key.index: result for (key, _, _), result in zip(modelled, many, strict=True)}
    for key, planned, output in items:
        unmodelled = (
            extractive(state.goal, planned, output)
            if planned.extractive
            else comp.mechanical(planned, output)
        )
        compression, cost = done.get(key.index) or (unmodelled, CallCost())
        yield key, planned, output, compression, cost


def _ask_one(session: Session, executor: Executor, key: CallKey) -> Callable[[CompressInput], LLMResult[Any]]:
    def ask_one(payload: CompressInput) -> LLMResult[Any]:
        ckey = key.model_copy(update={"kind": "compress"})
        return ask(session, executor, ckey, "compress", payload, f"compress-{key.iteration}-{key.index}")

    return ask_one


def _ask_batch(
    session: Session, executor: Executor, key: CallKey, indices: list[int]
) -> Callable[[CompressBatchInput], LLMResult[Any]]:
    # The batch's cache key names its calls: a resumed iteration batches only the unfinished ones,
    # and must not be handed the cached answer for a different set.
    kind = "compress_batch:" + ",".join(str(i) for i in indices)
    bkey = key.model_copy(update={"index": 0, "kind": kind})

    def ask_batch(payload: CompressBatchInput) -> LLMResult[Any]:
        return ask(session, executor, bkey, "compress_batch", payload, f"compress-batch-{key.iteration}")

    return ask_batch


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
    call = comp.tool_call(
        call_id,
        key.iteration,
        key.index,
        planned,
        output,
        compression,
        seconds=output.seconds,
        compression_cost=cost,
        output_path=output_path,
    )
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


def _keep_full_output(outputs: Path, call_id: str, text: str, secrets: tuple[str, ...] = ()) -> str | None:
    if len(text) <= comp.RAW_CHARS:
        return None
    outputs.mkdir(parents=True, exist_ok=True)
    path = outputs / f"{call_id}.txt"
    path.write_text(redact(text, secrets), encoding="utf-8", errors="replace")  # never keep a secret on disk
    return f"outputs/{call_id}.txt"
