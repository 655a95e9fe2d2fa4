"""The guard that keeps tests off real model providers: `tests/conftest.py` installs it for the
whole session, and a test that means to reach one names its provider."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cairn.tasks.model.capabilities import api_base, local_providers
from cairn.tasks.model.failures import NetworkModelBlocked


def block_network_models(allow: Iterable[str] = ()) -> Callable[[], None]:
    """Refuse litellm requests to real providers (for tests); returns a function that undoes it.

    Allowed: `mock_response=` calls, the `cairn` provider, providers registered in
    `litellm.custom_provider_map` (local fakes), a model server on loopback (`api_base`, given or
    set for the provider: `OPENAI_API_BASE`), and the
    providers named in `allow`.
    A refused completion raises `NetworkModelBlocked`, which `ModelClient` reports as a failed call.
    """
    import litellm

    real_completion, real_embedding = litellm.completion, litellm.embedding
    allowed = {"cairn", *allow}

    def check(kwargs: dict[str, Any], args: tuple[Any, ...]) -> None:
        model = str(kwargs.get("model") or (args[0] if args else ""))
        base = str(kwargs.get("api_base") or api_base(model) or "")  # given, or the provider's setting
        loopback = base.startswith(("http://127.0.0.1:", "http://localhost:"))
        if (
            "mock_response" not in kwargs
            and not loopback
            and model.split("/", 1)[0] not in allowed | local_providers()
        ):
            raise NetworkModelBlocked(f"real model request to {model!r} blocked in tests")

    def completion(*args: Any, **kwargs: Any) -> Any:
        check(kwargs, args)
        return real_completion(*args, **kwargs)

    def embedding(*args: Any, **kwargs: Any) -> Any:
        check(kwargs, args)
        return real_embedding(*args, **kwargs)

    litellm.completion, litellm.embedding = completion, embedding

    def undo() -> None:
        litellm.completion, litellm.embedding = real_completion, real_embedding

    return undo
