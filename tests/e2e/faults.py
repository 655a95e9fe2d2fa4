"""`cairn` with faults injected, for the durability tests (test code; production has no hooks).

    python -m tests.e2e.faults [--fail-call ITER/INDEX] [--kill-after-results N] [--count FILE] -- ARGS

Runs the CLI in this process after wrapping what the task's flow executes:

- `--fail-call 1/2`: that tool call raises while its iteration runs for the first time (so the
  iteration's Prefect retry must run it again without re-running the calls that finished);
- `--kill-after-results N`: SIGKILL this process when the N-th tool result reaches the iteration,
  before it is recorded (the calls submitted with it are waited for first: none is half-run);
- `--count FILE`: every tool or model call that really executed (not cached) appends its key;
- `--kill-in-tool NAME`: SIGKILL this process inside the first call of tool NAME, once the tool
  has run (its effect happened) and before its result is returned, persisted or recorded.
"""

from __future__ import annotations

import argparse
import itertools
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.flows import runtime
from cairn.flows.steps.executor import ToolResult, ToolRun
from cairn.tasks.tools.base import ToolContext, ToolOutput

if TYPE_CHECKING:
    from cairn.flows.prefect.durable import PrefectExecutor


def run_with_faults(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail-call")
    parser.add_argument("--kill-after-results", type=int)
    parser.add_argument("--count")
    parser.add_argument("--kill-in-tool")
    split = argv.index("--")
    opts, cli_args = parser.parse_args(argv[:split]), argv[split + 1 :]
    prepare = runtime.prepare

    def prepare_then_wrap(workspace: Path) -> str:
        # Prefect reads its settings (result storage, API URL) when first imported: only after
        # the CLI prepared the environment may this process import what it wraps.
        where = prepare(workspace)
        _wrap(opts.fail_call, opts.count, opts.kill_after_results, opts.kill_in_tool)
        return where

    runtime.prepare = prepare_then_wrap
    from cairn.flows.cli.app import main

    sys.argv = ["cairn", *cli_args]
    main()


def _current_key() -> Any:
    from prefect.runtime import task_run

    return task_run.parameters["key"]


def _wrap(
    fail_call: str | None, count: str | None, kill_after_results: int | None, kill_in_tool: str | None = None
) -> None:
    from cairn.flows.prefect import durable, tasks

    if kill_after_results:
        durable.PrefectExecutor = _killing_executor(durable.PrefectExecutor, kill_after_results)  # type: ignore[misc]
    run_tool_call, ask_model = tasks.run_tool_call, tasks.ask_model

    def counted(key: Any) -> None:
        if count:
            with open(count, "a", encoding="utf-8") as handle:
                handle.write(f"{key}\n")

    def tool(ctx: ToolContext, call: Any) -> ToolOutput:
        key = _current_key()
        if fail_call == f"{key.iteration}/{key.index}":
            from prefect.runtime import flow_run

            if flow_run.run_count <= 1:
                raise RuntimeError(f"injected fault: tool call {fail_call} cannot run (first attempt)")
        output = run_tool_call(ctx, call)
        if call.tool == kill_in_tool:
            os.kill(os.getpid(), signal.SIGKILL)
        counted(key)
        return output

    def model(client: Any, kind: Any, payload: Any) -> Any:
        result = ask_model(client, kind, payload)
        counted(_current_key())
        return result

    tasks.run_tool_call, tasks.ask_model = tool, model  # type: ignore[assignment]


def _killing_executor(base: type[PrefectExecutor], limit: int) -> type[PrefectExecutor]:
    results = itertools.count(1)

    class Killing(base):  # type: ignore[valid-type,misc]
        def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
            futures = self.submit(runs, ctx)
            for (key, call), future in zip(runs, futures, strict=True):
                output = future.result()
                if next(results) == limit:
                    from prefect.futures import wait

                    wait(futures)
                    os.kill(os.getpid(), signal.SIGKILL)
                yield key, call, output

    return Killing


if __name__ == "__main__":
    run_with_faults(sys.argv[1:])
