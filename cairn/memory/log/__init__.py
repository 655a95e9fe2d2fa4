"""The workspace and each task's event log: events, the hash-chained history, and the state folded
from it.
"""

from __future__ import annotations

from cairn.core import (
    EVENT_ADAPTER,
    BudgetSet,
    ConstraintExtracted,
    ConstraintRetired,
    Envelope,
    Event,
    EvidenceRecorded,
    FileRecorded,
    GoalSplit,
    IterationCompleted,
    IterationStarted,
    ModelCallRecorded,
    ModelProbed,
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
from cairn.memory.log.history import HistoryError, HistoryTampered, Replay
from cairn.memory.log.state import CallStart, Constraint, HotIssue, TaskState, replay, update_hot_issues
from cairn.memory.log.workspace import TaskRepo, Workspace, WorkspaceError, check_task_id, new_task_id

__all__ = [
    "EVENT_ADAPTER",
    "BudgetSet",
    "CallStart",
    "Constraint",
    "ConstraintExtracted",
    "ConstraintRetired",
    "Envelope",
    "Event",
    "EvidenceRecorded",
    "FileRecorded",
    "GoalSplit",
    "HistoryError",
    "HistoryTampered",
    "HotIssue",
    "IterationCompleted",
    "IterationStarted",
    "ModelCallRecorded",
    "ModelProbed",
    "PlanRecorded",
    "Replay",
    "ReviewDecided",
    "TaskCreated",
    "TaskFinished",
    "TaskRepo",
    "TaskState",
    "ToolCallRecorded",
    "ToolCallStarted",
    "ToolsConfigured",
    "UncertainCallResolved",
    "UserMessage",
    "ValidationRecorded",
    "Workspace",
    "WorkspaceError",
    "check_task_id",
    "new_task_id",
    "replay",
    "update_hot_issues",
]
