"""The iteration's compression step: each tool result becomes insights, learning, relevance and next
actions, by a recorded model call where the result needs one.

Two modes (`RunConfig.compress`): `each` asks the model once per call as results arrive
(`compress_call`, which the loop calls for each result it receives); `batch`
asks once for all the calls of an iteration that need the model, splits that call's cost evenly
between them, and asks for each one by one when the batch reply fails or miscounts (the wasted
batch still counts). The step asks through `ask` (a recorded model call through the executor,
keyed after the tool calls it compresses, so a resumed run finds it in Prefect's cache); what a
request holds and what a reply gives are `cairn.tasks.compress`'s pure functions, so the model is
reached from here and nothing below calls back up.

>>> from cairn.core import PlannedCall
>>> from cairn.tasks.tools.base import ToolOutput
>>> key = CallKey(task_id="t", iteration=1, index=1, kind="tool")
>>> item = (key, PlannedCall(tool="read_file"), ToolOutput(text="x"))
>>> compress_items("goal", [item], "", lambda key, kind, payload, name: failed_reply(kind))[0][0].insights
'read_file: x'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cairn.core import CallCost, CallKey, Compression, PlannedCall
from cairn.flows.steps.executor import Executor, ToolResult
from cairn.flows.steps.model_calls import ask, log
from cairn.flows.steps.session import Session
from cairn.memory.context.relevant import rules_block
from cairn.tasks.compress import (
    Compressed,
    Finished,
    batch_input,
    compress_input,
    from_batch,
    from_one,
    mechanical,
    needs_model,
    split_cost,
)
from cairn.tasks.messages.schemas import CallKind, CompressBatchOutput, Schema
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.opening import extractive
from cairn.tasks.tools.base import ToolOutput

Ask = Callable[[CallKey, CallKind, Schema, str], LLMResult[Any]]  # one recorded model call
Recordable = tuple[CallKey, PlannedCall, ToolOutput, Compression, CallCost]  # a result, compressed


def compress_items(goal: str, items: Sequence[Finished], context: str, asking: Ask) -> list[Compressed]:
    """Several results: one batch request (more than one result), else or after a failed batch
    one request each; in order."""
    wasted = [CallCost() for _ in items]
    if len(items) > 1:
        first = items[0][0]
        # The batch's cache key names its calls: a resumed iteration batches only the unfinished
        # ones, and must not be handed the cached answer for a different set.
        kind = "compress_batch:" + ",".join(str(key.index) for key, _, _ in items)
        key = first.model_copy(update={"index": 0, "kind": kind})
        reply = asking(
            key, "compress_batch", batch_input(goal, items, context), f"compress-batch-{first.iteration}"
        )
        if (done := from_batch(items, reply)) is not None:
            return done
        if reply.ok:  # a failed call is said where it is recorded; a reply of the wrong count here
            given = len(reply.output.results) if isinstance(reply.output, CompressBatchOutput) else 0
            log.warning(
                "model reply unusable: compress_batch %s (%s) gave %d results for %d calls; "
                "asking for each (the batch cost %d tokens, %.1f s)",
                key,
                reply.model,
                given,
                len(items),
                reply.cost.prompt_tokens + reply.cost.completion_tokens,
                reply.cost.seconds,
            )
        wasted = split_cost(reply.cost, len(items))  # the failed batch still cost something
    each = [_one(goal, item, context, asking) for item in items]
    return [(compression, cost + extra) for (compression, cost), extra in zip(each, wasted, strict=True)]


def _one(goal: str, item: Finished, context: str, asking: Ask) -> Compressed:
    key, planned, output = item
    request = compress_input(goal, planned, output, context)
    reply = asking(
        key.model_copy(update={"kind": "compress"}),
        "compress",
        request,
        f"compress-{key.iteration}-{key.index}",
    )
    return from_one(item, reply)


def compress_call(
    session: Session, executor: Executor, key: CallKey, planned: PlannedCall, output: ToolOutput
) -> Compressed:
    """One call's compression, in the cycle that produced it (mechanical for the skip list, the
    lines holding the goal's words for a call whose words go to the answer whole)."""
    if planned.extractive:
        return extractive(session.state.goal, planned, output), CallCost()
    if not needs_model(planned.tool, session.config.skip_compress, session.state.mode):
        return mechanical(planned, output), CallCost()
    context = rules_block(session.state, session.deps.store)
    return compress_items(session.state.goal, [(key, planned, output)], context, _asking(session, executor))[
        0
    ]


def compress_batch(session: Session, executor: Executor, finished: Sequence[ToolResult]) -> list[Recordable]:
    """The `batch` compression step: the results of an iteration's calls, all finished (the loop
    gathers them: this step never pulls a result through the loop), in one model call."""
    state = session.state
    skip = session.config.skip_compress
    modelled = [i for i in finished if not i[1].extractive and needs_model(i[1].tool, skip, state.mode)]
    done: dict[int, Compressed] = {}
    if modelled:
        context = rules_block(state, session.deps.store)
        many = compress_items(state.goal, modelled, context, _asking(session, executor))
        done = {key.index: result for (key, _, _), result in zip(modelled, many, strict=True)}
    compressed = []
    for key, planned, output in finished:
        unmodelled = (
            extractive(state.goal, planned, output) if planned.extractive else mechanical(planned, output)
        )
        compression, cost = done.get(key.index) or (unmodelled, CallCost())
        compressed.append((key, planned, output, compression, cost))
    return compressed


def _asking(session: Session, executor: Executor) -> Ask:
    def asking(key: CallKey, kind: CallKind, payload: Schema, name: str) -> LLMResult[Any]:
        return ask(session, executor, key, kind, payload, name)

    return asking


def failed_reply(kind: CallKind) -> LLMResult[Any]:
    """A model call that failed (what a test's `ask` answers when no model is there)."""
    return LLMResult[Any](kind=kind, model="none", ok=False, error="no model")


__all__ = ["Ask", "Recordable", "compress_batch", "compress_call", "compress_items", "failed_reply"]
