"""Prefect as the executor: each iteration a subflow run, each call a cached, named task run.

`bfs_iteration` is the iteration's Prefect shell (retries, a persisted result, the run name
`iteration-{n}`); it hands `run_iteration` a `PrefectExecutor`, whose tool calls are submitted at
once as task runs named `{tool}-{argument}` (`mcp:{server}.{tool}-{argument}` for an MCP server's
tool) and whose model calls are task runs named for what they do (`plan-2`, `compress-2-1`). Every
call is cached under its `CallKey`, so a retried or resumed iteration reuses what finished. A call
with side effects is not retried by Prefect: it runs at most once (`cairn.flows.loop.uncertain`).
"""

# No `from __future__ import annotations`: Prefect validates flow parameters from the annotations.
from collections.abc import Iterator, Sequence
from typing import Any

from prefect import flow
from prefect.futures import PrefectFuture
from prefect.utilities.annotations import quote

from cairn.core import CallKey, IterationMode, PlannedCall, RunConfig
from cairn.flows.console import printable
from cairn.flows.loop.iteration import IterationSummary, run_iteration
from cairn.flows.prefect.internals import has_cached_result
from cairn.flows.prefect.result_data import SERIALIZER
from cairn.flows.prefect.story import NarratingRecorder, story_logger
from cairn.flows.prefect.tasks import ModelCallFailed, call_model, run_tool
from cairn.flows.steps.executor import ToolResult, ToolRun
from cairn.flows.steps.session import open_session
from cairn.tasks.messages.schemas import CallKind, Schema
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools.base import ToolContext, ToolOutput
from cairn.tasks.tools.definition import Tool
from cairn.tasks.toolset import Toolset, toolset_for


class PrefectExecutor:
    """Calls as Prefect task runs of the current flow run (see the module docstring)."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config

    def ask(self, key: CallKey, kind: CallKind, payload: Schema, name: str) -> LLMResult[Any]:
        if kind in SLOW_STEPS:
            story_logger().info("%s (%s)", SLOW_STEPS[kind], name)
        try:
            return call_model.with_options(task_run_name=name)(*_untracked(key, kind, payload, self.config))
        except ModelCallFailed as failed:  # a Failed task run in the UI; a failed result here
            return failed.result

    def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
        futures = self.submit(runs, ctx)
        for (key, call), future in zip(runs, futures, strict=True):
            yield key, call, future.result()

    def submit(self, runs: Sequence[ToolRun], ctx: ToolContext) -> list[PrefectFuture[ToolOutput]]:
        """Start every call at once, each a task run named for the tool and its main argument."""
        tools = toolset_for(ctx.tools)
        return [
            run_tool.with_options(
                task_run_name=run_name(tools, call),
                tags=tool_tags(tools.get(call.tool), call.tool),
                retries=1 if tools.read_only(call.tool) else 0,
            ).submit(*_untracked(key, call, ctx))
            for key, call in runs
        ]

    def cached(self, key: CallKey) -> bool:
        return has_cached_result(self.config.workspace, key)


# The steps a person waits for: a line before each, so the log has no silent gap.
SLOW_STEPS = {
    "detect_task_type": "Asking the model for the task type",
    "plan": "Asking the model for a plan",
    "compress_batch": "Asking the model to compress the iteration's results",
    "synthesize": "Asking the model how the iteration went",
    "deliver": "Asking the model for the answer, from the files' own words",
    "calculate": "Asking the model for the calculation the goal's number needs",
    "write": "Asking the model to write the files",
    "docstring": "Asking the model for a function's docstring",
    "ledger": "Asking the model for one ledger row's values, from the item's lines",
    "act": "Asking the model for the calls the goal needs, from the goal and the tools alone",
    "replan": "Asking the model for the calls the goal still needs, from what became of its plan",
}


@flow(
    name="bfs-iteration",
    flow_run_name="iteration-{iteration}",
    retries=2,
    retry_delay_seconds=1,
    persist_result=True,
    result_serializer=SERIALIZER,
    log_prints=False,
)
def bfs_iteration(
    config: RunConfig, task_id: str, iteration: int, mode: IterationMode = "fast", recovery: bool = False
) -> IterationSummary:
    session = open_session(config, task_id)
    session.recorder = NarratingRecorder(session.recorder, story_logger().info)
    return run_iteration(session, iteration, mode, recovery, PrefectExecutor(config))


def run_name(tools: Toolset, call: PlannedCall) -> str:
    """`read_file-source:corpus/reservoir.md`: the tool and its main argument. A run name goes to
    Prefect's API and its terminal log: control characters and the bytes of a name that is not
    UTF-8 are written as escapes."""
    return printable(tools.run_name(call))


def _untracked(*args: Any) -> list[Any]:
    """Arguments Prefect must not trace. It draws a graph edge from any argument that is, or holds,
    an object another task run returned, by identity: an interned string such as the kind
    "compress" in one call's result made every later compression "depend" on it. The Prefect tasks get
    the values unwrapped (the cache key too: Prefect resolves parameters before computing it)."""
    return [quote(arg) for arg in args]


def tool_tags(tool: Tool | None, name: str) -> list[str]:
    """`tool:{name}`, and `mcp:{server}` for an MCP server's tool."""
    server = [f"mcp:{tool.server}"] if tool is not None and tool.server else []
    return [f"tool:{name}", *server]
