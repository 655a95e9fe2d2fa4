"""The `MemoryStore` contract as a pytest suite that any backend can run, Cairn's own and yours.

The semantics in `cairn.memory.store.protocol` are what callers rely on whichever backend holds
the records, so a backend of your own should pass the same tests as Cairn's. Subclass
`StoreContract` in a test file and say how to make a fresh, empty store; pytest collects every
test of the suite for it:

    from pathlib import Path

    from cairn.memory.embed.embeddings import Embedder
    from cairn.memory.store.contract import StoreContract
    from cairn.memory.store.protocol import MemoryStore
    from my_store import MyStore


    class TestMyStore(StoreContract):
        def make_store(self, tmp_path: Path, embedder: Embedder) -> MemoryStore:
            return MyStore(tmp_path / "memory.db", embedder)

The store must embed with the `embedder` it is given (64 dimensions; the bad-vector tests count on
it), and is closed after each test. A backend that needs other fixtures, or clean-up after `close`,
overrides the `store` fixture instead, as Cairn's live Weaviate class does
(`tests/contract/test_store_contract.py`).

This module imports pytest, a test-time dependency, so nothing in `cairn` imports it
(`tests/unit/project/test_layout.py`). The tests are in `_contract_suite`, registered here for pytest's
assert rewriting before they are imported: a failing test shows the values it compared, as the
asserts of a test file do.
"""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("cairn.memory.store._contract_suite")

from cairn.memory.store._contract_suite import StoreContract  # noqa: E402  (after the registration)

__all__ = ["StoreContract"]
