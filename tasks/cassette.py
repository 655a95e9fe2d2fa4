"""Cassettes: record every model reply of a run, and play them back to reproduce it exactly.

A cassette is JSONL, one line per model request (each retry attempt is its own request), with the
call kind, its occurrence index among calls of that kind, a hash of the request messages, and the
reply text, usage and finish reason, or the provider error the request raised.

Replay is keyed by (kind, occurrence): the third `compress` request gets the third recorded
`compress` reply, so calls of different kinds may interleave differently (parallel compression)
without breaking a replay. With `match="request"` (the default) the request hash is verified too,
so a prompt that changed since recording is a clear error naming the call; `match="kind"` skips
that check for prompts that legitimately differ (timestamps, paths of a temporary workspace).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> rec = CassetteRecorder(path, model="cairn/offline")
>>> rec.record("plan", [{"role": "user", "content": "x"}], Reply(text='{"a": 1}'))
>>> CassettePlayer(path).play("plan", [{"role": "user", "content": "x"}]).text
'{"a": 1}'
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tasks.schemas import CallKind

Match = Literal["request", "kind"]


class CassetteError(RuntimeError):
    """A replay that cannot reproduce the run: exhausted cassette or changed request."""


class Reply(BaseModel):
    """What a model request produced, whatever served it (litellm, a cassette)."""

    model_config = ConfigDict(frozen=True)

    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0
    finish_reason: str = "stop"


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
    """Writes each request's reply as one JSONL line (the file is started afresh)."""

    def __init__(self, path: str | Path, model: str) -> None:
        self.path = Path(path)
        self.model = model
        self._position = 0
        self._seen: defaultdict[str, int] = defaultdict(int)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("", encoding="utf-8")

    def record(
        self, kind: CallKind, messages: list[dict[str, str]], reply: Reply | None, error: str | None = None
    ) -> None:
        entry = CassetteEntry(
            position=self._position,
            kind=kind,
            occurrence=self._seen[kind],
            request_hash=request_hash(messages),
            model=self.model,
            reply=reply,
            error=error,
        )
        self._position += 1
        self._seen[kind] += 1
        # fsync: a cassette is most useful for bug reports of runs that crashed.
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(entry.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())


class CassettePlayer:
    """Plays a recorded cassette back, by (kind, occurrence)."""

    def __init__(self, path: str | Path, match: Match = "request") -> None:
        self.path = Path(path)
        self.match = match
        self.entries = load_cassette(self.path)
        self._by_kind: defaultdict[str, list[CassetteEntry]] = defaultdict(list)
        for entry in self.entries:
            self._by_kind[entry.kind].append(entry)
        self._next: defaultdict[str, int] = defaultdict(int)
        self._position = 0

    @property
    def model(self) -> str | None:
        """The model the cassette was recorded with (None for an empty cassette)."""
        return self.entries[0].model if self.entries else None

    def play(self, kind: CallKind, messages: list[dict[str, str]]) -> CassetteEntry:
        """The recorded entry for this request; raises CassetteError when it cannot match."""
        index = self._next[kind]
        recorded = self._by_kind[kind]
        where = f"call #{self._position} ({kind} #{index}) of {self.path.name}"
        if index >= len(recorded):
            raise CassetteError(
                f"cassette exhausted at {where}: only {len(recorded)} {kind} replies recorded"
            )
        entry = recorded[index]
        digest = request_hash(messages)
        if self.match == "request" and digest != entry.request_hash:
            raise CassetteError(
                f"cassette mismatch at {where}: request hash {digest} != recorded {entry.request_hash} "
                f"(recorded position {entry.position}); the prompt changed since recording - "
                "re-record, or replay with match='kind'"
            )
        self._next[kind] += 1
        self._position += 1
        return entry


def load_cassette(path: Path) -> list[CassetteEntry]:
    """All entries of a cassette file, in recorded order."""
    if not path.is_file():
        raise CassetteError(f"cassette not found: {path}")
    entries: list[CassetteEntry] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                entries.append(CassetteEntry.model_validate_json(line))
            except ValueError as exc:
                raise CassetteError(
                    f"{path.name}:{number}: not a cassette entry ({type(exc).__name__})"
                ) from exc
    return entries
