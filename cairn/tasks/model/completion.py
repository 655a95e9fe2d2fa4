"""One request through litellm, as a `Reply`: streamed from a real provider, so that a reply that
repeats itself is hung up on at once (`cairn.tasks.model.stream`), and whole otherwise.

litellm's own retries are off: the client's attempts (`cairn.tasks.model.llm`) are the only
retries, and each is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cairn.tasks.model import stream
from cairn.tasks.model.capabilities import OFFLINE_PREFIX, load_litellm, stream_options, streams
from cairn.tasks.model.cassette import Reply


def litellm_reply(
    model: str,
    messages: list[dict[str, str]],
    *,
    max_tokens: int,
    timeout: float,
    extra: Mapping[str, Any],
    whole: bool = False,
) -> Reply:
    """The reply to one request of at most `max_tokens`; `extra` holds the sampling, the
    `response_format` and the caller's litellm arguments (`api_base`, `mock_response`, ...).
    `whole`: not streamed (a one-token reply whose alternatives are read)."""
    litellm = load_litellm()
    options = dict(extra)
    streamed = streams(model) and not whole
    if streamed:
        options |= stream_options(model)
    # num_retries / max_retries 0: litellm's client would otherwise re-send a timed-out call
    # on its own, unseen.
    response = litellm.completion(
        model=model,
        messages=messages,
        max_tokens=max_tokens,
        timeout=timeout,
        num_retries=0,
        max_retries=0,
        **options,
    )
    if not streamed:
        return _reply(model, response)
    chunks, finish = stream.read(response, timeout)
    built = litellm.stream_chunk_builder(chunks, messages=messages) if chunks else None
    if built is None:  # nothing came before it ended
        return Reply(finish_reason=finish or "stop")
    return _reply(model, built, finish)


def _reply(model: str, response: Any, finish: str | None = None) -> Reply:
    """A litellm response as a `Reply`; `finish` overrides its finish reason (a stream cut short)."""
    choice = response.choices[0]
    usage = getattr(response, "usage", None)
    return Reply(
        text=str(choice.message.content or ""),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        usd=_usd(model, response),
        finish_reason=str(finish or choice.finish_reason or "stop"),
        first_token=_first_token(choice),
    )


def _first_token(choice: Any) -> dict[str, float]:
    """The first token's alternatives and their log-probabilities, where the reply has them."""
    logprobs = getattr(choice, "logprobs", None)
    content = logprobs.get("content") if isinstance(logprobs, dict) else getattr(logprobs, "content", None)
    if not content:
        return {}
    first = content[0]
    top = first.get("top_logprobs") if isinstance(first, dict) else getattr(first, "top_logprobs", None)
    found: dict[str, float] = {}
    for alt in top or []:
        token = alt.get("token") if isinstance(alt, dict) else getattr(alt, "token", None)
        value = alt.get("logprob") if isinstance(alt, dict) else getattr(alt, "logprob", None)
        if isinstance(token, str) and isinstance(value, int | float):
            found.setdefault(token, float(value))
    return found


def _usd(model: str, response: Any) -> float:
    if model.startswith(OFFLINE_PREFIX):
        return 0.0
    litellm = load_litellm()

    try:  # unknown models (custom providers, new releases) have no price: cost 0, not a crash
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:
        return 0.0
