"""The indexer: a task's events in, memory records out (docs/design.md, "The event log is the source
of truth").

`records_for(state, envelope, artifacts)` is pure and deterministic (timestamps come from the
event's envelope), and upserts are idempotent by key, so `reindex` — drop the task's tenant and
replay the log — rebuilds exactly the same index.

A rule (`ConstraintExtracted`) goes to the `shared` tenant under a key of its text alone, so every
task that states it meets one record: `agents` lists the tasks that stated it and `access_count`
counts them. The count grows only when a task not yet among `agents` stores the rule, so a task
that repeats it, or a `reindex`, never inflates it (see `_count_new_statements`).

What a person says to a task (`UserMessage` with role `feedback`, or `review` from a review form) is
a dialog turn (`cairn.memory.dialog`) in the `shared` tenant: spoken by `user`, in the task's
thread (`thread_id` = task id), with the goal and the earlier messages as its context, and the
task in `agents`. Every later task searches `shared`, so it can find what was said to an earlier
one ("we agreed to use PostgreSQL"); the task itself searches `shared` too, so one copy serves both.

>>> from cairn.core import TaskCreated  # doctest: +SKIP
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cairn.core import (
    ConstraintExtracted,
    ConstraintRetired,
    Envelope,
    EvidenceRecorded,
    FileRecorded,
    Memory,
    ToolCallRecorded,
    UserMessage,
)
from cairn.memory.dialog import SUBTYPE, Turn, turn_memories
from cairn.memory.index.file_index import file_records
from cairn.memory.log.state import HotIssue, TaskState, replay, update_hot_issues
from cairn.memory.store.protocol import MemoryStore, SearchFilter
from cairn.redact import redact

SHARED = "shared"
# Roles of user messages indexed as conversation (the goal is the task itself, indexed elsewhere).
CONVERSATION_ROLES = frozenset({"feedback", "review"})
USER = "user"  # the speaker of a person's messages to a task


def records_for(state: TaskState, envelope: Envelope, artifacts: Path) -> list[Memory]:
    """The records one event adds or updates, given the state before it."""
    event, ts = envelope.event, envelope.ts
    base: dict[str, object] = {
        "tenant": state.task_id,
        "task_type": state.task_type,
        "created_at": ts,
        "updated_at": ts,
    }
    match event:
        case EvidenceRecorded():
            return [
                _task_memory(
                    state,
                    base,
                    "evidence",
                    ev.evidence_id,
                    content=ev.content,
                    subtype=ev.type,
                    confidence=ev.confidence,
                    source=ev.source,
                    file_path=ev.metadata.file_path,
                )
                for ev in event.evidence
            ]
        case ToolCallRecorded():
            call = event.call
            line = _task_memory(
                state,
                base,
                "iteration",
                call.call_id,
                content=call.one_line(),
                source=call.call_id,
                confidence=_RELEVANCE[call.relevance],
            )
            return [line, *_hot_issue_records(state, update_hot_issues(state.hot_issues, call), base)]
        case FileRecorded():
            return _file_records(event, artifacts, base)
        case UserMessage() if event.role in CONVERSATION_ROLES:
            return [_message_record(state, envelope, event)]
        case ConstraintExtracted(rule=str(rule), key=str(key)):
            shared = {**base, "tenant": SHARED, "agents": [state.task_id]}
            return [
                _memory(shared, key=key, kind="constraint", content=rule, level="semantic", domain="rules")
            ]
    return []


def _message_record(state: TaskState, envelope: Envelope, message: UserMessage) -> Memory:
    """A person's message as the last turn of the task's conversation: the goal and the earlier
    messages are the turns before it (its context)."""
    earlier = [Turn(speaker=USER, text=m.text, session=state.task_id) for m in state.messages]
    said = Turn(
        speaker=USER,
        text=message.text,
        turn_id=f"{state.task_id}:{envelope.seq}",
        session=state.task_id,
        when=datetime.fromtimestamp(envelope.ts, UTC).strftime("%-d %B, %Y"),  # "22 November, 2026"
        timestamp=envelope.ts,
    )
    turns = [*earlier, said]
    memory = turn_memories(turns, SHARED, domain="conversation", task_type=state.task_type)[-1]
    return memory.model_copy(update={"agents": [state.task_id]})


def _memory(base: dict[str, object], **fields: object) -> Memory:
    return Memory.model_validate({**base, **fields})


def _task_memory(
    state: TaskState, base: dict[str, object], kind: str, ident: str, **fields: object
) -> Memory:
    """A record of the task's own `kind` (evidence, a call, a hot issue): keyed by kind, task type and
    `ident`, in the domain named after its kind."""
    return _memory(base, key=f"{kind}:{state.task_type}:{ident}", kind=kind, domain=kind, **fields)


_RELEVANCE = {"high": 1.0, "medium": 0.6, "low": 0.3}


def _hot_issue_records(state: TaskState, issues: list[HotIssue], base: dict[str, object]) -> list[Memory]:
    before = {(h.check_id, h.active) for h in state.hot_issues}
    changed = [h for h in issues if (h.check_id, h.active) not in before]
    return [
        _task_memory(
            state,
            base,
            "hot_issue",
            f"{h.tool}:{h.check_id}",
            content=h.content,
            active=h.active,
            source=h.opened_by,
            level="working",
        )
        for h in changed
    ]


LEDGER = "ledger"  # a coverage goal's report: rows derived from sources already indexed


def _file_records(event: FileRecorded, artifacts: Path, base: dict[str, object]) -> list[Memory]:
    target = artifacts / event.file.path
    if not target.is_file() or event.file.metadata.purpose == LEDGER:
        return []  # the ledger's report grows every iteration: chunking it again would too
    # The file is read from disk, not from the (redacted) event: redact it so the index stays clean.
    text = redact(target.read_text(encoding="utf-8", errors="replace"))
    return file_records(event.file.path, text, base, event.file.created_by, event.file, event.code)


def index(store: MemoryStore, state: TaskState, envelope: Envelope, artifacts: Path) -> None:
    """Apply one event's records to the store (the live listener)."""
    records = records_for(state, envelope, artifacts)
    if isinstance(envelope.event, FileRecorded):
        _drop_stale_chunks(store, state, envelope.event.file.path, {r.key for r in records})
    if isinstance(envelope.event, ConstraintRetired):
        _retire(store, envelope.event.key)
        _retire_statements(store, state, envelope.event.key)
    if records:
        stated = _new_statements(store, state.task_id, records)
        store.upsert(records)
        _count_new_statements(store, stated)


def _new_statements(store: MemoryStore, task_id: str, records: list[Memory]) -> list[str]:
    """Keys of shared records this task has not stored before (it is not among their agents).

    Read before the upsert: only this task adds its own id to `agents`, so other tasks writing
    the same record at the same time cannot change the answer."""
    shared = [r.key for r in records if r.tenant == SHARED and r.kind == "constraint"]
    return [key for key in shared if task_id not in _agents(store.get(key, SHARED))]


def _agents(memory: Memory | None) -> list[str]:
    return memory.agents if memory is not None else []


def _count_new_statements(store: MemoryStore, keys: list[str]) -> None:
    # An increment in the store, not a read-modify-write here: on SQLite it is one UPDATE inside a
    # write transaction, so tasks in several processes stating the same rule at once lose no count.
    if keys:
        store.record_access(keys, SHARED)


def reindex(store: MemoryStore, envelopes: list[Envelope], artifacts: Path) -> int:
    """Rebuild a task's index from its log; returns the number of events replayed."""
    state = TaskState()
    if envelopes:
        first = replay([envelopes[0].event])
        store.delete_tenant(first.task_id)
    for envelope in envelopes:
        index(store, state, envelope, artifacts)
        state = state.apply(envelope.event)
    return len(envelopes)


def _drop_stale_chunks(store: MemoryStore, state: TaskState, path: str, keep: set[str]) -> None:

    old = store.list(SearchFilter(tenants=[state.task_id], kinds=["document_chunk"], file_path=path))
    stale = [m.key for m in old if m.key not in keep]
    if stale:
        store.delete(stale, state.task_id)


def _retire_statements(store: MemoryStore, state: TaskState, key: str) -> None:
    """Mark inactive the task's conversation turns that stated a rule now retired: what was said
    stays findable, but context no longer offers it as something to act on."""

    said = {f"{USER}: {c.message}" for c in state.constraints if c.key == key and c.message}
    where = SearchFilter(tenants=[SHARED], subtypes=[SUBTYPE], thread_id=state.task_id, active=True)
    stale = [m for m in store.list(where) if any(m.content.endswith(line) for line in said)]
    if stale:
        store.upsert([m.model_copy(update={"active": False}) for m in stale])


def _retire(store: MemoryStore, key: str) -> None:
    current = store.get(key, SHARED)
    if current is not None:
        store.upsert([current.model_copy(update={"active": False})])
