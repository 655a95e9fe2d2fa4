"""Plain data: the frozen pydantic base every record of Cairn's derives from, JSON values, time, hashes.

>>> class Note(Frozen):
...     text: str
>>> Note(text="hi").text, content_hash("hi", 8)
('hi', '8f434346')
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from pydantic import BaseModel, ConfigDict

# A tool argument or a metadata value: JSON scalars and lists of them.
JsonScalar = str | int | float | bool | None
JsonValue = JsonScalar | list[Any] | dict[str, Any]


def now() -> float:
    """Seconds since the epoch; one place so tests can reason about time."""
    return time.time()


def content_hash(text: str, length: int = 16) -> str:
    """Stable short hash of content (sha256 hex prefix)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
