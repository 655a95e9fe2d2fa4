"""Per-call compression (seed: context-management-reflection): a tool's raw output becomes
`insights`, `learning`, `relevance` and `next_suggested_actions` in the same cycle.

The raw output is kept truncated to ~1,000 characters beside the compression; the full text goes
to a workspace file when it is longer. Two modes (`RunConfig.compress`): `each` asks the model once
per call; `batch` asks once for all the calls of an iteration, and splits that call's cost evenly
between them. Tools on the skip list are compressed mechanically, with no model call.

The model is reached through an `ask` function (payload -> `LLMResult`), so the flow can route it
through a cached Prefect task and tests through a scripted model.

>>> truncate("x" * 5000)[1]
True
>>> [c.tokens for c in split_cost(CallCost(prompt_tokens=10, completion_tokens=5), 3)]  # sums to 15
[6, 5, 4]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Any

from cairn.memory.context.reasoning import LineCounter
from cairn.memory.models import CallCost, Compression, IterationMode, PlannedCall, ToolCall
from cairn.redact import redact
from cairn.tasks.messages.schemas import (
    CompressBatchInput,
    CompressBatchOutput,
    CompressInput,
    CompressOutput,
)
from cairn.tasks.model.llm import LLMResult, count_tokens
from cairn.tasks.tools.base import ToolOutput

RAW_CHARS = 1000
MODEL_INPUT_CHARS = 6000  # what the compressor sees of a long output
BATCH_INPUT_CHARS = 3000  # per call in a batch: several outputs share one prompt

AskOne = Callable[[CompressInput], LLMResult[Any]]
AskNth = Callable[[int, CompressInput], LLMResult[Any]]  # (position in the batch, payload)
AskBatch = Callable[[CompressBatchInput], LLMResult[Any]]
Compressed = tuple[Compression, CallCost]


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


def compress_one(
    goal: str, planned: PlannedCall, output: ToolOutput, context: str, ask: AskOne
) -> Compressed:
    """One model call for one result; a failed call falls back to the mechanical compression."""
    result = ask(compress_input(goal, planned, output, context))
    out = result.output if result.ok and isinstance(result.output, CompressOutput) else None
    return from_output(out, mechanical(planned, output)), result.cost


def compress_many(
    goal: str, items: Sequence[tuple[PlannedCall, ToolOutput]], context: str, ask: AskBatch, ask_one: AskNth
) -> list[Compressed]:
    """One model call for several results, in order; its cost is split evenly between them.

    A single item is compressed on its own (a batch prompt would only cost more). A failed batch, or
    one that does not return exactly one result per call, falls back to one call each.
    """
    if len(items) <= 1:
        return _each(goal, items, context, ask_one)
    calls = [compress_input(goal, p, o, limit=BATCH_INPUT_CHARS) for p, o in items]
    result = ask(CompressBatchInput(goal=goal, calls=calls, context=context))
    out = result.output if result.ok and isinstance(result.output, CompressBatchOutput) else None
    if out is None or len(out.results) != len(items):
        retried = _each(goal, items, context, ask_one)
        wasted = split_cost(result.cost, len(items))  # the failed batch still cost something
        return [(comp, cost + extra) for (comp, cost), extra in zip(retried, wasted, strict=True)]
    costs = split_cost(result.cost, len(items))
    return [
        (from_output(res, mechanical(p, o)), cost)
        for (p, o), res, cost in zip(items, out.results, costs, strict=True)
    ]


def _each(
    goal: str, items: Sequence[tuple[PlannedCall, ToolOutput]], context: str, ask: AskNth
) -> list[Compressed]:
    return [compress_one(goal, p, o, context, partial(ask, i)) for i, (p, o) in enumerate(items)]


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


def tool_call(
    call_id: str,
    iteration: int,
    index: int,
    planned: PlannedCall,
    output: ToolOutput,
    compression: Compression,
    *,
    seconds: float,
    compression_cost: CallCost,
    output_path: str | None,
) -> ToolCall:
    raw, _ = truncate(output.text)
    return ToolCall(
        call_id=call_id,
        iteration=iteration,
        index=index,
        tool=planned.tool,
        params=planned.params,
        raw_output=raw,
        output_path=output_path,
        outcome=output.outcome,
        execution_time=seconds,
        cost=CallCost(seconds=seconds),
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
