"""The model client: litellm (streamed, runaways hung up on), the offline model, cassettes recorded and
replayed, the probe of a server."""

from __future__ import annotations

from cairn.tasks.model.capabilities import (
    OFFLINE_PREFIX,
    REPLAY_PREFIX,
    check_model,
    context_window,
    count_tokens,
)
from cairn.tasks.model.cassette import CassetteError, load_cassette
from cairn.tasks.model.failures import BudgetExhausted, ModelUnavailable, one_line
from cairn.tasks.model.llm import LLMResult, ModelClient
from cairn.tasks.model.probe import probe

__all__ = [
    "OFFLINE_PREFIX",
    "REPLAY_PREFIX",
    "BudgetExhausted",
    "CassetteError",
    "LLMResult",
    "ModelClient",
    "ModelUnavailable",
    "check_model",
    "context_window",
    "count_tokens",
    "load_cassette",
    "one_line",
    "probe",
]
