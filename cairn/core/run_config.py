"""A run's configuration: plain, serializable data that flows pass between runs and processes.

`RunSettings` holds what a person sets for every run; each of its fields is also a `CAIRN_`
setting (`cairn.flows.settings.Settings` derives from it, so a field is declared once). `RunConfig`
adds what is decided for one run and is no standing setting, each with why. Nothing here reads
the environment: that happens once, at the entry point.

>>> RunConfig(workspace="ws").model
'cairn/offline'
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cairn.core.usage import ModelProbe

# How a reply's shape is asked of the provider: the JSON schema, JSON mode, or only the prompt.
ResponseFormat = Literal["auto", "json_schema", "json_object", "none"]


class RunSettings(BaseModel):
    """What a person sets for every run, in the environment (`CAIRN_MODEL`) or by an option."""

    model_config = ConfigDict(frozen=True)

    # The folder of tasks, memories and results. A run's configuration holds it resolved (the
    # settings resolve it), since it travels to workers that start elsewhere.
    workspace: str
    model: str = "cairn/offline"
    embedding_model: str | None = None
    store: Literal["sqlite", "weaviate"] = "sqlite"
    weaviate_url: str | None = None  # `WEAVIATE_URL` too
    weaviate_grpc_port: int | None = Field(default=None, ge=1, le=65535)  # None: Weaviate's 50051
    max_iterations: int = Field(default=40, ge=1, le=10_000)
    candidates: int = Field(default=4, ge=1, le=20)  # K proposals per iteration
    beam: int = Field(default=3, ge=1, le=10)  # calls executed per iteration
    # Sources a coverage goal reads per iteration; None: as many as fit the answer's context share.
    read_batch: int | None = Field(default=None, ge=1, le=10_000)
    compress: Literal["each", "batch"] = "each"  # a model call per tool call, or one per iteration
    # No model call for what holds nothing to compress: a listing, the model's own writing, a test
    # or lint run (its checks are already structured: they open and resolve hot issues).
    # In the environment, a comma list (`CAIRN_SKIP_COMPRESS=list_directory,lint`).
    skip_compress: tuple[str, ...] = ("list_directory", "write_file", "answer", "run_tests", "lint")
    context_tokens: int | None = None  # reasoning-context budget; derived from the model when None
    validators_dir: str | None = None
    review: Literal["never", "stuck", "every"] = "stuck"  # when a run waits for a person (issue 16)
    # The model: how long a call may take, how long its reply may be, how often a call is tried,
    # how a reply's shape is asked for, and how many failed calls in a row stop the task.
    model_timeout: float | None = Field(default=None, gt=0)  # None: scaled with each reply's cap
    model_max_tokens: int | None = Field(default=None, ge=1)
    model_attempts: int = Field(default=3, ge=1, le=10)
    model_response_format: ResponseFormat = "auto"
    model_failures: int = Field(default=3, ge=1, le=100)
    # Fields added to every model request's body, for a server's own options (llama.cpp's
    # `cache_prompt=false`); in the environment, a comma list of `name=value`.
    model_request_fields: tuple[str, ...] = ()
    # The task's budget for model calls (new tasks; `cairn resume` may set it again).
    max_usd: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)
    # The answer verifier's weights: a refit (`bench/verifier_fit.py --out FILE`); None: Cairn's own.
    verifier: str | None = None

    @field_validator("model_request_fields")
    @classmethod
    def _named_values(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for field in value:
            if not field.partition("=")[0].strip() or "=" not in field:
                raise ValueError(f"{field!r} is not name=value")
        return value

    @field_validator("workspace", "validators_dir", mode="before")
    @classmethod
    def _path_text(cls, value: object) -> object:
        return os.fspath(value) if isinstance(value, os.PathLike) else value


class RunConfig(RunSettings):
    """The settings, and what is set for one run only: the reason each is no `CAIRN_` setting."""

    record: str | None = None  # one run's cassette of model responses (`cairn run --record`)
    model_probe: ModelProbe | None = None  # learnt by the preflight of this run, not set
    # Decisions about one task's trouble, made when a person sees it: continue a task whose
    # history's hash chain is broken (`--accept-tampered`); for a side-effecting call interrupted
    # before its result was recorded, ask, skip it, or run it again (`--on-uncertain`,
    # `cairn.flows.loop.uncertain`). A standing `rerun` would repeat effects nobody looked at.
    accept_tampered: bool = False
    on_uncertain: Literal["ask", "skip", "rerun"] = "ask"
