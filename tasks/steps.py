"""Cairn's Prefect tasks: three-line shells over plain functions.

Each takes a `CallKey` first (see `tasks._prefect`); live services are looked up per process from
the run's `RunConfig`, so they never enter a cache key or a persisted parameter.
"""

from __future__ import annotations

from functools import lru_cache

from memory.models import PlannedCall
from tasks._prefect import CallKey, cairn_task
from tasks.deps import RunConfig
from tasks.llm import LLMResult, ModelClient
from tasks.schemas import CallKind, Schema
from tasks.tools.base import ToolContext, ToolOutput
from tasks.tools.registry import execute


@lru_cache(maxsize=8)
def model_client(model: str, record: str | None) -> ModelClient:
    return ModelClient(model, record=record)


@cairn_task(name="tool", retries=1)
def run_tool(key: CallKey, call: PlannedCall, ctx: ToolContext) -> ToolOutput:
    return execute(ctx, call)


@cairn_task(name="model")
def call_model(key: CallKey, kind: CallKind, payload: Schema, config: RunConfig) -> LLMResult:
    return model_client(config.model, config.record).call(kind, payload)
