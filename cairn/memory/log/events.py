"""Moved to `cairn.core.events`; kept until 0.5, so that what names the old path still imports."""

from __future__ import annotations

from cairn.core import events
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
from cairn.core.moved import moved

__all__ = [
    "EVENT_ADAPTER",
    "BudgetSet",
    "ConstraintExtracted",
    "ConstraintRetired",
    "CoverageRecorded",
    "Envelope",
    "Event",
    "EvidenceRecorded",
    "FileRecorded",
    "GoalSplit",
    "IterationCompleted",
    "IterationStarted",
    "ModelCallRecorded",
    "ModelProbed",
    "PlanRecorded",
    "ReviewDecided",
    "TaskCreated",
    "TaskFinished",
    "ToolCallRecorded",
    "ToolCallStarted",
    "ToolsConfigured",
    "UncertainCallResolved",
    "UserMessage",
    "ValidationRecorded",
]

moved(__name__, events)
