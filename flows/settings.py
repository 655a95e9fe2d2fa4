"""Settings from the environment (prefix `CAIRN_`), read once at the entry point.

>>> Settings(workspace="ws").run_config().workspace.endswith("ws")
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from cairn.tasks.deps import RunConfig


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CAIRN_", extra="ignore")

    workspace: Path = Path("./cairn-workspace")
    model: str = "cairn/offline"
    embedding_model: str | None = None
    store: Literal["sqlite", "weaviate"] = "sqlite"
    weaviate_url: str | None = Field(
        default=None, validation_alias=AliasChoices("WEAVIATE_URL", "CAIRN_WEAVIATE_URL")
    )
    max_iterations: int = 40
    validators_dir: Path | None = None
    context_tokens: int | None = None
    compress: Literal["each", "batch"] = "each"  # CAIRN_COMPRESS: a model call per tool call or per iteration
    skip_compress: str | None = None  # CAIRN_SKIP_COMPRESS: comma list of tools compressed without a model
    review: Literal["never", "stuck", "every"] = "stuck"  # CAIRN_REVIEW: when a run waits for a person

    def run_config(self, **overrides: object) -> RunConfig:
        values: dict[str, object] = {
            "workspace": str(self.workspace.expanduser().resolve()),
            "model": self.model,
            "embedding_model": self.embedding_model,
            "store": self.store,
            "weaviate_url": self.weaviate_url,
            "max_iterations": self.max_iterations,
            "validators_dir": str(self.validators_dir) if self.validators_dir else None,
            "context_tokens": self.context_tokens,
            "compress": self.compress,
            "review": self.review,
        }
        if self.skip_compress is not None:  # unset: RunConfig's default skip list
            values["skip_compress"] = tool_list(self.skip_compress)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return RunConfig.model_validate(values)


def cairn_home(env: Mapping[str, str] | None = None) -> Path:
    """`CAIRN_HOME` (default `~/.cairn`): the local server's and workers' files, error reports."""
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
