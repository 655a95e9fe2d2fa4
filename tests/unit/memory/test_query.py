"""Queryable context: files, functions, classes, evidence (`cairn.memory.context.query`) and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cairn.core import (
    Evidence,
    EvidenceRecorded,
    FileRecorded,
    RunConfig,
    TaskCreated,
    ToolCall,
    ToolCallRecorded,
)
from cairn.flows.cli.app import app
from cairn.memory.context import query
from cairn.memory.index.recorder import TaskRecorder
from cairn.tasks.deps import deps_for
from cairn.tasks.evidence import evidence_for, register_file
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.tools.file_tools import write_file

PARSER = '''"""Parsing."""


def parse_line(line: str) -> list[str]:
    """Split a CSV line into fields."""
    return line.split(",")


class Parser:
    """Reads whole files."""

    def read(self, path: str) -> list[list[str]]:
        """Read every line of a file."""
        return []
'''
FILES = {
    "src/parser.py": PARSER,
    "tests/test_parser.py": "def test_parse():\n    assert parse_line('a,b') == ['a', 'b']\n",
    "README.md": "# Parser\n\nSplits comma separated values.\n",
    "data/rows.csv": "a,b\n1,2\n",
}


def _task(tmp_path: Path) -> tuple[RunConfig, TaskRecorder]:
    config = RunConfig(workspace=str(tmp_path / "ws"))
    deps = deps_for(config)
    repo = deps.workspace.create_task(TaskCreated(task_id="q1", goal="parser", task_type="coding_task"))
    recorder = TaskRecorder(repo, deps.store)
    ctx = ToolContext(task_id="q1", artifacts=repo.artifacts)
    for n, (path, content) in enumerate(FILES.items(), start=1):
        out = write_file(ctx, path, content)
        assert out.written is not None
        call = ToolCall(call_id=f"call-{n}-1", iteration=n, index=1, tool="write_file", params={"path": path})
        file, code = register_file(call.call_id, out.written, None, float(n))
        evidence = evidence_for(call, file, code, content)
        recorder.record(ToolCallRecorded(call=call), FileRecorded(file=file, code=code))
        recorder.record(EvidenceRecorded(evidence=evidence))
    check = Evidence(type="validation", content="suite ran", confidence=0.4, source="validation-4")
    recorder.record(EvidenceRecorded(evidence=[check]))
    return config, recorder


def test_files_by_type_language_name_and_content(tmp_path: Path) -> None:
    config, recorder = _task(tmp_path)
    state = recorder.state
    assert [f.path for f in query.files(state, type="code")] == ["src/parser.py", "tests/test_parser.py"]
    assert [f.path for f in query.files(state, language="Python", name="test_*")] == ["tests/test_parser.py"]
    assert [f.path for f in query.files(state, name="*.md")] == ["README.md"]
    store = deps_for(config).store
    assert [f.path for f in query.files(state, content="comma separated", store=store)] == ["README.md"]


def test_functions_and_classes_by_name_or_docstring(tmp_path: Path) -> None:
    _, recorder = _task(tmp_path)
    state = recorder.state
    assert [i.name for i in query.functions(state, name="parse")] == ["parse_line", "test_parse"]
    read = query.functions(state, doc_contains="every line")
    assert [(i.name, i.kind, i.path) for i in read] == [("Parser.read", "method", "src/parser.py")]
    assert read[0].signature == "def Parser.read(self, path: str) -> list[list[str]]"
    (cls,) = query.classes(state, name="Pars*")
    assert cls.name == "Parser" and cls.description == "Reads whole files." and cls.line_start == 9


def test_evidence_by_type_confidence_and_source(tmp_path: Path) -> None:
    _, recorder = _task(tmp_path)
    state = recorder.state
    assert {e.type for e in query.evidence(state, min_confidence=0.9)} == {
        "file_creation",
        "code_implementation",
        "documentation",
    }
    assert [e.content for e in query.evidence(state, type="validation")] == ["suite ran"]
    assert all(e.source == "call-1-1" for e in query.evidence(state, source="call-1-"))
    assert len(query.evidence(state, source="call-1-")) == 2  # file creation and code implementation


def test_cli_files_and_filtered_search(tmp_path: Path) -> None:
    config, _ = _task(tmp_path)
    runner = CliRunner()
    ws = ["--workspace", config.workspace, "--json"]
    listed = runner.invoke(
        app, ["files", "q1", "--type", "code", "--language", "python", "--name", "src/*", *ws]
    )
    assert listed.exit_code == 0, listed.output
    (entry,) = json.loads(listed.stdout)["files"]
    assert entry["path"] == "src/parser.py" and entry["checksum"] and entry["created_by"] == "call-1-1"
    assert [f["name"] for f in entry["functions"]] == ["parse_line", "Parser.read"]
    assert [c["name"] for c in entry["classes"]] == ["Parser"]

    def search(*args: str) -> list[dict[str, object]]:
        result = runner.invoke(app, ["search", *args, "--task", "q1", *ws])
        assert result.exit_code == 0, result.output
        return [h["memory"] for h in json.loads(result.stdout)["hits"]]

    functions = search("split fields", "--kind", "document_chunk", "--type", "function")
    assert functions and functions[0]["key"] == "code:src/parser.py:parse_line"
    assert all(m["subtype"] == "function" for m in functions)
    low = search("suite", "--kind", "evidence", "--min-confidence", "0.9")
    assert all(m["confidence"] >= 0.9 for m in low) and "suite ran" not in [m["content"] for m in low]
    from_call = search("file written", "--kind", "evidence", "--source", "call-3-")
    assert from_call and all(m["source"] == "call-3-1" for m in from_call)
    bad = runner.invoke(app, ["search", "x", "--kind", "nonsense", *ws])
    assert bad.exit_code == 2 and "unknown kind" in bad.stderr
