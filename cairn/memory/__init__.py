"""Cairn memory: models, workspace and event log, stores, embeddings, context (no Prefect).

>>> from cairn.memory import Workspace, open_store
>>> from cairn.memory.embed.embeddings import HashingEmbedder
>>> open_store("sqlite", path=":memory:", embedder=HashingEmbedder(dim=8)).count()
0
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cairn.memory.log.workspace import Workspace
    from cairn.memory.store.backends import open_store

__all__ = ["Workspace", "open_store"]
_WHERE = {"open_store": "cairn.memory.store.backends", "Workspace": "cairn.memory.log.workspace"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_WHERE[name]), name)
