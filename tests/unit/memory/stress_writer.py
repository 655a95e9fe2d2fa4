"""A child process for the store stress test: one acknowledged write at a time, printed as it lands.

    python -m tests.unit.memory.stress_writer DB PREFIX COUNT SHARED_KEYS

Writes COUNT records of its own (`PREFIX-i`). Every tenth write also stores one of SHARED_KEYS
records common to every writer (agent PREFIX) and counts an access to it. Prints `own KEY` once
an upsert has returned and `access KEY` once a `record_access` has, so the parent knows exactly
what was acknowledged.
"""

from __future__ import annotations

import sys

from cairn.core import Memory
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.sqlite_store import SQLiteStore

DIM = 16
TENANT = "stress"


def main(path: str, prefix: str, count: int, shared: int) -> None:
    store = SQLiteStore(path, HashingEmbedder(dim=DIM))
    out = sys.stdout
    for i in range(count):
        key = f"{prefix}-{i}"
        store.upsert([Memory(key=key, kind="fact", content=f"record {i} by {prefix}", tenant=TENANT)])
        out.write(f"own {key}\n")
        if i % 10 == 0:
            common = f"shared-{(i // 10) % shared}"
            text = f"the shared fact number {common}"
            store.upsert([Memory(key=common, kind="fact", content=text, tenant=TENANT, agents=[prefix])])
            store.record_access([common], TENANT)
            out.write(f"access {common}\n")
        out.flush()  # after each acknowledged write: a line printed is a write committed
    store.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
