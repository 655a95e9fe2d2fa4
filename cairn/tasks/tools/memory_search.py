"""`search_memory`: the agent's query into the memory index of its task (and shared learning)."""

from __future__ import annotations

from cairn.tasks.tools.base import ToolContext, ToolOutput, failure


def search_memory(ctx: ToolContext, query: str, k: int = 5) -> ToolOutput:
    if ctx.search is None:
        return failure("memory search is not available in this run", "error")
    if not query.strip():
        return failure("empty query")
    hits = ctx.search(query, max(1, min(int(k), 20)))
    if not hits:
        return ToolOutput(text=f"no memories match {query!r}")
    return ToolOutput(text="\n".join(hits), paths=[])
