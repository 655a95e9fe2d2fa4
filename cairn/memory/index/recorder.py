"""Append first, then dispatch: the one way events enter a task.

`TaskRecorder.record(*events)` appends the events to `history.jsonl` in one fsync'd write, then
feeds each to the memory index and folds it into the `TaskState` it holds. Because listeners are
idempotent and deterministic, a crash between the two steps is repaired by `cairn reindex`.
"""

from __future__ import annotations

from cairn.memory.index.indexer import index
from cairn.memory.log.events import EVENT_ADAPTER, Event
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import TaskRepo
from cairn.memory.store.protocol import MemoryStore
from cairn.redact import redact_value


class TaskRecorder:
    def __init__(self, repo: TaskRepo, store: MemoryStore, secrets: tuple[str, ...] = ()) -> None:
        self.repo = repo
        self.store = store
        self.secrets = secrets
        self.state: TaskState = repo.state()

    def record(self, *events: Event) -> TaskState:
        """Record events that belong together: they reach the log in one write (all or none)."""
        clean = [redact_event(event, self.secrets) for event in events]
        for envelope in self.repo.append(*clean):
            index(self.store, self.state, envelope, self.repo.artifacts)
            self.state = self.state.apply(envelope.event)
            self.recorded(envelope.event, self.state)
        return self.state

    def recorded(self, event: Event, state: TaskState) -> None:
        """Called after each event is folded in; subclasses tell or watch (no-op here)."""

    def refresh(self) -> TaskState:
        """Re-read the log (another process may have appended)."""
        self.state = self.repo.state()
        return self.state


def redact_event(event: Event, secrets: tuple[str, ...]) -> Event:
    """The event with API keys and tokens replaced, so they never reach the log or the index."""
    data = EVENT_ADAPTER.dump_python(event, mode="json")
    clean = redact_value(data, known_secrets=secrets)
    return event if clean == data else EVENT_ADAPTER.validate_python(clean)
