"""Offline coding: copy the files a spec spells out, then run the tests.

The offline model invents no code. When a file it reads holds fenced code blocks, each right
after a line that names a file (`## slug.py`), it notes them; the planner then writes those files
and runs the tests. The note keeps the blocks in the same shape, so the planner reads them back
with the same parser.

>>> spec = "## slug.py\\n\\n```python\\ndef slugify(t):\\n    return t\\n```\\n"
>>> file_blocks(spec)
{'slug.py': 'def slugify(t):\\n    return t\\n'}
>>> file_blocks(note("spec.md", file_blocks(spec))) == file_blocks(spec)
True
"""

from __future__ import annotations

from cairn.tasks.messages.file_reply import file_blocks, is_test
from cairn.tasks.messages.schemas import FileDraft, WriteInput, WriteOutput

__all__ = ["file_blocks", "is_test", "note", "write"]


def note(target: str, blocks: dict[str, str]) -> str:
    """The insight of reading a spec: which files it spells out, and their code."""
    parts = [f"{target}: spells out {', '.join(blocks)}."]
    for name, code in blocks.items():
        parts += ["", f"## {name}", "```", code.rstrip("\n"), "```"]
    return "\n".join(parts)


def write(inp: WriteInput) -> WriteOutput:
    """The `write` call offline: the files the excerpts (or notes) spell out, as they spell them.
    Asked plainly to complete a file, it gives the file back as it is: it writes no code of its own."""
    if inp.form == "plain":
        return WriteOutput(files=[FileDraft(path=e.source, content=e.text) for e in inp.current])
    blocks: dict[str, str] = {}
    for text in [*(e.text for e in inp.excerpts), *(n.text for n in inp.notes)]:
        blocks = {**file_blocks(text), **blocks}
    return WriteOutput(files=[FileDraft(path=path, content=code) for path, code in blocks.items()])
