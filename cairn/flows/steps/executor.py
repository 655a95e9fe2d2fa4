"""How an iteration's calls are executed: the algorithm asks, an executor runs.

`run_iteration` (`cairn.flows.loop.iteration`) knows nothing of Prefect. It hands its tool calls and
model calls to an `Executor`: the task's flow passes `PrefectExecutor` (`cairn.flows.prefect.durable`),
whose calls are cached, named Prefect task runs; tests, benchmarks and in-process runs pass
`InProcessExecutor`, which calls the same plain functions directly. A test that needs a fault
(a tool that raises, a process that dies between a result and its record) wraps an executor.

>>> from cairn.tasks.model.llm import ModelClient
>>> executor = InProcessExecutor(ModelClient("cairn/offline"))
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from cairn.core import CallKey, PlannedCall
from cairn.tasks.calls import ask_model, run_tool_call
from cairn.tasks.messages.schemas import CallKind, Schema
from cairn.tasks.model.llm import LLMResult, ModelClient
from cairn.tasks.tools.base import ToolContext, ToolOutput

ToolRun = tuple[CallKey, PlannedCall]
ToolResult = tuple[CallKey, PlannedCall, ToolOutput]


class Executor(Protocol):
    def ask(self, key: CallKey, kind: CallKind, payload: Schema, name: str) -> LLMResult[Any]:
        """One model call; `name` is how it is shown (a task run's name)."""
        ...

    def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
        """Run the calls (possibly at once) and yield each result, in the order given."""
        ...

    def cached(self, key: CallKey) -> bool:
        """Whether a call's result is kept from an earlier run (so running it again reads it back)."""
        ...


class InProcessExecutor:
    """Every call in this process, one after another, through the same plain functions."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client

    def ask(self, key: CallKey, kind: CallKind, payload: Schema, name: str) -> LLMResult[Any]:
        return ask_model(self.client, kind, payload)

    def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
        for key, call in runs:
            yield key, call, run_tool_call(ctx, call)

    def cached(self, key: CallKey) -> bool:
        return False  # nothing outlives the process
