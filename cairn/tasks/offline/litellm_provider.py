"""The offline model as a litellm provider: `cairn/...` model strings answered by `respond`.

Usage is counted with litellm's tokenizer; the cost is 0.

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
import litellm
from litellm import Usage, token_counter
from litellm.llms.custom_llm import CustomLLM, CustomLLMError
from litellm.types.utils import ModelResponse

from cairn.tasks.messages.prompts import PromptError
from cairn.tasks.offline import PROVIDER, respond

_TOKENIZER_MODEL = "gpt-4o"  # any model litellm tokenizes offline; counts are estimates anyway


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
    entries = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
    litellm.custom_provider_map = [*entries, {"provider": PROVIDER, "custom_handler": _HANDLER}]
