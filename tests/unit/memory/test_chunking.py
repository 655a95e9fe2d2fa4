"""Indexing on write: structural chunks, the file registry record, code documentation records, and
a rewrite replacing the old records; sources indexed once, by checksum."""

from __future__ import annotations

from pathlib import Path

from cairn.core import FileRecorded, TaskCreated, ToolCall, ToolCallRecorded
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.index.chunking import chunk_text, markdown_chunks, paragraph_chunks, python_chunks
from cairn.memory.index.recorder import TaskRecorder
from cairn.memory.index.sources import ensure_sources, index_source, source_tenant
from cairn.memory.log.workspace import Workspace
from cairn.memory.store.protocol import SearchFilter, SearchQuery
from cairn.memory.store.sqlite_store import SQLiteStore
from cairn.tasks.evidence import register_file
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.tools.file_tools import write_file

CODE_V1 = '''"""Payment helpers."""

import json


@cache
def refund(amount: float, reason: str = "") -> dict:
    """Refund a payment, returning the receipt."""
    if amount <= 0:
        raise ValueError(reason)
    return {"refund": amount}


class Ledger:
    """Keeps the running balance."""

    def post(self, amount: float) -> None:
        self.total += amount
'''
CODE_V2 = '''"""Payment helpers."""


def charge(amount: float) -> dict:
    """Charge a card."""
    return {"charge": amount}
'''
DOC = (
    "# Guide\n\nIntro text.\n\n```\n# not a heading\n```\n\n## Install\n\nRun pip.\n\n## Usage\n\nCall it.\n"
)


def test_python_is_chunked_by_function_and_class_with_decorators_and_lines() -> None:
    chunks = python_chunks(CODE_V1)
    assert chunks is not None
    named = {c.name: c for c in chunks if c.name}
    assert set(named) == {"refund", "Ledger"}
    assert named["refund"].subtype == "function" and named["refund"].text.startswith("@cache\ndef refund")
    assert (named["refund"].line_start, named["refund"].line_end) == (6, 11)
    assert named["Ledger"].subtype == "class" and "def post" in named["Ledger"].text
    assert chunks[0].subtype == "paragraph" and "import json" in chunks[0].text  # module lines kept too


def test_markdown_by_section_ignoring_headings_in_fences_and_fallbacks() -> None:
    sections = markdown_chunks(DOC)
    assert [c.name for c in sections] == ["Guide", "Install", "Usage"]
    assert "# not a heading" in sections[0].text
    assert [c.subtype for c in chunk_text("notes.txt", "one\n\ntwo")] == ["paragraph"]  # merged: small
    broken = chunk_text("bad.py", "def f(:\n    pass\n\nmore text\n")
    assert broken and all(c.subtype == "paragraph" for c in broken)
    long = paragraph_chunks(" ".join(f"w{i}" for i in range(3000)))
    assert len(long) > 1 and " ".join(c.text for c in long).split() == [f"w{i}" for i in range(3000)]


def _write(recorder: TaskRecorder, path: str, content: str, n: int) -> None:
    ctx = ToolContext(task_id=recorder.repo.task_id, artifacts=recorder.repo.artifacts)
    out = write_file(ctx, path, content)
    assert out.written is not None
    call_id = f"call-{n}-1"
    file, code = register_file(call_id, out.written, recorder.state.files.get(path), float(n))
    call = ToolCall(call_id=call_id, iteration=n, index=1, tool="write_file", params={"path": path})
    recorder.record(ToolCallRecorded(call=call), FileRecorded(file=file, code=code))


def _recorder(tmp_path: Path) -> tuple[TaskRecorder, SQLiteStore]:
    repo = Workspace(tmp_path / "ws").create_task(
        TaskCreated(task_id="t1", goal="g", task_type="coding_task")
    )
    store = SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=64))
    return TaskRecorder(repo, store), store


def test_write_indexes_registry_code_docs_and_chunks_and_a_rewrite_replaces_them(tmp_path: Path) -> None:
    recorder, store = _recorder(tmp_path)
    _write(recorder, "pay.py", CODE_V1, 1)
    records = {m.key: m for m in store.list(SearchFilter(tenants=["t1"], file_path="pay.py"))}
    head = records["file:pay.py:file"]
    assert head.subtype == "file" and "python" in head.content and "Purpose: Payment helpers." in head.content
    assert "Functions: refund" in head.content and "Classes: Ledger" in head.content
    refund = records["code:pay.py:refund"]
    assert (
        refund.subtype == "function"
        and "def refund(amount: float, reason: str = '') -> dict" in refund.content
    )
    assert "Refund a payment" in refund.content and "pay.py:7-11, complexity 2" in refund.content
    assert records["code:pay.py:Ledger"].subtype == "class" and "code:pay.py:Ledger.post" in records
    assert {m.subtype for m in records.values()} >= {"file", "function", "class", "code", "paragraph"}
    found = store.search(
        SearchQuery(text="refund receipt", filter=SearchFilter(tenants=["t1"], subtypes=["function"]))
    )
    assert found and found[0].memory.key == "code:pay.py:refund"

    _write(recorder, "pay.py", CODE_V2, 2)
    after = {m.key: m for m in store.list(SearchFilter(tenants=["t1"], file_path="pay.py"))}
    assert "code:pay.py:refund" not in after and "code:pay.py:Ledger" not in after
    assert "code:pay.py:charge" in after
    assert not any("refund" in m.content for m in after.values())  # no stale chunk survives
    assert store.search(SearchQuery(text="refund", mode="keyword", filter=SearchFilter(tenants=["t1"]))) == []


def test_sources_are_indexed_once_by_checksum_and_follow_changes(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "reservoir.md").write_text("# Reservoir\n\nHolds 1.26 million cubic metres.\n")
    (corpus / "sub" / "use.txt").write_text("Daily use is 8,400 cubic metres.\n")
    (corpus / "blob.bin").write_bytes(b"\x00\x01binary")
    store = SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=64))
    tenant = source_tenant(corpus)
    assert tenant.startswith("source:corpus:")

    assert index_source(store, corpus) == 2  # the binary file is skipped
    assert index_source(store, corpus) == 0  # unchanged: nothing re-chunked or re-embedded
    where = SearchFilter(tenants=[tenant])
    hit = store.search(SearchQuery(text="daily use cubic metres", filter=where))[0].memory
    assert hit.file_path == "source:corpus/sub/use.txt"

    (corpus / "sub" / "use.txt").write_text("Daily use fell to 7,900 cubic metres.\n")
    (corpus / "reservoir.md").unlink()
    assert index_source(store, corpus) == 1
    texts = " ".join(m.content for m in store.list(where))
    assert "7,900" in texts and "8,400" not in texts and "Reservoir" not in texts

    assert ensure_sources(store, {"corpus": str(corpus)}) == [tenant]
    (corpus / "new.md").write_text("# New\n\nAdded later.\n")
    assert ensure_sources(store, {"corpus": str(corpus)}) == [tenant]  # remembered by this process
    assert "Added later" not in " ".join(m.content for m in store.list(where))
