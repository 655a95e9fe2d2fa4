"""Cairn's Prefect tasks: shells over the plain functions of `cairn.tasks.calls`.

Each takes a `CallKey` first (see `cairn.flows.prefect.task_defaults`); live services are looked up
per process
from the run's `RunConfig`, so they never enter a cache key or a persisted parameter.
"""

from __future__ import annotations

import json
from typing import Any

from prefect import get_run_logger

from cairn.core import CallKey, PlannedCall, RunConfig
from cairn.flows.prefect.task_defaults import prefect_task
from cairn.tasks.calls import ask_model, model_client, run_tool_call
from cairn.tasks.messages.schemas import CallKind, Schema
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools.base import ToolContext, ToolOutput


@prefect_task(name="tool", retries=1)
def run_tool(key: CallKey, call: PlannedCall, ctx: ToolContext) -> ToolOutput:
    # The call, readable on the task run's page (its "inputs" there are only upstream runs).
    get_run_logger().info("%s %s", call.tool, json.dumps(call.params, ensure_ascii=False)[:400])
    return run_tool_call(ctx, call)


class ModelCallFailed(RuntimeError):
    """A model call that did not work, raised so that Prefect marks its task run Failed and never
    caches it under the call's key: a resume asks the model again."""

    def __init__(self, result: LLMResult[Any]) -> None:
        super().__init__(result)
        self.result = result

    def __str__(self) -> str:
        return f"{self.result.kind} call failed after {self.result.attempts} attempts: {self.result.error}"


@prefect_task(name="model")
def call_model(key: CallKey, kind: CallKind, payload: Schema, config: RunConfig) -> LLMResult[Any]:
    result = ask_model(model_client(config), kind, payload)
    if not result.ok:
        raise ModelCallFailed(result)
    return result
