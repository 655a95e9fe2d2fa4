"""What Cairn keeps, no Prefect: the workspace and event log, the memory index, embeddings, context
(the records themselves are `cairn.core`'s).

Memory, in names and prose, is the memory index (`cairn.memory.store`: SQLite or Weaviate) and its
records (`cairn.core.Memory`); the package also holds the event log the index is built
from (`cairn.memory.log`) and what is built from both (`cairn.memory.context`).

>>> from cairn.memory import Workspace, open_store
>>> from cairn.memory.embed.embeddings import HashingEmbedder
>>> open_store("sqlite", path=":memory:", embedder=HashingEmbedder(dim=8)).count()
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn._faces import lazy_names

if TYPE_CHECKING:
    from cairn.memory.log.workspace import Workspace
    from cairn.memory.store.backends import open_store

__all__ = ["Workspace", "open_store"]
_WHERE = {"open_store": "cairn.memory.store.backends", "Workspace": "cairn.memory.log.workspace"}

__getattr__ = lazy_names(__name__, _WHERE)
