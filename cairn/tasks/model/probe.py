"""What a model's server takes, learnt with one small request before a run (the model preflight).

How to ask for JSON: with `CAIRN_MODEL_RESPONSE_FORMAT=auto`, a strict JSON schema is tried first
unless litellm knows the model takes none (a local `openai/...` model is one litellm cannot know:
llama.cpp's server takes a schema, as a grammar); a server that refuses it, or answers it with no
matching JSON, is asked in JSON mode (where litellm says the provider has one), then with no
`response_format`; a refusal is an answer (HTTP 400 or 422), while no connection, a timeout or a
5xx refuse the model at once. A format set by hand is the only one tried. How fast: the accepted reply's
tokens over its wall time, which scales each call's timeout with its reply cap
(`ModelClient.timeout_for`). A server that does not answer at all is refused at once.

>>> probe(ModelClient("cairn/offline")).reason
'no server: an offline or replayed model'
"""

from __future__ import annotations

import time
from typing import Any, Literal

from cairn.core import ModelProbe
from cairn.tasks.model.capabilities import (
    load_litellm,
    served,
    supports_json_mode,
    supports_response_schema,
)
from cairn.tasks.model.failures import ModelOutputError, ModelUnavailable, one_line
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.model.salvage import parse_model_json

Format = Literal["json_schema", "json_object", "none"]
PROBE_TOKENS = 48  # enough to time the generation, little enough for a CPU model (a few seconds)
_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "words": {"type": "array", "items": {"type": "string"}}},
    "required": ["ok", "words"],
    "additionalProperties": False,
}
_ASK = 'Reply with this JSON object only: {"ok": true, "words": ["one", "two", "three", "four", "five"]}'


def probe(client: ModelClient) -> ModelProbe:
    """The reply format the model's server takes and its speed; `ModelUnavailable` if it answers none."""
    if not served(client.model):
        reason = "no server: an offline or replayed model"
        return ModelProbe(model=client.model, response_format="none", reason=reason)
    refusals: list[str] = []
    for fmt in candidates(client.model, client.response_format):
        try:
            tokens, seconds, text = _ask(client, fmt)
        except Exception as exc:
            if not _refusal(exc):
                raise ModelUnavailable(f"{client.describe()} does not answer: {one_line(exc)}") from None
            refusals.append(f"{fmt} refused: {one_line(exc, limit=160)}")
            continue
        if fmt != "none" and not _matches(text):
            refusals.append(f"{fmt} answered without the JSON asked for")
            continue
        return ModelProbe(
            model=client.model,
            response_format=fmt,
            reason=_reason(client.response_format, fmt, refusals),
            tokens_per_s=round(tokens / seconds, 2) if tokens and seconds > 0 else None,
            seconds=round(seconds, 2),
        )
    raise ModelUnavailable(f"{client.describe()} took no reply format: {'; '.join(refusals)}")


def candidates(model: str, mode: str) -> list[Format]:
    """The formats to try, best first: the one set by hand, or (auto) a strict schema unless
    litellm knows the model takes none, then JSON mode where the provider has it, then none."""
    if mode in ("json_schema", "json_object", "none"):
        return [mode]  # type: ignore[list-item]
    tried: list[Format] = []
    if supports_response_schema(model) or not _known(model):
        tried.append("json_schema")
    if supports_json_mode(model):
        tried.append("json_object")
    return [*tried, "none"]


def _ask(client: ModelClient, fmt: Format) -> tuple[int, float, str]:
    """(completion tokens, seconds, text) of one small request in `fmt`."""
    extra: dict[str, Any] = dict(client.litellm_kwargs)
    if fmt == "json_schema":
        extra["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "cairn_probe", "schema": _SCHEMA, "strict": True},
        }
    elif fmt == "json_object":
        extra["response_format"] = {"type": "json_object"}
    started = time.perf_counter()
    response = load_litellm().completion(
        model=client.model,
        messages=[{"role": "user", "content": _ASK}],
        max_tokens=PROBE_TOKENS,
        temperature=0.0,
        timeout=client.timeout_for(PROBE_TOKENS),
        num_retries=0,
        max_retries=0,
        **extra,
    )
    seconds = time.perf_counter() - started
    usage = getattr(response, "usage", None)
    text = str(response.choices[0].message.content or "")
    return int(getattr(usage, "completion_tokens", 0) or 0), seconds, text


def _refusal(exc: Exception) -> bool:
    """The server answered that it does not take the request as made (HTTP 400 or 422, or
    litellm's own refusal of a parameter); anything else (no connection, a timeout, a 5xx, a
    wrong key) says it cannot be used at all, whatever the format."""
    litellm = load_litellm()
    return isinstance(exc, litellm.BadRequestError | litellm.UnprocessableEntityError)


def _matches(text: str) -> bool:
    try:
        value = parse_model_json(text)
    except ModelOutputError:
        return False
    return isinstance(value, dict) and value.get("ok") is True and isinstance(value.get("words"), list)


def _known(model: str) -> bool:
    """Whether litellm has the model in its map (then its answer on schemas is taken as it is)."""
    try:
        load_litellm().get_model_info(model)
    except Exception:
        return False
    return True


def _reason(mode: str, fmt: Format, refusals: list[str]) -> str:
    if mode != "auto":
        return f"{fmt}, as set (CAIRN_MODEL_RESPONSE_FORMAT)"
    before = f" after {'; '.join(refusals)}" if refusals else ""
    return f"{fmt}: the server took it{before}"
