"""The workspace and each task's event log: the hash-chained history and the state folded from it.
The events themselves are the floor's vocabulary: import them from `cairn.core`.
"""

from __future__ import annotations

from cairn.memory.log.history import HistoryError, HistoryTampered, Replay
from cairn.memory.log.state import CallStart, Constraint, HotIssue, TaskState, replay, update_hot_issues
from cairn.memory.log.workspace import TaskRepo, Workspace, WorkspaceError, check_task_id, new_task_id

__all__ = [
    "CallStart",
    "Constraint",
    "HistoryError",
    "HistoryTampered",
    "HotIssue",
    "Replay",
    "TaskRepo",
    "TaskState",
    "Workspace",
    "WorkspaceError",
    "check_task_id",
    "new_task_id",
    "replay",
    "update_hot_issues",
]
