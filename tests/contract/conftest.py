"""The `store` fixture: every test in this folder runs once per backend in `BACKENDS`.

Adding a backend is one import and one entry, e.g.

    from tests.contract.weaviate_backend import make_weaviate_double_store
    BACKENDS |= {"weaviate-double": make_weaviate_double_store}

`weaviate-live` runs on a real Weaviate server (`weaviate_server`, one per session: the one
`WEAVIATE_URL` names, or the pinned release built and started by `deployments/weaviate/`); its
tests carry the `weaviate_live` marker, so `pytest -m 'not weaviate_live'` (`make test-fast`)
leaves them out. They are never skipped for want of a server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cairn.memory.embed.embeddings import Embedder, HashingEmbedder
from cairn.memory.store.protocol import MemoryStore
from cairn.memory.store.sqlite_store import SQLiteStore
from tests.contract.weaviate_backend import (
    drop_collections,
    make_weaviate_double_store,
    make_weaviate_live_store,
)
from tests.weaviate_server import MARKER, LiveWeaviate

BACKENDS: dict[str, Callable[[Path, Embedder], MemoryStore]] = {
    "sqlite": lambda tmp, embedder: SQLiteStore(tmp / "memory.db", embedder),
    "weaviate-double": make_weaviate_double_store,
}
LIVE = "weaviate-live"  # needs the session's server, so it is built in the fixture below

DIM = 64  # small vectors keep the suite fast


@pytest.fixture
def embedder() -> Embedder:
    return HashingEmbedder(dim=DIM)


@pytest.fixture(params=[*sorted(BACKENDS), pytest.param(LIVE, marks=getattr(pytest.mark, MARKER))])
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryStore]:
    name: str = request.param
    if name != LIVE:
        backend = BACKENDS[name](tmp_path, embedder)
        yield backend
        backend.close()
        return
    server: LiveWeaviate = request.getfixturevalue("weaviate_server")
    live = make_weaviate_live_store(tmp_path, embedder, server)
    yield live
    live.close()
    drop_collections(server, tmp_path)
