"""A run's live services (`Deps`), built once per process from its configuration.

`RunConfig` (`cairn.core.run_config`) is what flows pass between runs and processes; `Deps` is
what a process builds from it once and reuses: the workspace, the memory store, the embedder and
the model client. Settings are read from the environment only at the entry point
(`cairn.flows.settings`), never here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from cairn.core import RunConfig
from cairn.memory.embed.embeddings import make_embedder
from cairn.memory.log.workspace import Workspace
from cairn.memory.store.backends import open_store

if TYPE_CHECKING:  # imported on first use: numpy alone costs a CLI that refuses an argument 0.2 s
    from cairn.memory.embed.embeddings import Embedder
    from cairn.memory.store.protocol import MemoryStore

__all__ = ["Deps", "close_all", "deps_for"]


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
