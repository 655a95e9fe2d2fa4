"""Settings from the environment (prefix `CAIRN_`), read once at the entry point.

>>> Settings(workspace="ws").run_config().workspace.endswith("ws")
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from cairn.core import RunConfig, RunSettings, UsageError

DEFAULT_WORKSPACE = "./cairn-workspace"  # `CAIRN_WORKSPACE` unset: the folder Cairn starts in
# Weaviate's own names for its address, read before Cairn's (`WEAVIATE_URL` over `CAIRN_WEAVIATE_URL`).
WEAVIATE_NAMES = {"weaviate_url": "WEAVIATE_URL", "weaviate_grpc_port": "WEAVIATE_GRPC_PORT"}


class Settings(BaseSettings, RunSettings):
    """Every field of `RunSettings` as a `CAIRN_` variable (`model` is `CAIRN_MODEL`). What a run's
    configuration holds beyond them is set per run, and `RunConfig` says why."""

    # No JSON in a variable: `CAIRN_SKIP_COMPRESS` and `CAIRN_MODEL_REQUEST_FIELDS` are comma lists.
    model_config = SettingsConfigDict(env_prefix="CAIRN_", extra="ignore", enable_decoding=False)

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:  # `CAIRN_MAX_ITERATIONS=0`: one line naming it
            raise config_error(exc) from None

    @model_validator(mode="before")
    @classmethod
    def _environment_forms(cls, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        values = {**values}
        values.setdefault("workspace", DEFAULT_WORKSPACE)
        values.update(
            {field: os.environ[name] for field, name in WEAVIATE_NAMES.items() if name in os.environ}
        )
        for listed in ("skip_compress", "model_request_fields"):
            if isinstance(values.get(listed), str):
                values[listed] = tool_list(values[listed])
        return values

    def run_config(self, **overrides: object) -> RunConfig:
        """The configuration of a run: these settings, the workspace resolved, and the options given
        (an option left out, `None`, keeps the setting)."""
        values: dict[str, object] = {
            **self.model_dump(),
            "workspace": str(Path(self.workspace).expanduser().resolve()),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return RunConfig.model_validate(values)
        except ValidationError as exc:  # `--max-iterations -5`: one line
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
    """A setting or option pydantic refused (`CAIRN_MAX_ITERATIONS=-5`, `--max-iterations 0`,
    `--on-uncertain maybe`) as one line; the variable is named for a setting only.

    >>> def refused(**values):
    ...     try:
    ...         RunConfig(workspace="ws", **values)
    ...     except ValidationError as exc:
    ...         return str(config_error(exc))
    >>> refused(max_iterations=0)
    '--max-iterations / CAIRN_MAX_ITERATIONS: Input should be greater than or equal to 1, not 0'
    >>> refused(on_uncertain="maybe")
    "--on-uncertain: Input should be 'ask', 'skip' or 'rerun', not 'maybe'"
    """
    first = exc.errors()[0]
    name = ".".join(str(part) for part in first["loc"]) or "settings"
    variable = f" / CAIRN_{name.upper()}" if name in RunSettings.model_fields else ""
    return UsageError(f"--{name.replace('_', '-')}{variable}: {first['msg']}, not {first.get('input')!r}")
