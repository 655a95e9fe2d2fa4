"""Per-call compression (docs/design.md, "Reflection and context"): a tool's raw output becomes
`insights`, `learning`, `relevance` and `next_suggested_actions` in the same cycle.

Two modes (`RunConfig.compress`): `each` asks the model once per call; `batch` asks once for all
the calls of an iteration, and splits that call's cost evenly between them. Tools on the skip list
are compressed mechanically, with no model call. What the compressor sees of an output is
truncated and redacted (`compress_input`); the record of the call, with its raw output kept to
`RAW_CHARS`, is the loop's (`cairn.flows.loop.results`).

Everything here is pure: what a request holds (`compress_input`, `batch_input`) and what a reply
gives (`from_one`, `from_batch`, the mechanical fallback). The step that asks the model is the
iteration's (`cairn.flows.steps.compression`): it makes each request a recorded model call through
its executor, so the model is reached without this module calling back up into the loop.

>>> truncate("x" * 5000)[1]
True
>>> [c.tokens for c in split_cost(CallCost(prompt_tokens=10, completion_tokens=5), 3)]  # sums to 15
[6, 5, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Any

from cairn.core import CallCost, CallKey, Compression, IterationMode, PlannedCall
from cairn.memory.context.reasoning import LineCounter
from cairn.redact import redact
from cairn.tasks.messages.schemas import (
    CompressBatchInput,
    CompressBatchOutput,
    CompressInput,
    CompressOutput,
)
from cairn.tasks.model.capabilities import count_tokens
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools.base import ToolOutput

RAW_CHARS = 1000
MODEL_INPUT_CHARS = 6000  # what the compressor sees of a long output
BATCH_INPUT_CHARS = 3000  # per call in a batch: several outputs share one prompt

# A model's reply. Since 0.4 results are data (`cairn.flows.prefect.result_data`), not pickles; the
# `cairn.tasks.compress.LLMResult[Any]` that 0.1-0.3 pickled is read by `cairn._legacy`.
Reply = LLMResult[Any]
Compressed = tuple[Compression, CallCost]
Finished = tuple[CallKey, PlannedCall, ToolOutput]  # a tool call that ran: its key, the call, its output


def truncate(text: str, limit: int = RAW_CHARS) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n[... {len(text) - limit} more characters]", True


def compress_input(
    goal: str, planned: PlannedCall, output: ToolOutput, context: str = "", limit: int = MODEL_INPUT_CHARS
) -> CompressInput:
    """What the compressor sees: the output truncated and redacted (it may go to a remote model)."""
    text, _ = truncate(redact(output.text), limit)
    return CompressInput(
        goal=goal,
        tool=planned.tool,
        params=planned.params,
        outcome=output.outcome,
        output=text,
        context=context,
    )


def needs_model(tool: str, skip: Sequence[str], mode: IterationMode) -> bool:
    """Whether a call is worth a model call: not on the skip list, or the loop is in `deep` mode.

    >>> needs_model("list_directory", ("list_directory",), "fast"), needs_model("read_file", (), "fast")
    (False, True)
    """
    return tool not in skip or mode == "deep"


def mechanical(planned: PlannedCall, output: ToolOutput) -> Compression:
    """The compression of a call on the skip list: no model, just what happened."""
    lines = [ln for ln in output.text.splitlines() if ln.strip()]
    if output.outcome != "success":
        return Compression(
            insights=f"{planned.tool} failed: {output.error or output.text[:200]}", relevance="medium"
        )
    first = lines[0][:200] if lines else "no output"
    more = f" ({len(lines)} lines)" if len(lines) > 1 else ""
    return Compression(insights=f"{planned.tool}: {first}{more}", relevance="low")


def from_output(out: CompressOutput | None, fallback: Compression) -> Compression:
    if out is None:
        return fallback
    return Compression(
        insights=out.insights,
        learning=out.learning,
        relevance=out.relevance,
        next_suggested_actions=out.next_suggested_actions,
    )


def batch_input(goal: str, items: Sequence[Finished], context: str) -> CompressBatchInput:
    """One request for several results: each output shorter, the context once."""
    calls = [compress_input(goal, p, o, limit=BATCH_INPUT_CHARS) for _, p, o in items]
    return CompressBatchInput(goal=goal, calls=calls, context=context)


def from_one(finished: Finished, reply: Reply) -> Compressed:
    """One result's compression from its reply; a failed call falls back to the mechanical one."""
    _, planned, output = finished
    out = reply.output if reply.ok and isinstance(reply.output, CompressOutput) else None
    return from_output(out, mechanical(planned, output)), reply.cost


def from_batch(items: Sequence[Finished], reply: Reply) -> list[Compressed] | None:
    """Each result's compression from one batch reply, its cost split evenly between them; None
    when the batch failed or did not return exactly one result per call (ask for each then)."""
    out = reply.output if reply.ok and isinstance(reply.output, CompressBatchOutput) else None
    if out is None or len(out.results) != len(items):
        return None
    costs = split_cost(reply.cost, len(items))
    return [
        (from_output(res, mechanical(p, o)), cost)
        for (_, p, o), res, cost in zip(items, out.results, costs, strict=True)
    ]


def split_cost(cost: CallCost, n: int) -> list[CallCost]:
    """`cost` shared by `n` calls: token remainders go to the first ones, so the parts sum exactly."""
    if n <= 0:
        return []
    prompt, p_rest = divmod(cost.prompt_tokens, n)
    completion, c_rest = divmod(cost.completion_tokens, n)
    return [
        CallCost(
            prompt_tokens=prompt + (i < p_rest),
            completion_tokens=completion + (i < c_rest),
            usd=cost.usd / n,
            seconds=cost.seconds / n,
        )
        for i in range(n)
    ]


@lru_cache(maxsize=16)
def line_counter(model: str) -> LineCounter:
    """The process-wide cached token counter for `model` (litellm's tokenizer)."""
    return LineCounter(partial(count_tokens, model))
