"""`cairn/offline`: a deterministic, extractive model registered in litellm as provider `cairn`.

It reads the request back with `cairn.tasks.messages.prompts.parse_request` and fulfils the call's
schema with extractive logic (`classifier`, `planner`, `reading`, `spec_code`), so a research or
question task over local files completes with no model at all. Usage is counted with litellm's
tokenizer; the cost is 0.

>>> import litellm
>>> from cairn.tasks.messages.prompts import render
>>> from cairn.tasks.messages.schemas import DetectTaskTypeInput
>>> register_offline()
>>> reply = litellm.completion(model="cairn/offline", messages=render(
...     "detect_task_type", DetectTaskTypeInput(goal="Refactor the parser module")))
>>> reply.choices[0].message.content
'{"task_type":"coding_task","rationale":"code words: module, refactor"}'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
from litellm import Usage, token_counter
from litellm.llms.custom_llm import CustomLLM, CustomLLMError
from litellm.types.utils import ModelResponse

from cairn.tasks.messages.file_reply import files_reply
from cairn.tasks.messages.prompts import PromptError, parse_request
from cairn.tasks.messages.schemas import (
    CalculateInput,
    CalculateOutput,
    CompressBatchInput,
    CompressInput,
    DeliverInput,
    DeliverOutput,
    DetectTaskTypeInput,
    ExtractConstraintInput,
    PlanInput,
    Schema,
    SynthesizeInput,
    WriteInput,
)
from cairn.tasks.offline.classifier import rule_by_words, task_type_by_words
from cairn.tasks.offline.planner import plan
from cairn.tasks.offline.reading import compress, compress_batch, synthesize
from cairn.tasks.offline.spec_code import write

PROVIDER = "cairn"
OFFLINE_MODEL = "cairn/offline"
_TOKENIZER_MODEL = "gpt-4o"  # any model litellm tokenizes offline; counts are estimates anyway


def respond(messages: list[dict[str, str]]) -> str:
    """The offline model's reply (JSON text) to rendered Cairn messages."""
    kind, payload = parse_request(messages)
    output: Schema
    if isinstance(payload, PlanInput):
        output = plan(payload)
    elif isinstance(payload, CompressInput):
        output = compress(payload)
    elif isinstance(payload, CompressBatchInput):
        output = compress_batch(payload)
    elif isinstance(payload, SynthesizeInput):
        output = synthesize(payload)
    elif isinstance(payload, ExtractConstraintInput):
        output = rule_by_words(payload.message)
    elif isinstance(payload, DetectTaskTypeInput):
        output = task_type_by_words(payload.goal)
    elif isinstance(payload, DeliverInput):
        output = DeliverOutput()  # no answer: the offline planner writes its cited report itself
    elif isinstance(payload, CalculateInput):
        output = CalculateOutput()  # never asked: the offline model delivers no answers
    elif isinstance(payload, WriteInput):
        return files_reply({f.path: f.content for f in write(payload).files})
    else:  # pragma: no cover - INPUTS and this dispatch list change together
        raise PromptError(f"no offline handler for {kind}")
    return output.model_dump_json()


class OfflineLLM(CustomLLM):
    """The litellm handler behind `cairn/...` model strings."""

    def completion(
        self,
        model: str,
        messages: list[Any],
        api_base: str,
        custom_prompt_dict: dict[str, Any],
        model_response: ModelResponse,
        print_verbose: Callable[..., Any],
        encoding: Any,
        api_key: Any,
        logging_obj: Any,
        optional_params: dict[str, Any],
        acompletion: Any = None,
        litellm_params: Any = None,
        logger_fn: Any = None,
        headers: dict[str, Any] | None = None,
        timeout: float | httpx.Timeout | None = None,
        client: Any = None,
    ) -> ModelResponse:
        try:
            content = respond(messages)
        except PromptError as exc:  # not a Cairn prompt: a client error, like any provider's 400
            raise CustomLLMError(status_code=400, message=f"cairn/offline: {exc}") from exc  # type: ignore[no-untyped-call]
        return _response(model, messages, content)

    async def acompletion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self.completion(*args, **kwargs)


def _response(model: str, messages: list[Any], content: str) -> ModelResponse:
    prompt = _count(messages=messages)
    completion = _count(text=content)
    return ModelResponse(
        model=f"{PROVIDER}/{model}",
        created=int(time.time()),
        choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        usage=Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion),
    )


def _count(**what: Any) -> int:
    try:
        return int(token_counter(model=_TOKENIZER_MODEL, **what))
    except Exception:  # a tokenizer problem must not fail the call; estimate instead
        text = str(what.get("text") or what.get("messages") or "")
        return max(1, len(text) // 4)


_HANDLER = OfflineLLM()


def register_offline() -> None:
    """Register the `cairn` provider in litellm (idempotent; keeps other custom providers)."""
    import litellm

    entries = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
    litellm.custom_provider_map = [*entries, {"provider": PROVIDER, "custom_handler": _HANDLER}]
