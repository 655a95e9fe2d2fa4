"""Cairn's Prefect tasks: three-line shells over plain functions.

Each takes a `CallKey` first (see `tasks._prefect`); live services are looked up per process from
the run's `RunConfig`, so they never enter a cache key or a persisted parameter.

A tool that cannot run at all *raises* (and Prefect retries it): a returned failure would be
cached as a success under the call's key and never tried again on resume.
"""

from __future__ import annotations

import itertools
import os
import signal
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, TypeVar

from memory.models import PlannedCall
from memory.redact import redact, redact_model
from tasks._prefect import CallKey, cairn_task
from tasks.deps import RunConfig
from tasks.llm import LLMResult, ModelClient
from tasks.schemas import CallKind, Schema
from tasks.tools.base import ToolContext, ToolOutput
from tasks.tools.registry import execute

T = TypeVar("T")


@lru_cache(maxsize=8)
def model_client(model: str, record: str | None) -> ModelClient:
    return ModelClient(model, record=record)


class ToolCrashed(RuntimeError):
    """A tool that could not run at all (Prefect retries it), its message redacted."""


@cairn_task(name="tool", retries=1)
def run_tool(key: CallKey, call: PlannedCall, ctx: ToolContext) -> ToolOutput:
    _test_fail(key)
    output = safe_execute(ctx, call)
    _test_count(key)
    return output


def safe_execute(ctx: ToolContext, call: PlannedCall) -> ToolOutput:
    # The output is a persisted, cached Prefect result and the model's next input: it leaves here
    # clean. So does a crash, whose message becomes the task run's state, log and stored result.
    try:
        return redact_model(execute(ctx, call))
    except Exception as exc:
        raise ToolCrashed(redact(f"{type(exc).__name__}: {exc}")).with_traceback(exc.__traceback__) from None


@cairn_task(name="model")
def call_model(key: CallKey, kind: CallKind, payload: Schema, config: RunConfig) -> LLMResult[Any]:
    result = redact_result(model_client(config.model, config.record).call(kind, payload))
    _test_count(key)
    return result


def redact_result(result: LLMResult[Any]) -> LLMResult[Any]:
    """The result with its reply, error and output redacted (a provider error may quote a key)."""
    output = redact_model(result.output) if result.output is not None else None
    error = redact(result.error) if result.error else result.error
    return result.model_copy(update={"raw": redact(result.raw), "error": error, "output": output})


# --- Test-only hooks (tests/e2e/test_resume.py); inert unless their variable is set. ----------------


def _test_count(key: CallKey) -> None:
    """CAIRN_TEST_COUNTER=FILE: append one line per call that really executed (not cached)."""
    path = os.environ.get("CAIRN_TEST_COUNTER")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{key}\n")


def _test_fail(key: CallKey) -> None:
    """CAIRN_TEST_FAIL_CALL=ITERATION/INDEX: that tool call raises in its iteration's first run."""
    target = os.environ.get("CAIRN_TEST_FAIL_CALL")
    if target and target == f"{key.iteration}/{key.index}" and key.kind == "tool":
        from prefect.runtime import flow_run

        if flow_run.run_count <= 1:
            raise RuntimeError(f"test hook: tool call {target} cannot run (first attempt)")


_results_seen = itertools.count(1)


def kill_point_for_tests(result: T, pending: Iterable[Any]) -> T:
    """CAIRN_TEST_KILL_AFTER_CALLS=N: SIGKILL this process when the N-th tool result arrives, before
    it is recorded. The other futures are waited for first, so no tool is half-run at the kill."""
    limit = os.environ.get("CAIRN_TEST_KILL_AFTER_CALLS")
    if limit and next(_results_seen) == int(limit):
        from prefect.futures import wait

        wait(list(pending))
        os.kill(os.getpid(), signal.SIGKILL)
    return result
