"""Property-based tests for the code that parses or folds untrusted input.

- history replay: a log written by Cairn, then cut anywhere and/or followed by junk (a crash, a
  full disk, a stray write), is read as a prefix of what was written, and folds into a state;
- memory keys: deterministic, `{domain}:{task_type}:{16 hex}`, whatever the domain and type say;
- the chunkers (`cairn/memory/index/chunking.py`) and the chunk records the indexer writes: every word of a
  file lands, in order, in one of its non-empty chunks;
- the model-JSON parser: arbitrary replies give a value or `ModelOutputError`, nothing else, and
  any JSON object survives being wrapped in prose and fences.

Path resolution has its own property test (`tests/unit/tasks/test_paths.py`). Each test is bounded
(`max_examples=200`, no deadline) so the suite stays fast; docs/security.md lists the sizes and
the measured durations.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cairn.core import (
    ConstraintExtracted,
    ConstraintRetired,
    Envelope,
    Event,
    FileRecorded,
    FileReference,
    IterationStarted,
    TaskCreated,
    TaskFinished,
    UserMessage,
    content_hash,
    memory_key,
)
from cairn.memory.index.chunking import CHUNK_CHARS, MAX_CHUNK_CHARS, chunk_text
from cairn.memory.index.indexer import records_for
from cairn.memory.log.history import HistoryError, HistoryLog
from cairn.memory.log.state import TaskState, replay
from cairn.tasks.model.failures import ModelOutputError
from cairn.tasks.model.salvage import parse_model_json

BOUNDED = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- history replay

texts = st.text(max_size=60)
keys = st.text(alphabet="abcdef0123456789:", min_size=1, max_size=20)
later_events: st.SearchStrategy[Event] = st.one_of(
    st.builds(UserMessage, text=texts, role=st.sampled_from(["goal", "feedback"])),
    st.builds(ConstraintExtracted, message=texts, rule=st.none() | texts, key=st.none() | keys),
    st.builds(ConstraintRetired, key=keys),
    st.builds(
        IterationStarted,
        iteration=st.integers(0, 50),
        mode=st.sampled_from(["fast", "deep"]),
        feedback=st.lists(texts, max_size=3),
    ),
    st.builds(
        TaskFinished,
        status=st.sampled_from(["complete", "stopped", "failed"]),
        stop_reason=texts,
        report_path=st.none() | texts,
    ),
)
logs = st.lists(later_events, max_size=8).map(
    lambda rest: [TaskCreated(task_id="t-1", goal="g", task_type="research_task"), *rest]
)


def write_log(directory: str, events: list[Event]) -> tuple[HistoryLog, list[Envelope], bytes]:
    log = HistoryLog(Path(directory) / "history.jsonl")
    written = [envelope for event in events for envelope in log.append(event)]
    return log, written, log.path.read_bytes()


def assert_prefix(log: HistoryLog, written: list[Envelope]) -> list[Envelope]:
    read = log.read().envelopes
    assert read == written[: len(read)]
    state = replay(e.event for e in read)  # the fold never raises on what the reader accepts
    assert isinstance(state, TaskState) and state == replay(e.event for e in written[: len(read)])
    return read


@BOUNDED
@given(events=logs, cut=st.floats(0, 1), junk=st.binary(max_size=120).map(lambda b: b.replace(b"\n", b"")))
def test_a_log_cut_anywhere_and_followed_by_junk_reads_as_a_prefix(
    events: list[Event], cut: float, junk: bytes
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        log, written, data = write_log(directory, events)
        log.path.write_bytes(data[: int(len(data) * cut)] + junk)
        read = assert_prefix(log, written)
        whole_lines = data[: int(len(data) * cut)].count(b"\n")
        assert len(read) == whole_lines  # every complete line before the damage is kept
        log.append(UserMessage(text="after the crash"))  # the next append repairs the tail
        assert log.verify().ok and log.read().torn_tail is None


@BOUNDED
@given(events=logs, cut=st.floats(0, 1), junk=st.binary(max_size=200))
def test_any_damage_at_the_end_reads_as_a_prefix_or_a_history_error(
    events: list[Event], cut: float, junk: bytes
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        log, written, data = write_log(directory, events)
        log.path.write_bytes(data[: int(len(data) * cut)] + junk)
        try:
            assert_prefix(log, written)
        except HistoryError:
            # Junk with newlines is several damaged lines: a bad line that is not the last one is
            # an error by design (it could be tampering), never a crash or a wrong state.
            assert b"\n" in junk


# ---------------------------------------------------------------- memory keys

KEY = re.compile(r"[^:]+:[^:]+:[0-9a-f]{16}")


@BOUNDED
@given(content=st.text(), domain=st.none() | st.text(), task_type=st.none() | st.text())
def test_memory_keys_are_deterministic_and_well_formed(
    content: str, domain: str | None, task_type: str | None
) -> None:
    key = memory_key(content, domain, task_type)
    assert key == memory_key(content, domain, task_type)
    assert KEY.fullmatch(key), key
    assert key.split(":")[2] == content_hash(content)
    assert memory_key(content + "x", domain, task_type) != key
    if domain is not None and domain.strip().lower() and ":" not in domain:
        assert key.split(":")[0] == domain.strip().lower()


# ---------------------------------------------------------------- chunks

# Words without digits, colons or '=' and at most 12 letters: no redaction pattern can match, so
# a chunk must hold exactly the file's words.
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz.,'", min_size=1, max_size=12)
# Long paragraphs too (a CSV, minified JSON has no blank line): up to ~20,000 characters.
long_paragraphs = st.integers(1, 2500).map(lambda n: " ".join(f"word{i}" for i in range(n)))
paragraphs = st.lists(words, min_size=1, max_size=60).map(" ".join) | long_paragraphs
gaps = st.sampled_from(["\n\n", "\n \n", "\n\n\n", "\r\n\r\n", "\n\t\n"])


@BOUNDED
@example(
    parts=[(" ".join(f"cell{i}" for i in range(3000)), "\n")], lead="", suffix=".csv"
)  # one 20 kB paragraph
# CPython's parser raises MemoryError (not SyntaxError) on a long line of bare names: found here.
@example(parts=[(" ".join(f"word{i}" for i in range(1493)), "\n\n")], lead="", suffix=".py")
@given(
    parts=st.lists(st.tuples(paragraphs, gaps), min_size=1, max_size=12),
    lead=st.sampled_from(["", "\n", "  \n\n", "# Title\n", "## Usage\n\n"]),
    suffix=st.sampled_from([".txt", ".md", ".py", ".csv"]),
)
def test_chunks_are_non_empty_and_cover_the_file(
    parts: list[tuple[str, str]], lead: str, suffix: str
) -> None:
    text = lead + "".join(p + gap for p, gap in parts)
    chunks = chunk_text(f"notes{suffix}", text)
    assert chunks and all(c.text.strip() for c in chunks)
    assert all(len(c.text) <= MAX_CHUNK_CHARS + CHUNK_CHARS for c in chunks)
    assert " ".join(c.text for c in chunks).split() == text.split()  # every word, in order
    assert all(1 <= c.line_start <= c.line_end <= text.count("\n") + 1 for c in chunks)


@BOUNDED
@given(parts=st.lists(st.tuples(paragraphs, gaps), min_size=1, max_size=6))
def test_indexed_chunk_records_cover_the_file(parts: list[tuple[str, str]]) -> None:
    text = "".join(p + gap for p, gap in parts)
    with tempfile.TemporaryDirectory() as directory:
        artifacts = Path(directory)
        (artifacts / "notes.txt").write_text(text, encoding="utf-8", newline="")
        records = records_for(TaskState(task_id="t-1"), file_envelope("notes.txt"), artifacts)
    chunks = [r for r in records if r.key.startswith("file:notes.txt:") and r.subtype != "file"]
    assert chunks and len({r.key for r in records}) == len(records)
    assert " ".join(c.content for c in chunks).split() == text.split()


def file_envelope(path: str) -> Envelope:
    ref = FileReference(
        file_id="f1", path=path, file_type="documentation", size=1, checksum="0", created_by="call-1-1"
    )
    event = FileRecorded(file=ref)
    return Envelope(seq=1, ts=1.0, prev="0" * 64, hash="0" * 64, event=event)


# ---------------------------------------------------------------- model JSON

json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=5)
prose = st.text(
    alphabet=st.characters(blacklist_characters="{}[]`", blacklist_categories=["Cs"]), max_size=40
)
wrappers = st.sampled_from(
    [
        "{body}",
        "{prose}\n{body}",
        "{prose}\n```json\n{body}\n```\n{prose}",
        "```\n{body}\n```",
        "{prose} ```JSON\n{body}```",
        "{body}\n\n{prose}",
    ]
)
jsonish = st.text(alphabet=list('{}[]",:.-+eE0123456789 \n\t`\\abcdefjlnorstu'), max_size=200)


@BOUNDED
@given(
    text=st.one_of(st.text(max_size=300), jsonish, st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
)
def test_the_json_parser_raises_nothing_but_model_output_error(text: str) -> None:
    try:
        parse_model_json(text)
    except ModelOutputError as exc:
        assert str(exc) and "\n" not in str(exc)  # one line, fit to show the model


@BOUNDED
@example(obj={"a": 1}, wrapper="{prose}\n{body}", before="2 results below:", indent=None, ascii_only=False)
@given(
    obj=json_objects,
    wrapper=wrappers,
    before=prose,
    indent=st.sampled_from([None, 2]),
    ascii_only=st.booleans(),
)
def test_any_json_object_survives_prose_and_fences(
    obj: dict[str, Any], wrapper: str, before: str, indent: int | None, ascii_only: bool
) -> None:
    body = json.dumps(obj, indent=indent, ensure_ascii=ascii_only)
    reply = wrapper.replace("{prose}", before).replace("{body}", body)
    assert parse_model_json(reply) == obj
