"""The ground floor: the vocabulary every room of Cairn speaks, and nothing else.

Plain, frozen data and the errors Cairn explains, split by concept: a task's kinds
(`task_kinds`), a call's identity (`call_key`), what model calls cost (`usage`), the calls of an
iteration (`tool_calls`), the files a task wrote (`artifacts`), evidence (`evidence_record`), the
verdict and its proof (`verdict`), coverage (`coverage_ledger`), memory records (`memories`), the
events of a task's history (`events`), a task's tools (`tool_config`), a run's configuration
(`run_config`), names that are not UTF-8 (`fsnames`) and the errors (`errors`). It imports no other
room of Cairn: `cairn.flows`, `cairn.tasks` and `cairn.memory` all stand on it.

>>> from cairn.core import CallKey, Evidence, RunConfig
>>> str(CallKey(task_id="t", iteration=1, index=0, kind="tool")), RunConfig(workspace="ws").beam
('t/1/0/tool', 3)
"""

from __future__ import annotations

from cairn.core.action_plan import ActionChecked, ActionsPlanned, ActStep
from cairn.core.artifacts import (
    ClassDoc,
    CodeReference,
    FileMetadata,
    FileReference,
    FileType,
    FunctionDoc,
    ParameterDoc,
)
from cairn.core.call_key import CallKey, call_signature
from cairn.core.coverage_ledger import Coverage, LedgerCell, LedgerRow
from cairn.core.errors import CairnError, NotFound, UsageError
from cairn.core.events import (
    EVENT_ADAPTER,
    BudgetSet,
    ConstraintExtracted,
    ConstraintRetired,
    CoverageRecorded,
    Envelope,
    Event,
    EvidenceRecorded,
    FileRecorded,
    GoalSplit,
    IterationCompleted,
    IterationStarted,
    ModelCallRecorded,
    ModelProbed,
    PieceChecked,
    PlanRecorded,
    ReviewDecided,
    TaskCreated,
    TaskFinished,
    ToolCallRecorded,
    ToolCallStarted,
    ToolsConfigured,
    UncertainCallResolved,
    UserMessage,
    ValidationRecorded,
)
from cairn.core.evidence_record import Evidence, EvidenceMetadata, EvidenceType
from cairn.core.frozen import Frozen, JsonScalar, JsonValue, content_hash, now
from cairn.core.fsnames import displayable, displayable_data, from_displayable, has_surrogates
from cairn.core.memories import Memory, MemoryKind, MemoryLevel, memory_key
from cairn.core.run_config import ResponseFormat, RunConfig, RunSettings
from cairn.core.task_kinds import STRATEGIES, TASK_TYPES, SourceSkip, StrategyName, TaskStatus, TaskType
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
from cairn.core.tool_config import McpServerConfig, PythonToolConfig, ToolsConfig
from cairn.core.usage import CallCost, ModelCall, ModelProbe
from cairn.core.verdict import (
    Claim,
    ClaimKind,
    ClaimStatus,
    Disagreement,
    FunctionCheck,
    ModelJudgement,
    PartCheck,
    PartStatus,
    QuotedLine,
    Verdict,
)

__all__ = [
    "EVENT_ADAPTER",
    "RERUN_AFTER_WRITE",
    "STRATEGIES",
    "TASK_TYPES",
    "ActStep",
    "ActionChecked",
    "ActionsPlanned",
    "BudgetSet",
    "CairnError",
    "CallCost",
    "CallKey",
    "CheckOutcome",
    "Claim",
    "ClaimKind",
    "ClaimStatus",
    "ClassDoc",
    "CodeReference",
    "Compression",
    "ConstraintExtracted",
    "ConstraintRetired",
    "Coverage",
    "CoverageRecorded",
    "Disagreement",
    "Envelope",
    "Event",
    "Evidence",
    "EvidenceMetadata",
    "EvidenceRecorded",
    "EvidenceType",
    "FileMetadata",
    "FileRecorded",
    "FileReference",
    "FileType",
    "Frozen",
    "FunctionCheck",
    "FunctionDoc",
    "GoalSplit",
    "IterationCompleted",
    "IterationMode",
    "IterationRecord",
    "IterationStarted",
    "JsonScalar",
    "JsonValue",
    "LedgerCell",
    "LedgerRow",
    "McpServerConfig",
    "Memory",
    "MemoryKind",
    "MemoryLevel",
    "ModelCall",
    "ModelCallRecorded",
    "ModelJudgement",
    "ModelProbe",
    "ModelProbed",
    "NotFound",
    "Outcome",
    "ParameterDoc",
    "PartCheck",
    "PartStatus",
    "PieceChecked",
    "PlanRecorded",
    "PlannedCall",
    "Progress",
    "PythonToolConfig",
    "QuotedLine",
    "Relevance",
    "ResponseFormat",
    "ReviewDecided",
    "RunConfig",
    "RunSettings",
    "SourceSkip",
    "StrategyName",
    "TaskCreated",
    "TaskFinished",
    "TaskStatus",
    "TaskType",
    "ToolCall",
    "ToolCallRecorded",
    "ToolCallStarted",
    "ToolsConfig",
    "ToolsConfigured",
    "UncertainCallResolved",
    "UsageError",
    "UserMessage",
    "ValidationRecorded",
    "Verdict",
    "call_signature",
    "content_hash",
    "displayable",
    "displayable_data",
    "from_displayable",
    "has_surrogates",
    "main_argument",
    "memory_key",
    "now",
]
