"""One call, tool or model, run so that what leaves it is clean.

These are the plain functions under Cairn's Prefect tasks (`cairn.flows.prefect.tasks`) and under the
in-process executor (`cairn.flows.steps.executor`): a tool's output and a model's reply are persisted,
cached and shown to the next model, so secrets are redacted here, before anyone sees them.

A read-only tool that cannot run at all *raises* `ToolCrashed` (Prefect retries it): a returned
failure would be cached as a success under the call's key and never tried again on resume. A tool
with side effects runs at most once: its crash is a failed output, recorded and never retried.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from cairn.core import PlannedCall, RunConfig
from cairn.redact import redact, redact_model
from cairn.tasks.messages.schemas import CallKind, Schema
from cairn.tasks.model.llm import LLMResult, ModelClient
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.toolset import toolset_for


class ToolCrashed(RuntimeError):
    """A tool that could not run at all, its message redacted."""


def run_tool_call(ctx: ToolContext, call: PlannedCall) -> ToolOutput:
    """Run one planned call; a crash becomes `ToolCrashed` with a redacted message."""
    started = time.perf_counter()
    toolset = toolset_for(ctx.tools)
    try:
        output = redact_model(toolset.execute(ctx, call))
    except Exception as exc:
        message = redact(f"{type(exc).__name__}: {exc}")
        if toolset.read_only(call.tool):
            raise ToolCrashed(message).with_traceback(exc.__traceback__) from None
        output = failure(f"{call.tool} crashed: {message}", "error")
    return output.model_copy(update={"seconds": time.perf_counter() - started})


def ask_model(client: ModelClient, kind: CallKind, payload: Schema) -> LLMResult[Any]:
    """One model call with its reply, error and output redacted (a provider error may quote a key)."""
    return redact_result(client.call(kind, payload))


def redact_result(result: LLMResult[Any]) -> LLMResult[Any]:
    output = redact_model(result.output) if result.output is not None else None
    error = redact(result.error) if result.error else result.error
    return result.model_copy(update={"raw": redact(result.raw), "error": error, "output": output})


@lru_cache(maxsize=8)
def model_client(config: RunConfig) -> ModelClient:
    """One client per configuration per process (a cassette keeps its counters in it)."""
    probe = config.model_probe if config.model_probe and config.model_probe.model == config.model else None
    auto = config.model_response_format == "auto"
    fields = request_fields(config.model_request_fields)
    return ModelClient(
        config.model,
        record=config.record,
        timeout=config.model_timeout,
        max_tokens=config.model_max_tokens,
        max_attempts=config.model_attempts,
        # What the preflight learnt of the model's server (`cairn.tasks.model.probe`), if it ran.
        response_format=probe.response_format if probe and auto else config.model_response_format,
        tokens_per_s=probe.tokens_per_s if probe else None,
        litellm_kwargs={"extra_body": fields} if fields else None,
    )


def request_fields(named: Sequence[str]) -> dict[str, Any]:
    """`name=value` fields as a request body's, each value read as JSON where it is JSON.

    >>> request_fields(["cache_prompt=false", "slot_id=0", "grammar=root ::= yes"])
    {'cache_prompt': False, 'slot_id': 0, 'grammar': 'root ::= yes'}
    """
    found: dict[str, Any] = {}
    for field in named:
        name, _, value = field.partition("=")
        try:
            found[name.strip()] = json.loads(value)
        except ValueError:
            found[name.strip()] = value.strip()
    return found
