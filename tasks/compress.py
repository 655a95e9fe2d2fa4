"""Per-call compression (seed: context-management-reflection): a tool's raw output becomes
`insights`, `learning`, `relevance` and `next_suggested_actions` in the same cycle.

The raw output is kept truncated to ~1,000 characters beside the compression; the full text goes
to a workspace file when it is longer.

>>> truncate("x" * 5000)[1]
True
"""

from __future__ import annotations

from memory.models import CallCost, Compression, PlannedCall, ToolCall
from tasks.schemas import CompressInput, CompressOutput
from tasks.tools.base import ToolOutput

RAW_CHARS = 1000
MODEL_INPUT_CHARS = 6000  # what the compressor sees of a long output


def truncate(text: str, limit: int = RAW_CHARS) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return text[:limit] + f"\n[... {len(text) - limit} more characters]", True


def compress_input(goal: str, planned: PlannedCall, output: ToolOutput) -> CompressInput:
    text, _ = truncate(output.text, MODEL_INPUT_CHARS)
    return CompressInput(goal=goal, tool=planned.tool, params=planned.params, outcome=output.outcome, output=text)


def mechanical(planned: PlannedCall, output: ToolOutput) -> Compression:
    """The compression of a call on the skip list: no model, just what happened."""
    lines = [ln for ln in output.text.splitlines() if ln.strip()]
    if output.outcome != "success":
        return Compression(insights=f"{planned.tool} failed: {output.error or output.text[:200]}", relevance="medium")
    return Compression(insights=f"{planned.tool}: {len(lines)} lines of output", relevance="low")


def from_output(out: CompressOutput | None, fallback: Compression) -> Compression:
    if out is None:
        return fallback
    return Compression(
        insights=out.insights,
        learning=out.learning,
        relevance=out.relevance,
        next_suggested_actions=out.next_suggested_actions,
    )


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
    )
