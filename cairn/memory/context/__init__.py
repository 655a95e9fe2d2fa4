"""Context built from memory: what is relevant to an iteration, budgets and key decisions, promotion
levels and values, queries, and the `MemoryContextProvider` for any chat loop.
"""

from __future__ import annotations

from cairn.memory.context.extract import ChatMessage
from cairn.memory.context.provider import Context, MemoryContextProvider

__all__ = ["ChatMessage", "Context", "MemoryContextProvider"]
