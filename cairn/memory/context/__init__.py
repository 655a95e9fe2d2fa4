"""Context built from memory: what is relevant to an iteration, budgets and key decisions, promotion
levels and values, queries, and the `MemoryContextProvider` for any chat loop.
"""

from __future__ import annotations

from cairn.memory.context.extract import ChatMessage, Extractor, heuristic_facts
from cairn.memory.context.levels import apply_promotions
from cairn.memory.context.provider import (
    DAY,
    DEFAULT_CONTEXT_PROMPT,
    OVERFETCH,
    Context,
    MemoryContextProvider,
    new_messages,
)
from cairn.memory.context.reasoning import LineCounter, context_budget, key_decisions
from cairn.memory.context.relevant import SHARED, relevant_context, rules_block
from cairn.memory.context.values import TDLambda, ValueTable

__all__ = [
    "DAY",
    "DEFAULT_CONTEXT_PROMPT",
    "OVERFETCH",
    "SHARED",
    "ChatMessage",
    "Context",
    "Extractor",
    "LineCounter",
    "MemoryContextProvider",
    "TDLambda",
    "ValueTable",
    "apply_promotions",
    "context_budget",
    "heuristic_facts",
    "key_decisions",
    "new_messages",
    "relevant_context",
    "rules_block",
]
