"""`summarize_directory(path)`: a "virtual README" of a folder, built without a model, so the agent
can orient itself in a tree it has never seen.

For each text file: its size, its purpose (a module docstring's first line, else the first
Markdown heading or first line) and, for Python, its public functions and classes with the first
line of their docstrings. Folders are listed with their file counts; hidden and tool folders are
skipped, binary files and files too large to read are counted (`cairn.memory.index.sources.skipped`),
and the listing stops at `max_files`.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> source = "'Arithmetic helpers.'\\ndef add(a, b):\\n    'Sum.'\\n    return a + b\\n"
>>> _ = (root / "calc.py").write_text(source)
>>> print(summarize_directory(root).render(title="calc"))
# calc (virtual README)
1 file
<BLANKLINE>
## calc.py — Arithmetic helpers. (65 bytes)
- def add(a, b) — Sum.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from cairn.core import CodeReference, Frozen
from cairn.memory.index.code_docs import document_python
from cairn.memory.index.file_index import purpose_of, signature
from cairn.memory.index.sources import decoded, skipped, visible_files

MAX_FILES = 200
MAX_BYTES = 500_000
KEY_ITEMS = 8  # functions and classes shown per file


class FileSummary(Frozen):
    path: str
    size: int
    purpose: str = ""
    key_items: list[str] = Field(default_factory=list)  # "def f(x) — what it does"


class DirectorySummary(Frozen):
    root: str
    files: list[FileSummary] = Field(default_factory=list)
    folders: dict[str, int] = Field(default_factory=dict)  # sub-folder -> files under it
    truncated: int = 0  # files not summarized (over max_files)
    skipped: int = 0  # binary files and files too large to read: no words to summarize

    def render(self, title: str | None = None) -> str:
        """Markdown: the folder's outline, then one section per file."""
        count = len(self.files) + self.truncated
        lines = [f"# {title or self.root} (virtual README)", f"{count} file{'s' * (count != 1)}"]
        if self.folders:
            lines += ["", "Folders: " + ", ".join(f"{name}/ ({n})" for name, n in self.folders.items())]
        for f in self.files:
            purpose = f" — {f.purpose}" if f.purpose else ""
            lines += ["", f"## {f.path}{purpose} ({f.size} bytes)", *(f"- {item}" for item in f.key_items)]
        if self.truncated:
            lines += ["", f"[... {self.truncated} more files not summarized]"]
        if self.skipped:
            lines += ["", f"[skipped {self.skipped} binary or too large file{'s' * (self.skipped != 1)}]"]
        return "\n".join(lines)


def summarize_directory(path: str | Path, max_files: int = MAX_FILES) -> DirectorySummary:
    """Summarize the text files under `path` (see the module docstring)."""
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"not a directory: {path}")
    walked = sorted(visible_files(root))
    found = [(rel, full) for rel, full in walked if skipped(full) is None]
    folders: dict[str, int] = {}
    for rel, _ in found:
        if "/" in rel:
            top = rel.split("/", 1)[0]
            folders[top] = folders.get(top, 0) + 1
    summaries = [_summary(rel, full) for rel, full in found[:max_files]]
    truncated = max(0, len(found) - max_files)
    return DirectorySummary(
        root=str(path),
        files=summaries,
        folders=folders,
        truncated=truncated,
        skipped=len(walked) - len(found),
    )


def _summary(rel: str, full: Path) -> FileSummary:
    size = full.stat().st_size
    with full.open("rb") as handle:
        text = decoded(handle.read(MAX_BYTES))
    if text is None:
        return FileSummary(path=rel, size=size, purpose="(binary)")
    code = document_python(text, rel) if rel.endswith(".py") else None
    return FileSummary(path=rel, size=size, purpose=purpose_of(text, code), key_items=_key_items(code))


def _key_items(code: CodeReference | None) -> list[str]:
    if code is None:
        return []
    items = [(f.line_start, signature(f), f.description) for f in code.functions if _public(f.name)]
    items += [(c.line_start, f"class {c.name}", c.description) for c in code.classes if _public(c.name)]
    return [f"{sig} — {doc.splitlines()[0]}" if doc else sig for _, sig, doc in sorted(items)[:KEY_ITEMS]]


def _public(name: str) -> bool:
    return not name.startswith("_")
