"""What a model string is and can do, as litellm knows it: where it is served, whether it takes a
JSON schema or JSON mode, streams, its context window, its tokenizer.

Model strings: any litellm model, `cairn/offline` (the deterministic provider in
`cairn.tasks.offline`), or `replay:PATH` (with an optional `?match=kind`) to play a cassette; the
last two never reach a provider, so they take nothing and stream nothing.

>>> context_window("cairn/offline"), supports_json_mode("cairn/offline"), streams("replay:x.jsonl")
(32768, False, False)
>>> served("cairn/offline"), replay_of("replay:run.jsonl?match=kind")
(False, (PosixPath('run.jsonl'), 'kind'))
"""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType
from typing import Any

from cairn.tasks.model.cassette import CassetteError, load_cassette
from cairn.tasks.model.failures import ModelUnavailable, one_line

OFFLINE_PREFIX = "cairn/"
REPLAY_PREFIX = "replay:"
OFFLINE_CONTEXT = 32768
UNKNOWN_CONTEXT = 8192
_PUBLIC_BASES = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}


def served(model: str) -> bool:
    """Whether requests for `model` reach a provider (not the offline model, not a replay)."""
    return not model.startswith((OFFLINE_PREFIX, REPLAY_PREFIX))


def replay_of(model: str) -> tuple[Path, str] | None:
    """The cassette a `replay:PATH[?match=kind]` model plays and its `match` ("" when not given);
    None for any other model."""
    if not model.startswith(REPLAY_PREFIX):
        return None
    path, _, match = model[len(REPLAY_PREFIX) :].partition("?match=")
    return Path(path), match


def local_providers() -> set[str]:
    """The providers registered in this process (`litellm.custom_provider_map`): fakes and the
    offline model, answered by a handler here, never over the network."""
    return {str(item["provider"]) for item in load_litellm().custom_provider_map}


def load_litellm() -> ModuleType:
    """litellm, imported on first use: it takes seconds to import and most callers never need it."""
    import litellm

    litellm.suppress_debug_info = True  # unknown models otherwise print a provider list to stdout
    return litellm


def check_model(model: str) -> None:
    """Refuse a model string litellm cannot route (`no-such-provider/x`), in one line."""
    if not served(model):
        return
    litellm = load_litellm()
    try:
        litellm.get_llm_provider(model)
    except Exception as exc:
        raise ModelUnavailable(f"unknown model {model!r}: {one_line(exc, limit=200)}") from None


def api_base(model: str) -> str | None:
    """Where litellm sends requests for `model`: the provider's base from the environment
    (`OPENAI_API_BASE`, ...) or its public default, as far as litellm tells."""
    if not served(model):
        return None
    litellm = load_litellm()
    try:
        _, provider, _, base = litellm.get_llm_provider(model)
    except Exception:
        return None
    name = str(provider).upper()
    found = base or os.environ.get(f"{name}_API_BASE") or os.environ.get(f"{name}_BASE_URL")
    return str(found or _PUBLIC_BASES.get(str(provider), "")) or None


def supports_response_schema(model: str) -> bool:
    """Whether litellm knows the model takes a JSON schema as `response_format`."""
    litellm = load_litellm()
    try:
        return bool(litellm.supports_response_schema(model=model))
    except Exception:
        return False


def supports_json_mode(model: str) -> bool:
    """Whether litellm knows the model accepts `response_format` (JSON mode)."""
    if not served(model):
        return False
    litellm = load_litellm()

    try:
        return "response_format" in (litellm.get_supported_openai_params(model=model) or [])
    except Exception:
        return False


def streams(model: str) -> bool:
    """Whether replies are streamed: from a real provider, yes; not from the offline model, a
    replay, or a provider registered in process (`litellm.custom_provider_map`), whose handler
    answers whole (litellm's `CustomLLM` has no stream unless it writes one)."""
    return served(model) and model.split("/", 1)[0] not in local_providers()


def stream_options(model: str) -> dict[str, Any]:
    """Stream, with the usage in the last chunk where the provider takes `stream_options` (a
    reply hung up on has none: litellm counts its tokens)."""
    try:
        usage = "stream_options" in (load_litellm().get_supported_openai_params(model=model) or [])
    except Exception:
        usage = False
    return {"stream": True, "stream_options": {"include_usage": True}} if usage else {"stream": True}


def context_window(model: str) -> int:
    """The model's input token limit (8192 when litellm does not know it; 32768 offline)."""
    if (replay := replay_of(model)) is not None:
        # Budget as the recorded run did, so replayed prompts hash the same.
        model = _recorded_model(replay[0])
    if model.startswith(OFFLINE_PREFIX):
        return OFFLINE_CONTEXT
    litellm = load_litellm()

    try:
        info = litellm.get_model_info(model)
    except Exception:
        return UNKNOWN_CONTEXT
    return int(info.get("max_input_tokens") or info.get("max_tokens") or UNKNOWN_CONTEXT)


def count_tokens(model: str, text: str) -> int:
    """Tokens of `text` for `model` (litellm's tokenizer; about len/4 when that fails)."""
    litellm = load_litellm()

    name = model if served(model) else "gpt-4o"
    try:
        return int(litellm.token_counter(model=name, text=text))
    except Exception:
        return max(1, len(text) // 4) if text else 0


def _recorded_model(cassette: Path) -> str:
    try:
        entries = load_cassette(cassette)
    except CassetteError:
        return OFFLINE_PREFIX
    return entries[0].model if entries else OFFLINE_PREFIX
