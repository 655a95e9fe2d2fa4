"""The `store` fixture: every test in this folder runs once per backend in `BACKENDS`.

Adding a backend is one import and one entry, e.g.

    from tests.contract.weaviate_backend import weaviate_double, weaviate_live
    BACKENDS |= {"weaviate-double": weaviate_double, "weaviate-live": weaviate_live}

A backend listed in `NEEDS_ENV` is skipped when its environment variable is unset.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cairn.memory.embeddings import Embedder, HashingEmbedder
from cairn.memory.sqlite_store import SQLiteStore
from cairn.memory.store import MemoryStore
from tests.contract.weaviate_backend import make_weaviate_double_store, make_weaviate_live_store

BACKENDS: dict[str, Callable[[Path, Embedder], MemoryStore]] = {
    "sqlite": lambda tmp, embedder: SQLiteStore(tmp / "memory.db", embedder),
}
BACKENDS |= {"weaviate-double": make_weaviate_double_store, "weaviate-live": make_weaviate_live_store}
NEEDS_ENV = {"weaviate-live": "WEAVIATE_URL"}  # a live server only when one is configured

DIM = 64  # small vectors keep the suite fast


@pytest.fixture
def embedder() -> Embedder:
    return HashingEmbedder(dim=DIM)


@pytest.fixture(params=sorted(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder) -> Iterator[MemoryStore]:
    name: str = request.param
    variable = NEEDS_ENV.get(name)
    if variable and not os.environ.get(variable):
        pytest.skip(f"{name} needs {variable}")
    backend = BACKENDS[name](tmp_path, embedder)
    yield backend
    backend.close()
