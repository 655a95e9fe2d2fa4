"""Settings from the environment (prefix `CAIRN_`), read once at the entry point.

>>> Settings(workspace="ws").run_config().workspace.endswith("ws")
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from cairn.errors import UsageError
from cairn.tasks.deps import RunConfig
from cairn.tasks.messages.schemas import ResponseFormat

MODEL_SETTINGS = {
    "model_timeout",
    "model_max_tokens",
    "model_attempts",
    "model_response_format",
    "model_failures",
    "max_usd",
    "max_tokens",
}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CAIRN_", extra="ignore")

    workspace: Path = Path("./cairn-workspace")
    model: str = "cairn/offline"
    embedding_model: str | None = None
    store: Literal["sqlite", "weaviate"] = "sqlite"
    weaviate_url: str | None = Field(
        default=None, validation_alias=AliasChoices("WEAVIATE_URL", "CAIRN_WEAVIATE_URL")
    )
    weaviate_grpc_port: int | None = Field(  # unset: 50051, Weaviate's default
        default=None, validation_alias=AliasChoices("WEAVIATE_GRPC_PORT", "CAIRN_WEAVIATE_GRPC_PORT")
    )
    max_iterations: int = 40
    validators_dir: Path | None = None
    context_tokens: int | None = None
    compress: Literal["each", "batch"] = "each"  # CAIRN_COMPRESS: a model call per tool call or per iteration
    skip_compress: str | None = None  # CAIRN_SKIP_COMPRESS: comma list of tools compressed without a model
    review: Literal["never", "stuck", "every"] = "stuck"  # CAIRN_REVIEW: when a run waits for a person
    model_timeout: float | None = None  # CAIRN_MODEL_TIMEOUT: seconds one model request may take
    model_max_tokens: int | None = None  # CAIRN_MODEL_MAX_TOKENS: longest reply asked for
    model_attempts: int = 3  # CAIRN_MODEL_ATTEMPTS: tries per call (invalid replies, transient errors)
    model_response_format: ResponseFormat = "auto"  # CAIRN_MODEL_RESPONSE_FORMAT
    model_failures: int = 3  # CAIRN_MODEL_FAILURES: failed calls in a row that stop a task
    max_usd: float | None = None  # CAIRN_MAX_USD: a task's budget for model calls
    max_tokens: int | None = None  # CAIRN_MAX_TOKENS
    read_batch: int | None = None  # CAIRN_READ_BATCH: sources a coverage goal reads per iteration

    def run_config(self, **overrides: object) -> RunConfig:
        values: dict[str, object] = {
            "workspace": str(self.workspace.expanduser().resolve()),
            "model": self.model,
            "embedding_model": self.embedding_model,
            "store": self.store,
            "weaviate_url": self.weaviate_url,
            "weaviate_grpc_port": self.weaviate_grpc_port,
            "max_iterations": self.max_iterations,
            "validators_dir": str(self.validators_dir) if self.validators_dir else None,
            "context_tokens": self.context_tokens,
            "compress": self.compress,
            "review": self.review,
            "read_batch": self.read_batch,
            **self.model_dump(include=MODEL_SETTINGS),
        }
        if self.skip_compress is not None:  # unset: RunConfig's default skip list
            values["skip_compress"] = tool_list(self.skip_compress)
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return RunConfig.model_validate(values)
        except ValidationError as exc:  # `--max-iterations -5`, `CAIRN_MAX_ITERATIONS=0`: one line
            raise config_error(exc) from None


def cairn_home(env: Mapping[str, str] | None = None) -> Path:
    """`CAIRN_HOME` (default `~/.cairn`): the local server's and workers' files, and the tracebacks
    of unexpected errors."""
    env = os.environ if env is None else env
    return Path(env.get("CAIRN_HOME") or Path.home() / ".cairn").expanduser()


def tool_list(text: str | None) -> tuple[str, ...] | None:
    """A comma list of tool names (`list_directory, search_memory`); empty text means no tool.

    >>> tool_list("list_directory, search_memory"), tool_list(""), tool_list(None)
    (('list_directory', 'search_memory'), (), None)
    """
    if text is None:
        return None
    return tuple(name.strip() for name in text.split(",") if name.strip())


def config_error(exc: ValidationError) -> UsageError:
    """A setting pydantic refused (`CAIRN_MAX_ITERATIONS=-5`, `--max-iterations 0`) as one line."""
    first = exc.errors()[0]
    name = ".".join(str(part) for part in first["loc"]) or "settings"
    flag = f"--{name.replace('_', '-')} / CAIRN_{name.upper()}"
    return UsageError(f"{flag}: {first['msg']}, not {first.get('input')!r}")
