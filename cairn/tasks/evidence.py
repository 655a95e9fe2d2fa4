"""From an executed call to the file registry and evidence.

Pure functions: the iteration flow records what they return as events.

>>> classify("src/app.py"), classify("README.md"), classify("data.csv")
('code', 'documentation', 'data')
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from cairn.core import (
    CodeReference,
    Evidence,
    EvidenceMetadata,
    FileMetadata,
    FileReference,
    FileType,
    ToolCall,
    content_hash,
    main_argument,
)
from cairn.memory.index.code_docs import document_python, documented_share
from cairn.tasks.tools.base import WrittenFile
from cairn.tasks.tools.builtins import BUILTIN_NAMES
from cairn.tasks.tools.definition import first_string

_CODE = {
    ".py": "python",
    ".js": "javascript",
    ".ts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".sh": "shell",
}
_DOCS = {".md", ".rst", ".txt", ".adoc"}
_DATA = {".csv", ".json", ".jsonl", ".tsv", ".parquet", ".xml"}
_CONFIG = {".toml", ".yaml", ".yml", ".ini", ".cfg"}
_CITE = re.compile(r"\[source:\s*([^\]]+)\]")
_SOURCES_ITEM = re.compile(r"^\s*[-*]\s+`?([^`\s]+)`?", re.M)


def classify(path: str) -> FileType:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _CODE:
        return "code"
    if suffix in _DOCS:
        return "documentation"
    if suffix in _DATA:
        return "data"
    return "config" if suffix in _CONFIG else "output"


def cites(content: str) -> list[str]:
    """Sources a document cites: inline `[source: path]` marks and items of a `## Sources` list."""
    found = [c.strip() for c in _CITE.findall(content)]
    parts = re.split(r"^#+\s*(?:sources|references)\s*$", content, flags=re.I | re.M)
    if len(parts) > 1:
        found += _SOURCES_ITEM.findall(parts[-1])
    return list(dict.fromkeys(found))


def register_file(
    call_id: str, written: WrittenFile, previous: FileReference | None, at: float
) -> tuple[FileReference, CodeReference | None]:
    """The registry entry (and code documentation) for a file a call wrote."""
    file_type = classify(written.path)
    file_id = previous.file_id if previous else f"file-{content_hash(written.path, 12)}"
    code = document_python(written.content, file_id) if written.path.endswith(".py") else None
    metadata = FileMetadata(
        language=_CODE.get(PurePosixPath(written.path).suffix.lower()),
        functions=[f.name for f in code.functions] if code else [],
        classes=[c.name for c in code.classes] if code else [],
        imports=code.imports if code else [],
        documentation=code.documentation if code else None,
        purpose=written.purpose,
    )
    ref = FileReference(
        file_id=file_id,
        path=written.path,
        file_type=file_type,
        size=len(written.content.encode("utf-8", "surrogatepass")),
        checksum=content_hash(written.content, 64),
        created_by=previous.created_by if previous else call_id,
        created_at=previous.created_at if previous else at,
        modified_at=at,
        metadata=metadata,
    )
    return ref, code


def evidence_for(
    call: ToolCall, file: FileReference | None = None, code: CodeReference | None = None, content: str = ""
) -> list[Evidence]:
    """The evidence one call yields: file creation, code, documentation, synthesis, execution."""
    if call.outcome != "success" and call.tool not in ("run_tests", "lint"):
        return []
    if file is not None:
        return _file_evidence(call, file, code, content)
    if call.tool in ("run_tests", "run_python", "lint"):
        return [_execution(call)]
    if call.tool not in BUILTIN_NAMES:  # a Python or MCP tool: what it returned is the evidence
        return [_tool_result(call)]
    return []


def _file_evidence(
    call: ToolCall, file: FileReference, code: CodeReference | None, content: str
) -> list[Evidence]:
    cited = cites(content) if file.file_type == "documentation" else []
    meta = EvidenceMetadata(
        file_path=file.path, file_type=file.file_type, size=file.size, cites=cited, tool=call.tool
    )
    out = [
        _ev(call, "file_creation", f"File written: {file.path} ({file.file_type}, {file.size} bytes)", meta)
    ]
    if code is not None and (code.functions or code.classes):
        n = len(code.functions) + sum(len(c.methods) for c in code.classes)
        share = documented_share(code)
        code_meta = meta.model_copy(
            update={"language": code.language, "function_count": n, "documented_share": share}
        )
        out.append(
            _ev(call, "code_implementation", f"Code implemented in {file.path}: {n} functions", code_meta)
        )
    if file.file_type == "documentation":
        out.append(
            _ev(
                call, "documentation", f"Documentation written: {file.path} citing {len(cited)} sources", meta
            )
        )
        if cited:
            summary = f"Answer synthesized in {file.path} from {', '.join(cited[:5])}"
            out.append(_ev(call, "synthesis", summary, meta, confidence=0.9))
    return out


def _execution(call: ToolCall) -> Evidence:
    failed = sum(1 for c in call.checks if not c.passed)
    passed = sum(1 for c in call.checks if c.passed)
    meta = EvidenceMetadata(tool=call.tool, passed=passed, failed=failed if call.outcome != "success" else 0)
    text = f"{call.tool} {call.outcome}: {passed} passed, {failed} failed"
    return _ev(call, "execution", text, meta, confidence=1.0 if call.outcome == "success" else 0.5)


def _tool_result(call: ToolCall) -> Evidence:
    arg = main_argument(call.params) or first_string(call.params)
    head = f"{call.tool}({arg})" if arg else call.tool
    output = " ".join(call.raw_output.split())[:500]
    return _ev(call, "execution", f"{head} returned: {output}", EvidenceMetadata(tool=call.tool))


def _ev(call: ToolCall, kind: str, content: str, meta: EvidenceMetadata, confidence: float = 1.0) -> Evidence:
    return Evidence.model_validate(
        {
            "type": kind,
            "content": content,
            "confidence": confidence,
            "source": call.call_id,
            "iteration": call.iteration,
            "timestamp": call.timestamp,
            "metadata": meta,
        }
    )
