"""How a task's events enter the memory index: the recorder (append first, then index), the indexer
that turns events into records, sources chunked, files and code documented.
"""

from __future__ import annotations

from cairn.memory.index.code_docs import document_python, documented_share
from cairn.memory.index.directory_summary import summarize_directory
from cairn.memory.index.file_index import signature
from cairn.memory.index.indexer import reindex
from cairn.memory.index.recorder import TaskRecorder
from cairn.memory.index.sources import ensure_sources, source_tenant, source_tenants

__all__ = [
    "TaskRecorder",
    "document_python",
    "documented_share",
    "ensure_sources",
    "reindex",
    "signature",
    "source_tenant",
    "source_tenants",
    "summarize_directory",
]
