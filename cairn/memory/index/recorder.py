"""Append first, then dispatch: the one way events enter a task.

`TaskRecorder.record(*events)` appends the events to `history.jsonl` in one fsync'd write, then
feeds each to the memory index and folds it into the `TaskState` it holds. Because listeners are
idempotent and deterministic, a crash between the two steps is repaired by `cairn reindex`.

`refresh()` folds in only what was appended since it last looked (an iteration run by another
recorder of the same task, `cairn feedback` from another process): its cost does not grow with
the history behind it.
"""

from __future__ import annotations

from cairn.core import EVENT_ADAPTER, Event
from cairn.memory.index.indexer import index
from cairn.memory.log.history import HistoryError
from cairn.memory.log.state import TaskState, replay
from cairn.memory.log.workspace import TaskRepo
from cairn.memory.store.protocol import MemoryStore
from cairn.redact import redact_value


class TaskRecorder:
    def __init__(self, repo: TaskRepo, store: MemoryStore, secrets: tuple[str, ...] = ()) -> None:
        self.repo = repo
        self.store = store
        self.secrets = secrets
        self.state: TaskState = TaskState()
        self._seq = 0  # the last line folded into `state`
        self._offset = 0  # where the log's unread lines start (every line before it was read)
        self.refresh()

    def record(self, *events: Event) -> TaskState:
        """Record events that belong together: they reach the log in one write (all or none)."""
        clean = [redact_event(event, self.secrets) for event in events]
        appended = self.repo.append(*clean)
        if appended and appended[0].seq != self._seq + 1:
            self.refresh()  # another process appended before these: fold its lines in first
        for envelope in appended:
            if envelope.seq <= self._seq:
                continue
            index(self.store, self.state, envelope, self.repo.artifacts)
            self.state = self.state.apply(envelope.event)
            self._seq = envelope.seq
            self.recorded(envelope.event, self.state)
        return self.state

    def adopt(self, other: TaskRecorder) -> None:
        """Take over another recorder of the same task: its log, index, state and place in the log."""
        self.repo, self.store, self.secrets = other.repo, other.store, other.secrets
        self.state, self._seq, self._offset = other.state, other._seq, other._offset

    def recorded(self, event: Event, state: TaskState) -> None:
        """Called after each event is folded in; subclasses tell or watch (no-op here)."""

    def refresh(self) -> TaskState:
        """Fold in the lines appended since the last look (another process may have appended)."""
        try:
            envelopes, offset = self.repo.history.read_after(self._offset)
        except HistoryError:
            return self._reread()  # a damaged last line: the full read reports or cuts it
        if envelopes and envelopes[0].seq > self._seq + 1 and self._seq:
            return self._reread()  # a line went missing between two looks: start over
        for envelope in envelopes:
            if envelope.seq == self._seq + 1:
                self.state = self.state.apply(envelope.event)
                self._seq = envelope.seq
            elif envelope.seq > self._seq + 1:
                return self._reread()
        self._offset = offset
        return self.state

    def _reread(self) -> TaskState:
        log = self.repo.read()
        self.state = replay(log.events)
        self._seq = log.envelopes[-1].seq if log.envelopes else 0
        self._offset = self.repo.history.read_after(0)[1]
        return self.state


def redact_event(event: Event, secrets: tuple[str, ...]) -> Event:
    """The event with API keys and tokens replaced, so they never reach the log or the index."""
    data = EVENT_ADAPTER.dump_python(event, mode="json")
    clean = redact_value(data, known_secrets=secrets)
    return event if clean == data else EVENT_ADAPTER.validate_python(clean)
