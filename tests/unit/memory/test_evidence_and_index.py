"""Evidence extraction from calls, and the index rebuilt exactly from the log."""

from __future__ import annotations

from pathlib import Path

from cairn.core import (
    CheckOutcome,
    ConstraintExtracted,
    EvidenceRecorded,
    FileRecorded,
    IterationStarted,
    TaskCreated,
    ToolCall,
    ToolCallRecorded,
)
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.index.indexer import reindex
from cairn.memory.index.recorder import TaskRecorder
from cairn.memory.log.workspace import Workspace
from cairn.memory.store.protocol import SearchFilter, SearchQuery
from cairn.memory.store.sqlite_store import SQLiteStore
from cairn.tasks.evidence import cites, evidence_for, register_file
from cairn.tasks.tools.base import WrittenFile

CODE = '''"""Tools."""


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def sub(a: int, b: int) -> int:
    return a - b
'''
REPORT = (
    "# Report\n\nThe reservoir holds 1.26 Mm3. [source: source:corpus/reservoir.md]\n\n"
    "## Sources\n\n- source:corpus/use.md\n"
)


def _write_call(path: str) -> ToolCall:
    return ToolCall(
        call_id="call-1-1", iteration=1, index=1, tool="write_file", params={"path": path}, paths=[path]
    )


def test_code_file_yields_creation_and_implementation_with_docstring_share() -> None:
    file, code = register_file("call-1-1", WrittenFile(path="calc.py", content=CODE), None, 1.0)
    assert file.file_type == "code" and file.metadata.functions == ["add", "sub"]
    evidence = evidence_for(_write_call("calc.py"), file, code, CODE)
    kinds = {e.type: e for e in evidence}
    assert set(kinds) == {"file_creation", "code_implementation"}
    assert kinds["code_implementation"].metadata.documented_share == 0.5


def test_cited_document_yields_documentation_and_synthesis() -> None:
    assert cites(REPORT) == ["source:corpus/reservoir.md", "source:corpus/use.md"]
    file, code = register_file("call-1-1", WrittenFile(path="report.md", content=REPORT), None, 1.0)
    evidence = evidence_for(_write_call("report.md"), file, code, REPORT)
    assert {e.type for e in evidence} == {"file_creation", "documentation", "synthesis"}


def test_uncited_document_is_no_synthesis_and_failed_reads_are_no_evidence() -> None:
    file, _ = register_file("c", WrittenFile(path="notes.md", content="just notes"), None, 1.0)
    assert "synthesis" not in {
        e.type for e in evidence_for(_write_call("notes.md"), file, None, "just notes")
    }
    failed = ToolCall(call_id="c", iteration=1, index=1, tool="read_file", outcome="failure")
    assert evidence_for(failed) == []


def test_test_runs_yield_execution_evidence_with_counts() -> None:
    call = ToolCall(
        call_id="c",
        iteration=2,
        index=1,
        tool="run_tests",
        outcome="failure",
        checks=[CheckOutcome(check_id="a", passed=True), CheckOutcome(check_id="b", passed=False)],
    )
    (ev,) = evidence_for(call)
    assert ev.type == "execution" and ev.metadata.passed == 1 and ev.metadata.failed == 1


def test_reindex_rebuilds_identical_search_results(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    repo = ws.create_task(TaskCreated(task_id="t1", goal="reservoir days", task_type="research_task"))
    store = SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=64))
    recorder = TaskRecorder(repo, store)
    (repo.artifacts / "report.md").write_text(REPORT, encoding="utf-8")
    file, code = register_file("call-1-1", WrittenFile(path="report.md", content=REPORT), None, 1.0)
    call = _write_call("report.md").model_copy(update={"insights": "the reservoir holds 1.26 Mm3"})
    recorder.record(
        ConstraintExtracted(message="never guess", rule="Never guess numbers.", key="rules:general:abc"),
        IterationStarted(iteration=1),
        ToolCallRecorded(call=call),
        FileRecorded(file=file, code=code),
        EvidenceRecorded(evidence=evidence_for(call, file, code, REPORT)),
    )
    query = SearchQuery(text="reservoir holds", k=10, filter=SearchFilter(tenants=["t1"]))
    before = [(h.memory.key, round(h.score, 6)) for h in store.search(query)]
    assert before and any(k.startswith("file:report.md") for k, _ in before)

    store.delete_tenant("t1")
    assert store.search(query) == []
    reindex(store, repo.read().envelopes, repo.artifacts)
    assert [(h.memory.key, round(h.score, 6)) for h in store.search(query)] == before
