"""How a model call fails: the errors a client raises or reports, and their one-line form.

`ModelUnavailable` and `BudgetExhausted` stop a task (each with its exit code); the others are
failures of one call, which `ModelClient.call` turns into a failed `LLMResult` with `one_line`.

>>> one_line(ModelOutputError("no valid JSON object\\nfound in the reply"))
'ModelOutputError: no valid JSON object found in the reply'
"""

from __future__ import annotations

from cairn.core import CairnError


class ModelUnavailable(CairnError):
    """The model cannot be used: unknown to litellm, its server does not answer, or its calls
    kept failing (the task stopped, resumable)."""

    exit_code = 4


class BudgetExhausted(CairnError):
    """The task spent its budget (USD or tokens) on model calls; resuming with more continues it."""

    exit_code = 5


class ModelOutputError(ValueError):
    """A reply that holds no usable JSON; the message is one line, fit to show the model."""


class ReplayedProviderError(RuntimeError):
    """The recorded request failed at the provider; replay fails it the same way."""


class NetworkModelBlocked(RuntimeError):
    """A test tried to reach a real model provider (`cairn.tasks.model.network_guard`)."""


def one_line(error: object, limit: int = 300) -> str:
    """An exception or message as one short line, naming the exception class, no traceback."""
    text = str(error).split("Traceback (most recent call last)", 1)[0]
    if isinstance(error, BaseException) and not isinstance(error, ReplayedProviderError):
        name = type(error).__name__
        text = text if name in text else f"{name}: {text}"
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
