"""Cassettes: record every model reply of a run, and play them back to reproduce it exactly.

A cassette is JSONL, one line per model request (each retry attempt is its own request), with the
call kind, its occurrence index among calls of that kind, a hash of the request messages, and the
reply text, usage and finish reason, or the provider error the request raised.

Replay with `match="request"` (the default) hands each request the first unplayed reply recorded
for the same kind and request hash, so calls of one kind may arrive in another order (parallel
compression) and a prompt that changed since recording is a clear error naming the call. With
`match="kind"` the request is not checked: the next unplayed reply of that kind is played (for
prompts that legitimately differ: timestamps, paths of a temporary workspace).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> rec = CassetteRecorder(path, model="cairn/offline")
>>> rec.record("plan", [{"role": "user", "content": "x"}], Reply(text='{"a": 1}'))
>>> CassettePlayer(path).play("plan", [{"role": "user", "content": "x"}]).reply.text
'{"a": 1}'
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from cairn.core import CairnError
from cairn.tasks.messages.schemas import CallKind

Match = Literal["request", "kind"]


class CassetteError(CairnError):
    """A replay that cannot reproduce the run: exhausted cassette or changed request."""


class Reply(BaseModel):
    """What a model request produced, whatever served it (litellm, a cassette)."""

    model_config = ConfigDict(frozen=True)

    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0
    finish_reason: str = "stop"
    # The first token's likeliest alternatives and their log-probabilities, where asked for (a
    # `judge` call's yes or no).
    first_token: dict[str, float] = {}

    @model_serializer(mode="wrap")
    def _without_empty_odds(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Cassettes recorded before judging stay byte for byte what they were.
        dumped: dict[str, Any] = handler(self)
        if not dumped.get("first_token"):
            dumped.pop("first_token", None)
        return dumped


class CassetteEntry(BaseModel):
    """One line of a cassette."""

    position: int  # order of the request in the recorded run, from 0
    kind: CallKind
    occurrence: int  # index among requests of the same kind, from 0
    request_hash: str
    model: str
    reply: Reply | None = None
    error: str | None = None  # the one-line provider error, when the request raised


def request_hash(messages: list[dict[str, str]]) -> str:
    """A short, stable hash of the request messages (role and content only)."""
    canonical = [{"role": m.get("role", ""), "content": m.get("content", "")} for m in messages]
    blob = json.dumps(canonical, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class CassetteRecorder:
    """Appends each request's reply as one JSONL line; thread-safe.

    An existing file is continued, never truncated: its positions and per-kind occurrences carry
    on, so the processes of one task (run, feedback, resume) can share a cassette. Use a fresh
    path to record a fresh run. Get recorders through `recorder_for` so that every client of a
    process writing to one path shares one set of counters.
    """

    def __init__(self, path: str | Path, model: str) -> None:
        self.path = Path(path)
        self.model = model
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existing = load_cassette(self.path) if self.path.is_file() else []
        self._position = len(existing)
        self._seen: Counter[str] = Counter(entry.kind for entry in existing)

    def record(
        self, kind: CallKind, messages: list[dict[str, str]], reply: Reply | None, error: str | None = None
    ) -> None:
        digest = request_hash(messages)
        with self._lock:
            entry = CassetteEntry(
                position=self._position,
                kind=kind,
                occurrence=self._seen[kind],
                request_hash=digest,
                model=self.model,
                reply=reply,
                error=error,
            )
            self._position += 1
            self._seen[kind] += 1
            # fsync: a cassette is most useful for debugging a run that crashed.
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(entry.model_dump_json() + "\n")
                handle.flush()
                os.fsync(handle.fileno())


class CassettePlayer:
    """Plays a recorded cassette back; thread-safe.

    `match="request"`: the first unplayed entry of the same kind and request hash, so concurrent
    calls of one kind (parallel compression) may arrive in any order. `match="kind"`: the next
    unplayed entry of the kind, whatever the request. Each entry plays once.
    """

    def __init__(self, path: str | Path, match: Match = "request") -> None:
        self.path = Path(path)
        self.match = match
        self.entries = load_cassette(self.path)
        self._played: set[int] = set()
        self._calls: Counter[str] = Counter()
        self._position = 0
        self._lock = threading.Lock()

    @property
    def model(self) -> str | None:
        """The model the cassette was recorded with (None for an empty cassette)."""
        return self.entries[0].model if self.entries else None

    def play(self, kind: CallKind, messages: list[dict[str, str]]) -> CassetteEntry:
        """The recorded entry for this request; raises CassetteError when none matches."""
        digest = request_hash(messages)
        with self._lock:
            where = f"call #{self._position} ({kind} #{self._calls[kind]}) of {self.path.name}"
            self._position += 1
            self._calls[kind] += 1
            unplayed = [e for e in self.entries if e.kind == kind and e.position not in self._played]
            if not unplayed:
                recorded = sum(1 for e in self.entries if e.kind == kind)
                raise CassetteError(f"cassette exhausted at {where}: only {recorded} {kind} replies recorded")
            same = [e for e in unplayed if e.request_hash == digest]
            if self.match == "request" and not same:
                raise CassetteError(
                    f"cassette mismatch at {where}: no recorded {kind} request has hash {digest} (next "
                    f"recorded {kind} is position {unplayed[0].position}, hash {unplayed[0].request_hash}); "
                    "the prompt changed since recording - re-record, or replay with match='kind'"
                )
            entry = same[0] if self.match == "request" else unplayed[0]
            self._played.add(entry.position)
            return entry


_SHARED_LOCK = threading.Lock()
_RECORDERS: dict[Path, CassetteRecorder] = {}
_PLAYERS: dict[tuple[Path, str], CassettePlayer] = {}


def recorder_for(path: str | Path, model: str) -> CassetteRecorder:
    """The process-wide recorder of a cassette path (one set of counters per file)."""
    key = Path(path).resolve()
    with _SHARED_LOCK:
        recorder = _RECORDERS.get(key)
        if recorder is None or recorder.model != model:
            recorder = _RECORDERS[key] = CassetteRecorder(key, model)
        return recorder


def player_for(path: str | Path, match: Match = "request") -> CassettePlayer:
    """The process-wide player of a cassette path, so every client of a run replays one tape."""
    key = (Path(path).resolve(), match)
    with _SHARED_LOCK:
        if key not in _PLAYERS:
            _PLAYERS[key] = CassettePlayer(key[0], match)
        return _PLAYERS[key]


def forget_cassettes() -> None:
    """Drop the shared recorders and players (tests; a new run in the same process)."""
    with _SHARED_LOCK:
        _RECORDERS.clear()
        _PLAYERS.clear()


def records(path: Path, kind: CallKind) -> bool:
    """Whether a cassette recorded any call of `kind` (a replay answers only what was recorded)."""
    try:
        return any(entry.kind == kind for entry in load_cassette(path))
    except CassetteError:
        return False


def load_cassette(path: Path) -> list[CassetteEntry]:
    """All entries of a cassette file, in recorded order."""
    if not path.is_file():
        raise CassetteError(f"cassette not found: {path}")
    entries: list[CassetteEntry] = []
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if line.strip():
            entries.append(_entry(path, number, line))
    return entries


def _entry(path: Path, number: int, line: bytes) -> CassetteEntry:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CassetteError(
            f"{path}:{number}: not UTF-8 (byte 0x{line[exc.start]:02x} at column {exc.start + 1})"
        ) from None
    try:
        return CassetteEntry.model_validate_json(line)
    except ValueError as exc:
        raise CassetteError(f"{path}:{number}: not a cassette entry ({type(exc).__name__})") from None
