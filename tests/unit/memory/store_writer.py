"""A child process for the durability tests: upserts records one acknowledged write at a time.

    python -m tests.unit.memory.store_writer DB PREFIX COUNT [SHARED_KEYS]

Prints each key once `upsert` has returned (that is, once the write is acknowledged). The first
SHARED_KEYS records use keys common to every writer, with this writer's PREFIX as agent.
"""

from __future__ import annotations

import sys

from cairn.core import Memory
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.sqlite_store import SQLiteStore

DIM = 16


def main(path: str, prefix: str, count: int, shared: int = 0) -> None:
    store = SQLiteStore(path, HashingEmbedder(dim=DIM), busy_timeout=10.0)
    for i in range(count):
        key = f"shared-{i}" if i < shared else f"{prefix}-{i}"
        text = f"record {i} written by {prefix} " + "lorem ipsum dolor " * 10
        store.upsert([Memory(key=key, kind="fact", content=text, tenant="t", agents=[prefix])])
        print(key, flush=True)
    store.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
