"""A record of the memory index (`Memory`) and its hierarchical key.

>>> memory_key("use pyproject.toml", "python", "coding_task")
'python:coding_task:beab83d39b88a5c9'
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from cairn.core.frozen import Frozen, content_hash, now
from cairn.core.fsnames import displayable

MemoryKind = Literal[
    "evidence", "constraint", "hot_issue", "document_chunk", "fact", "preference", "insight", "iteration"
]
MemoryLevel = Literal["working", "episodic", "semantic", "procedural"]


class Memory(Frozen):
    """A searchable record of the memory index (layer 2).

    `key` is hierarchical, `{domain}:{task_type}:{sha256(content)[:16]}` (see `memory_key`), so the
    same content in the same domain and task type is one memory; `agents` records who stored it.
    `tenant` is the task id, or `shared` for cross-task learning. `context` is text around the
    record that helps find it without being it (a dialog turn's neighbouring turns): keyword search
    weighs its words below `content`'s (`cairn.memory.store.fusion.CONTEXT_WEIGHT`), and it is never embedded.
    """

    key: str
    kind: MemoryKind
    content: str
    tenant: str
    domain: str = "general"
    task_type: str = "general"
    subtype: str | None = None  # evidence type for kind="evidence"
    level: MemoryLevel = "episodic"
    active: bool = True
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str | None = None
    file_path: str | None = None
    thread_id: str | None = None
    agents: list[str] = Field(default_factory=list)
    access_count: int = 0
    created_at: float = Field(default_factory=now)
    updated_at: float = Field(default_factory=now)
    expires_at: float | None = None
    context: str | None = None

    @field_validator("key", "content", "source", "file_path", "context")
    @classmethod
    def _valid_unicode(cls, value: str | None) -> str | None:
        # A name that is not UTF-8 (lone surrogates) as `\xNN`: stores hold valid Unicode only.
        return displayable(value) if value else value


def memory_key(content: str, domain: str | None = None, task_type: str | None = None) -> str:
    """Hierarchical memory key: domain, task type, content hash (docs/design.md, "Memory intelligence")."""
    return f"{_key_part(domain)}:{_key_part(task_type)}:{content_hash(content)}"


def _key_part(part: str | None) -> str:
    cleaned = (part or "general").strip().lower().replace(":", "_")
    return cleaned or "general"
