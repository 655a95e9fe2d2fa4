"""A run's configuration (plain, serializable data) and its live services (`Deps`).

`RunConfig` is what flows pass between runs and processes; `Deps` is what a process builds from
it once and reuses: the workspace, the memory store, the embedder and the model client. Settings
are read from the environment only at the entry point (`cairn.flows.settings`), never here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from cairn.memory.embed.embeddings import make_embedder
from cairn.memory.log.workspace import Workspace
from cairn.memory.models import ModelProbe
from cairn.memory.store.backends import open_store
from cairn.tasks.messages.schemas import ResponseFormat

if TYPE_CHECKING:  # imported on first use: numpy alone costs a CLI that refuses an argument 0.2 s
    from cairn.memory.embed.embeddings import Embedder
    from cairn.memory.store.protocol import MemoryStore


class RunConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    workspace: str
    model: str = "cairn/offline"
    embedding_model: str | None = None
    store: Literal["sqlite", "weaviate"] = "sqlite"
    weaviate_url: str | None = None
    weaviate_grpc_port: int | None = Field(default=None, ge=1, le=65535)  # None: Weaviate's 50051
    max_iterations: int = Field(default=40, ge=1, le=10_000)
    candidates: int = Field(default=4, ge=1, le=20)  # K proposals per iteration
    beam: int = Field(default=3, ge=1, le=10)  # calls executed per iteration
    # Sources a coverage goal reads per iteration; None: as many as fit the answer's context share.
    read_batch: int | None = Field(default=None, ge=1, le=10_000)
    compress: Literal["each", "batch"] = "each"
    # No model call for what holds nothing to compress: a listing, the model's own writing, a test
    # or lint run (its checks are already structured: they open and resolve hot issues).
    skip_compress: tuple[str, ...] = ("list_directory", "write_file", "answer", "run_tests", "lint")
    record: str | None = None  # cassette path to record model responses
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
    model_probe: ModelProbe | None = None  # what the preflight learnt of the model's server
    # The task's budget for model calls (new tasks; `cairn resume` may set it again).
    max_usd: float | None = Field(default=None, ge=0)
    max_tokens: int | None = Field(default=None, ge=0)
    accept_tampered: bool = False  # continue a task whose history's hash chain is broken
    # A side-effecting call interrupted before its result was recorded: ask (stop and say how to
    # decide), skip it, or run it again (`cairn.flows.loop.uncertain`).
    on_uncertain: Literal["ask", "skip", "rerun"] = "ask"


@dataclass
class Deps:
    config: RunConfig
    workspace: Workspace
    store: MemoryStore
    embedder: Embedder

    def close(self) -> None:
        self.store.close()


_opened: list[Deps] = []  # every Deps `deps_for` made in this process, for `close_all`


@lru_cache(maxsize=8)
def deps_for(config: RunConfig) -> Deps:
    """One set of live services per configuration per process (closed by `close_all`)."""

    workspace = Workspace(Path(config.workspace))
    workspace.root.mkdir(parents=True, exist_ok=True)
    embedder = make_embedder(config.embedding_model)
    store = open_store(
        config.store,
        path=workspace.db_path,
        embedder=embedder,
        url=config.weaviate_url,
        grpc_port=config.weaviate_grpc_port,
    )
    _opened.append(Deps(config=config, workspace=workspace, store=store, embedder=embedder))
    return _opened[-1]


def close_all() -> None:
    """Close every store `deps_for` opened: the CLI's last step. A Weaviate client left open holds
    its connections until the interpreter drops it, and says so on stderr (`Con004`)."""
    deps_for.cache_clear()
    while _opened:
        _opened.pop().close()
