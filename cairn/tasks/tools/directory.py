"""`summarize_directory`: a virtual README of a workspace or source folder, so the agent can
orient itself in a tree it has never seen without reading every file (no model call).

>>> from pathlib import Path
>>> import tempfile
>>> ws = Path(tempfile.mkdtemp())
>>> _ = (ws / "notes.md").write_text("# Field notes\\n\\nWater levels.")
>>> print(summarize_directory(ToolContext(task_id="t", artifacts=ws)).text.splitlines()[-1])
## notes.md — Field notes (28 bytes)
"""

from __future__ import annotations

from cairn.memory.index import directory_summary
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.file_tools import readable_dir
from cairn.tasks.tools.paths import PathError

MAX_CHARS = 8000


def summarize_directory(ctx: ToolContext, path: str = ".") -> ToolOutput:
    """The folder's files, their purposes and key functions, as Markdown."""
    try:
        base = readable_dir(ctx, path)
    except PathError as exc:
        return failure(str(exc))
    summary = directory_summary.summarize_directory(base)
    text = summary.render(title=path if path not in ("", ".") else "workspace")
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + "\n[... summary truncated; summarize a sub-folder]"
    prefix = "" if path in (".", "") else path.rstrip("/") + "/"
    return ToolOutput(text=text, paths=[prefix + f.path for f in summary.files])
