"""`history.jsonl`: an append-only, fsync'd, hash-chained event log.

Each line is an `Envelope`; its `hash` is sha256 over the previous line's hash and the canonical
JSON of the event, so a line changed in the middle breaks the chain (`verify`). Reading stops at a
torn or corrupt *last* line (a crash while appending), reports it and keeps everything before it;
the next append truncates that tail first so the log stays well formed.

>>> log = HistoryLog(Path("/tmp/h.jsonl"))  # doctest: +SKIP
>>> log.append(UserMessage(text="hi"))  # doctest: +SKIP
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticSerializationError

from cairn.core import EVENT_ADAPTER, CairnError, Envelope, Event

GENESIS = "0" * 64


class HistoryError(CairnError, ValueError):
    """The log cannot be read as written (tampering or corruption in the middle)."""

    exit_code = 3


class HistoryTampered(HistoryError):
    """An earlier line of the log was changed, removed or reordered (the hash chain breaks)."""


class Replay(BaseModel):
    """What reading a log found: the good events and, if any, the damaged tail it dropped."""

    model_config = ConfigDict(frozen=True)

    envelopes: list[Envelope]
    torn_tail: str | None = None  # one-line description of a dropped last line

    @property
    def events(self) -> list[Event]:
        return [e.event for e in self.envelopes]


class ChainCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    ok: bool
    lines: int
    problems: list[str]


def event_hash(prev: str, event: Event) -> str:
    return _hash(prev, EVENT_ADAPTER.dump_python(event, mode="json"))


def _hash(prev: str, event: Any) -> str:
    """The hash of an event as written (JSON data): a check hashes the line's own data, not the
    event re-dumped, or every field added since the line was written would read as tampering."""
    body = json.dumps(event, sort_keys=True, ensure_ascii=False)
    # surrogatepass: a file name that is not UTF-8 reaches us as lone surrogates (Python's
    # surrogateescape); hash them as they are, so the name is kept exactly (docs/design.md).
    return hashlib.sha256(f"{prev}\n{body}".encode("utf-8", "surrogatepass")).hexdigest()


def envelope_line(envelope: Envelope) -> bytes:
    """One line of the log. Lone surrogates (a name that is not UTF-8) become JSON escapes
    (`\\udce9`): the line stays valid UTF-8 and reads back to the very same string."""
    try:
        return (envelope.model_dump_json() + "\n").encode("utf-8")
    except PydanticSerializationError:
        data = envelope.model_dump(mode="json")
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return (text + "\n").encode("utf-8", "backslashreplace")  # only surrogates need escaping


class HistoryLog:
    """The event log of one task."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, *events: Event) -> list[Envelope]:
        """Append the events under an exclusive lock (several processes, a run and `cairn feedback`,
        may write), in one write and one fsync: events that belong together (a call, the file it
        wrote, its evidence) land together, so a kill never leaves a call without its file."""
        with open(self.path, "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                seq, prev = self._tail(handle)
                envelopes: list[Envelope] = []
                for event in events:
                    seq, digest = seq + 1, event_hash(prev, event)
                    envelopes.append(Envelope(seq=seq, ts=time.time(), prev=prev, hash=digest, event=event))
                    prev = digest
                handle.seek(0, os.SEEK_END)
                handle.write(b"".join(envelope_line(e) for e in envelopes))
                handle.flush()
                os.fsync(handle.fileno())
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return envelopes

    def read(self) -> Replay:
        """All intact events; a damaged last line is reported, not raised."""
        if not self.path.exists():
            return Replay(envelopes=[])
        lines = self.path.read_bytes().split(b"\n")
        complete, last = lines[:-1], lines[-1]
        envelopes: list[Envelope] = []
        torn: str | None = f"torn last line ({len(last)} bytes without newline)" if last else None
        for number, raw in enumerate(complete, start=1):
            try:
                envelopes.append(_parse(raw))
            except HistoryError as exc:
                if number == len(complete) and not last:
                    torn = f"corrupt last line {number}: {exc}"
                    break
                raise HistoryError(f"{self.path}: line {number}: {exc}") from None
        return Replay(envelopes=envelopes, torn_tail=torn)

    def events(self) -> Iterator[Event]:
        yield from self.read().events

    def read_after(self, offset: int) -> tuple[list[Envelope], int]:
        """The intact lines from byte `offset` on, and the offset after the last of them: what
        another process appended since a reader last looked (a torn last line is left for later).
        """
        if not self.path.exists():
            return [], 0
        with open(self.path, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1
        envelopes = [_parse(raw) for raw in data[:end].split(b"\n")[:-1]] if end else []
        return envelopes, offset + end

    def verify(self) -> ChainCheck:
        """Check every line parses and chains to the one before it."""
        problems: list[str] = []
        prev, count = GENESIS, 0
        raw_lines = self.path.read_bytes().split(b"\n") if self.path.exists() else []
        for number, raw in enumerate(raw_lines, start=1):
            if not raw:
                continue
            count += 1
            try:
                env = _parse(raw)
            except HistoryError as exc:
                problems.append(f"line {number}: {exc}")
                continue
            if env.prev != prev:
                problems.append(f"line {number}: chain broken (prev hash does not match line before)")
            if env.hash != _hash(env.prev, json.loads(raw)["event"]):
                problems.append(f"line {number}: content changed (hash mismatch)")
            prev = env.hash
        return ChainCheck(ok=not problems, lines=count, problems=problems)

    def tampering(self) -> list[str]:
        """`verify`'s problems, each naming its line, except a damaged *last* line: that is what a
        crash while appending leaves (`read` reports it as `torn_tail`; the next append cuts it)."""
        problems = self.verify().problems
        if not problems:
            return []
        try:
            torn = self.read().torn_tail is not None
        except HistoryError:
            return problems  # damage in the middle: every problem counts
        last = f"line {_line_count(self.path.read_bytes())}:"
        return [p for p in problems if not (torn and p.startswith(last))]

    def _tail(self, handle: BinaryIO) -> tuple[int, str]:
        """(seq, hash) of the last intact line, cutting a damaged tail first (caller holds the lock)."""
        last = _last_line(handle)
        if last == b"":
            return 0, GENESIS
        if last is not None:
            try:
                env = _parse(last)
                return env.seq, env.hash
            except HistoryError:
                pass
        replay = self.read()  # rare: a torn or corrupt tail after a crash
        cut = _offset_after_lines(self.path.read_bytes(), len(replay.envelopes))
        handle.truncate(cut)
        if not replay.envelopes:
            return 0, GENESIS
        return replay.envelopes[-1].seq, replay.envelopes[-1].hash


def _last_line(handle: BinaryIO, block: int = 65536) -> bytes | None:
    """The last newline-terminated line, read backwards; None if the file does not end in one."""
    end = handle.seek(0, os.SEEK_END)
    if end == 0:
        return b""
    handle.seek(end - 1)
    if handle.read(1) != b"\n":
        return None
    pos, tail = end - 1, b""
    while pos > 0:
        start = max(0, pos - block)
        handle.seek(start)
        tail = handle.read(pos - start) + tail
        pos = start
        newline = tail.rfind(b"\n")
        if newline >= 0:
            return tail[newline + 1 :]
    return tail


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _offset_after_lines(data: bytes, count: int) -> int:
    offset = 0
    for _ in range(count):
        offset = data.index(b"\n", offset) + 1
    return offset


def _parse(raw: bytes) -> Envelope:
    try:
        return Envelope.model_validate_json(raw)
    except (ValidationError, ValueError) as exc:
        if b"\\ud" in raw:  # pydantic's parser refuses escaped lone surrogates; json does not
            try:
                return Envelope.model_validate(json.loads(raw))
            except (ValidationError, ValueError):
                pass
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise HistoryError(f"unreadable event ({first})") from None
