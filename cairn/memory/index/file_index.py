"""The searchable records of one file: its registry entry, its code documentation and its chunks.

All `kind="document_chunk"` with the file's path, told apart by `subtype`:

| subtype | one per | content |
|---|---|---|
| `file` | file | path, type, language, size, checksum, purpose, functions and classes |
| `function` / `class` | function, method or class (Python) | signature, docstring, lines, complexity |
| `code` / `section` / `paragraph` | chunk (`cairn.memory.index.chunking`) | the text itself |

Keys are derived from the path and position only, so re-indexing a file overwrites its records and
`cairn.memory.index.indexer` drops the ones a rewrite no longer produces.

>>> records = file_records("calc.py", "def add(a, b):\\n    return a + b\\n", {"tenant": "t1"}, "call-1")
>>> [(m.subtype, m.key) for m in records]
[('file', 'file:calc.py:file'), ('function', 'code:calc.py:add'), ('code', 'file:calc.py:0')]
"""

from __future__ import annotations

from cairn.core import ClassDoc, CodeReference, FileReference, FunctionDoc, Memory
from cairn.memory.index.chunking import Chunk, chunk_text
from cairn.memory.index.code_docs import document_python

_CHUNK_SUBTYPE = {"function": "code", "class": "code", "section": "section", "paragraph": "paragraph"}
DOC_CHARS = 600  # docstring share of a function record


def file_records(
    path: str,
    text: str,
    base: dict[str, object],
    created_by: str,
    file: FileReference | None = None,
    code: CodeReference | None = None,
) -> list[Memory]:
    """Every record of one file (see the module docstring); `text` is already redacted."""
    if code is None and path.endswith(".py"):
        code = document_python(text, file.file_id if file else path)
    common = {**base, "kind": "document_chunk", "file_path": path, "source": created_by}
    head = _memory(
        common, key=f"file:{path}:file", subtype="file", content=describe_file(path, text, file, code)
    )
    docs = (
        [
            _memory(common, key=f"code:{path}:{name}", subtype=sub, content=body, domain="code")
            for name, sub, body in code_entries(path, code)
        ]
        if code
        else []
    )
    chunks = [_chunk_memory(common, path, i, chunk) for i, chunk in enumerate(chunk_text(path, text))]
    return [head, *docs, *chunks]


def describe_file(path: str, text: str, file: FileReference | None, code: CodeReference | None) -> str:
    """The registry entry as one searchable line."""
    facts: list[str] = [file.file_type] if file else []
    language = (file.metadata.language if file else None) or (code.language if code else None)
    facts += [language] if language else []
    size = file.size if file else len(text.encode("utf-8", "surrogatepass"))
    facts.append(f"{size} bytes")
    if file:
        facts.append(f"sha256 {file.checksum[:12]}")
    lines = [f"File {path} ({', '.join(facts)})"]
    purpose = purpose_of(text, code)
    if purpose:
        lines.append(f"Purpose: {purpose}")
    if code and code.functions:
        lines.append("Functions: " + ", ".join(f.name for f in code.functions))
    if code and code.classes:
        lines.append("Classes: " + ", ".join(c.name for c in code.classes))
    if code and code.imports:
        lines.append("Imports: " + ", ".join(code.imports[:20]))
    return "\n".join(lines)


def purpose_of(text: str, code: CodeReference | None = None) -> str:
    """What a file is for: its module docstring's first line, else its first heading or line.

    >>> purpose_of("# Alder Creek reservoir\\n\\nStorage figures.")
    'Alder Creek reservoir'
    """
    if code is not None and code.documentation.strip():
        return code.documentation.strip().splitlines()[0][:200]
    for line in text.splitlines():
        stripped = line.strip().lstrip("#").strip()
        if stripped and not stripped.startswith(("import ", "from ", "#!", '"""', "'''")):
            return stripped[:200]
    return ""


def code_entries(path: str, code: CodeReference) -> list[tuple[str, str, str]]:
    """(qualified name, subtype, record text) for every function, class and method."""
    out = [(f.name, "function", function_text(path, f)) for f in code.functions]
    for cls in code.classes:
        out.append((cls.name, "class", class_text(path, cls)))
        out += [(f"{cls.name}.{m.name}", "function", function_text(path, m, cls.name)) for m in cls.methods]
    return out


def signature(f: FunctionDoc, owner: str | None = None) -> str:
    """`def name(params) -> return` as written (annotations and defaults kept)."""
    params = ", ".join(
        p.name + (f": {p.annotation}" if p.annotation else "") + (f" = {p.default}" if p.default else "")
        for p in f.parameters
    )
    returns = f" -> {f.return_type}" if f.return_type else ""
    return f"def {owner + '.' if owner else ''}{f.name}({params}){returns}"


def function_text(path: str, f: FunctionDoc, owner: str | None = None) -> str:
    where = f"{path}:{f.line_start}-{f.line_end}, complexity {f.complexity}"
    doc = f"\n{f.description[:DOC_CHARS]}" if f.description else ""
    return f"{signature(f, owner)}  ({where}){doc}"


def class_text(path: str, cls: ClassDoc) -> str:
    bases = f"({', '.join(cls.bases)})" if cls.bases else ""
    methods = ", ".join(m.name for m in cls.methods)
    doc = f"\n{cls.description[:DOC_CHARS]}" if cls.description else ""
    where = f"{path}:{cls.line_start}-{cls.line_end}"
    return f"class {cls.name}{bases}  ({where}; methods: {methods or 'none'}){doc}"


def _chunk_memory(common: dict[str, object], path: str, index: int, chunk: Chunk) -> Memory:
    return _memory(
        common, key=f"file:{path}:{index}", subtype=_CHUNK_SUBTYPE[chunk.subtype], content=chunk.text
    )


def _memory(common: dict[str, object], **fields: object) -> Memory:
    return Memory.model_validate({"domain": "file", **common, **fields})
