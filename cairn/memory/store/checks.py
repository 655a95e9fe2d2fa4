"""Input checks every store backend applies before it writes or searches anything.

>>> check_vectors([[3.0, 4.0]], dim=2, count=1).tolist()
[[0.6000000238418579, 0.800000011920929]]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cairn.core import Memory
from cairn.memory.store.protocol import MAX_TEXT_CHARS, StoreError


def check_memories(memories: Sequence[Memory]) -> None:
    """Refuse records a store must not keep: empty or oversized text, no tenant or key."""
    for memory in memories:
        if not memory.content.strip():
            raise StoreError(f"memory {memory.key!r} has empty content")
        if len(memory.content) > MAX_TEXT_CHARS:
            raise StoreError(f"memory {memory.key!r} has {len(memory.content)} chars; max {MAX_TEXT_CHARS}")
        if memory.context and len(memory.context) > MAX_TEXT_CHARS:
            raise StoreError(
                f"memory {memory.key!r} has {len(memory.context)} chars of context; max {MAX_TEXT_CHARS}"
            )
        if not memory.tenant or not memory.key:
            raise StoreError("a memory needs a non-empty tenant and key")


def check_vectors(
    vectors: Sequence[Sequence[float]] | np.ndarray[Any, Any], dim: int, count: int
) -> np.ndarray[Any, Any]:
    """Validate and unit-normalise vectors as a (count, dim) float32 array."""
    if len(vectors) != count:
        raise StoreError(f"got {len(vectors)} vectors for {count} memories")
    try:
        array = np.asarray(vectors, dtype=np.float64).reshape(count, -1) if count else np.zeros((0, dim))
    except ValueError:
        raise StoreError(f"vectors must all have dimension {dim}") from None
    if array.shape[1] != dim:
        raise StoreError(f"vector dimension {array.shape[1]} does not match the embedder's {dim}")
    if not np.isfinite(array).all():
        raise StoreError("vectors contain NaN or infinite values")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    unit: np.ndarray[Any, Any] = (array / norms).astype(np.float32)
    return unit


def check_query_vector(vector: Sequence[float], dim: int) -> np.ndarray[Any, Any]:
    """One query vector, validated and unit-normalised."""
    if len(vector) != dim or not all(math.isfinite(float(x)) for x in vector):
        raise StoreError(f"query vector must have {dim} finite values")
    row: np.ndarray[Any, Any] = check_vectors([vector], dim, 1)[0]
    return row
