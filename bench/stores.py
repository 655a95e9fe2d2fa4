"""The store backends a bench can measure side by side: the embedded `SQLiteStore` and
`WeaviateStore` on a real server (`WEAVIATE_URL`, or the pinned release that
`deployments/weaviate/` builds and starts for the run, as the test session does).

A bench asks `backend_stores(name, workdir)` for a factory and opens each store it needs by a
name; Weaviate's stores share one client, and their collections are deleted when the block ends,
so a server someone gave the bench is left as it was.

>>> with backend_stores("sqlite", Path("/tmp")) as open_store:  # doctest: +SKIP
...     store = open_store("conv-1", HashingEmbedder())
"""

from __future__ import annotations

import hashlib
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cairn.memory.embed.embeddings import Embedder  # noqa: E402
from cairn.memory.store.protocol import MemoryStore  # noqa: E402
from cairn.memory.store.sqlite_store import SQLiteStore  # noqa: E402

BACKENDS = ("sqlite", "weaviate")
OpenStore = Callable[[str, Embedder], MemoryStore]


def backend_list(text: str) -> list[str]:
    """`--backends sqlite,weaviate` as a list, refusing an unknown name."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in BACKENDS]
    if unknown or not names:
        raise SystemExit(f"--backends takes a comma list of {', '.join(BACKENDS)}; got {text!r}")
    return names


@contextmanager
def backend_stores(backend: str, workdir: Path) -> Iterator[OpenStore]:
    """A factory of stores of one backend, valid inside the block."""
    if backend == "sqlite":
        yield lambda name, embedder: SQLiteStore(workdir / f"{_safe(name)}.db", embedder)
        return
    with _weaviate_stores() as open_store:
        yield open_store


@contextmanager
def _weaviate_stores() -> Iterator[OpenStore]:
    from cairn.memory.store.weaviate_store import WeaviateStore, connect_client
    from tests.weaviate_server import serving

    with serving() as server:
        client = connect_client(server.url, server.grpc_port)
        salt, prefixes = uuid.uuid4().hex, []  # a server someone gave us may hold a bench's old run

        def open_store(name: str, embedder: Embedder) -> MemoryStore:
            prefixes.append("Bench" + hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()[:12])
            return WeaviateStore.from_client(client, embedder, collection_prefix=prefixes[-1])

        try:
            yield open_store
        finally:
            client.collections.delete([f"{p}{group}" for p in prefixes for group in ("Evidence", "Memory")])
            client.close()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
