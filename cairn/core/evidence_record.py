"""Evidence: a fact about a task's progress, how sure it is, and the call or check it came from.

>>> Evidence(type="synthesis", content="Answer written", source="call-1-0").confidence
1.0
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from cairn.core.artifacts import FileType
from cairn.core.frozen import Frozen, content_hash, now

EvidenceType = Literal[
    "file_creation", "code_implementation", "documentation", "synthesis", "execution", "validation"
]


class EvidenceMetadata(Frozen):
    file_path: str | None = None
    file_type: FileType | None = None
    language: str | None = None
    size: int | None = None
    function_count: int | None = None
    documented_share: float | None = None  # share of public functions with docstrings
    cites: list[str] = Field(default_factory=list)  # sources a document cites
    tool: str | None = None
    passed: int | None = None
    failed: int | None = None


class Evidence(Frozen):
    """A fact about progress, with its confidence and where it came from."""

    evidence_id: str = ""
    type: EvidenceType
    content: str
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str  # call id or validation id
    iteration: int = 0
    timestamp: float = Field(default_factory=now)
    metadata: EvidenceMetadata = EvidenceMetadata()

    def model_post_init(self, __context: Any) -> None:
        if not self.evidence_id:
            ident = content_hash(f"{self.type}|{self.source}|{self.content}", 12)
            object.__setattr__(self, "evidence_id", f"ev-{ident}")
