"""Moved to `cairn.core`, split by concept (`cairn.core.tool_calls`, ...); kept until 0.5.

Task results pickled by Cairn 0.1 to 0.3 name these classes at this path (`cairn.memory.models.Evidence`,
and `memory.models.Evidence` through `cairn._legacy`), so each stays importable here: the same objects.
"""

from __future__ import annotations

from cairn import core
from cairn.core.artifacts import (
    ClassDoc,
    CodeReference,
    FileMetadata,
    FileReference,
    FileType,
    FunctionDoc,
    ParameterDoc,
)
from cairn.core.call_key import call_signature
from cairn.core.coverage_ledger import Coverage, LedgerCell, LedgerRow
from cairn.core.evidence_record import Evidence, EvidenceMetadata, EvidenceType
from cairn.core.frozen import Frozen, JsonScalar, JsonValue, content_hash, now
from cairn.core.memories import Memory, MemoryKind, MemoryLevel, memory_key
from cairn.core.moved import moved
from cairn.core.task_kinds import TASK_TYPES, TaskStatus, TaskType
from cairn.core.tool_calls import (
    RERUN_AFTER_WRITE,
    CheckOutcome,
    Compression,
    IterationMode,
    IterationRecord,
    Outcome,
    PlannedCall,
    Progress,
    Relevance,
    ToolCall,
    main_argument,
)
from cairn.core.usage import CallCost, ModelCall, ModelProbe
from cairn.core.verdict import Claim, ClaimKind, ClaimStatus, FunctionCheck, PartCheck, QuotedLine, Verdict

__all__ = [
    "RERUN_AFTER_WRITE",
    "TASK_TYPES",
    "CallCost",
    "CheckOutcome",
    "Claim",
    "ClaimKind",
    "ClaimStatus",
    "ClassDoc",
    "CodeReference",
    "Compression",
    "Coverage",
    "Evidence",
    "EvidenceMetadata",
    "EvidenceType",
    "FileMetadata",
    "FileReference",
    "FileType",
    "Frozen",
    "FunctionCheck",
    "FunctionDoc",
    "IterationMode",
    "IterationRecord",
    "JsonScalar",
    "JsonValue",
    "LedgerCell",
    "LedgerRow",
    "Memory",
    "MemoryKind",
    "MemoryLevel",
    "ModelCall",
    "ModelProbe",
    "Outcome",
    "ParameterDoc",
    "PartCheck",
    "PlannedCall",
    "Progress",
    "QuotedLine",
    "Relevance",
    "TaskStatus",
    "TaskType",
    "ToolCall",
    "Verdict",
    "call_signature",
    "content_hash",
    "main_argument",
    "memory_key",
    "now",
]

moved(__name__, core)
