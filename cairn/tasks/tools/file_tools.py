"""File tools confined to the workspace: `read_file`, `write_file`, `list_directory`.

Paths are the agent's: relative to the task's `artifacts/`, or `source:NAME/...` for the read-only
sources. `cairn.tasks.tools.paths.resolve_path` is the jail; every refusal is a failed output with a
one-line reason and nothing is written. `write_file` also refuses (issue 35):

- content holding Cairn's reference to an earlier value (`cairn.tasks.messages.elision`): the
  model copied the planner's shortened view of a file back as the file;
- a Python file that parses replaced by text that does not: a working module is never traded for
  a broken one silently. A new file that does not parse is written, and the output says so.

>>> ctx = ToolContext(task_id="t", artifacts=Path("/tmp/a"))  # doctest: +SKIP
>>> write_file(ctx, "notes/a.md", "# A").outcome  # doctest: +SKIP
'success'
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from cairn.core import JsonValue, SourceSkip
from cairn.memory.index.sources import MAX_TEXT_BYTES, decoded, skipped, visible_files
from cairn.tasks.messages.elision import elision_in
from cairn.tasks.tools.base import ToolContext, ToolOutput, WrittenFile, failure
from cairn.tasks.tools.paths import PathError, resolve_path

MAX_READ_CHARS = 200_000
MAX_WRITE_CHARS = 2_000_000
MAX_LISTED = 500


def read_file(ctx: ToolContext, path: str) -> ToolOutput:
    target = readable(ctx, path)
    if isinstance(target, ToolOutput):
        return target
    if not target.is_file():
        return failure(f"no such file: {path}")
    text = read_text(target)
    if text is None:
        size = target.stat().st_size
        if skipped(target) == "too large":
            text = f"{path} is too large to read ({size:,} bytes, over {MAX_TEXT_BYTES:,})"
        else:
            text = f"{path} is a binary file ({size:,} bytes): it holds no text to read"
        return ToolOutput(text=text, paths=[path])
    if len(text) > MAX_READ_CHARS:
        text = text[:MAX_READ_CHARS] + f"\n[... truncated at {MAX_READ_CHARS} characters]"
    return ToolOutput(text=text, paths=[path])


def readable(ctx: ToolContext, path: str) -> Path | ToolOutput:
    """The file or folder `path` names, in the workspace or a source; a refusal is a failed output."""
    try:
        return resolve_path(ctx.artifacts, path, readonly_roots=ctx.sources, for_write=False)
    except PathError as exc:
        return failure(str(exc))


def read_text(file: Path) -> str | None:
    """What the tools read of a file: the text of its first bytes, or None for a binary file or
    one too large to read (`cairn.memory.index.sources.skipped`)."""
    if skipped(file) is not None:
        return None
    with file.open("rb") as handle:
        return decoded(handle.read(MAX_READ_CHARS * 4))


def write_file(ctx: ToolContext, path: str, content: str) -> ToolOutput:
    if len(content) > MAX_WRITE_CHARS:
        return failure(f"content too large: {len(content)} characters (limit {MAX_WRITE_CHARS})")
    try:
        target = resolve_path(ctx.artifacts, path, readonly_roots=ctx.sources, for_write=True)
    except PathError as exc:
        return failure(str(exc))
    rel = target.relative_to(ctx.artifacts.resolve()).as_posix()
    if why := _refusal(rel, content, _text(target)):
        return failure(f"not written: {why}")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.cairn-tmp")
    tmp.write_text(content, encoding="utf-8", errors="surrogatepass")
    os.replace(tmp, target)  # atomic: a reader never sees half a file
    return written_output(rel, content)


def written_output(rel: str, content: str) -> ToolOutput:
    """What `write_file` returns for `content` written at `rel` (the same for a write found on
    disk after a crash, `found_write`)."""
    return ToolOutput(
        text=f"wrote {rel} ({len(content)} characters){_note(rel, content)}",
        paths=[rel],
        written=WrittenFile(path=rel, content=content),
    )


def found_write(ctx: ToolContext, params: dict[str, JsonValue]) -> ToolOutput | None:
    """An interrupted `write_file`'s effect, when it is there (`Tool.settle`): the call's content
    in the file, or in the file as the task's last commit holds it (a call of the same batch may
    have changed the file since); its output, as the call would have returned it."""
    path, content = params.get("path"), params.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    try:
        target = resolve_path(ctx.artifacts, path, readonly_roots=ctx.sources, for_write=True)
    except PathError:
        return None
    rel = target.relative_to(ctx.artifacts.resolve()).as_posix()
    data = content.encode("utf-8", errors="surrogatepass")  # as `write_file` writes it
    on_disk = target.read_bytes() if target.is_file() else None
    held = on_disk == data or (ctx.committed is not None and ctx.committed(rel) == data)
    return written_output(rel, content) if held else None


def _text(target: Path) -> str | None:
    """A file's text as the tools read it, None when there is none."""
    if not target.is_file():
        return None
    return target.read_bytes().decode("utf-8", errors="surrogateescape")


def _refusal(path: str, content: str, before: str | None) -> str | None:
    """Why `content` must not replace `before` (None: the file does not exist) at `path`."""
    if marker := elision_in(content):
        return (
            f"the content holds {marker!r}, Cairn's reference to an earlier value, not its text: "
            "write the whole file"
        )
    if before is None or not path.endswith(".py") or syntax_error(before) is not None:
        return None
    if (error := syntax_error(content)) is not None:
        return f"{path} parses now and this content does not ({error}): the file is unchanged; write it whole"
    defined = top_level_names(before)
    if defined and not top_level_names(content):
        # A reply that is no module at all (the 1.5B once answered `obj['bodies']['solution.py']`)
        # parses too: it must not wipe the module out.
        names = ", ".join(sorted(defined))
        return f"{path} defines {names}; this content defines no function or class: the file is unchanged"
    return None


def top_level_names(code: str) -> set[str]:
    """The functions and classes a module defines at its top level.

    >>> sorted(top_level_names("def f(): ...\\nclass C: ...\\nx = 1"))
    ['C', 'f']
    """
    nodes = ast.parse(code).body
    return {n.name for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def _note(path: str, content: str) -> str:
    """What the output adds about written content: that a Python file does not parse."""
    error = syntax_error(content) if path.endswith(".py") else None
    return f"; it does not parse ({error})" if error else ""


def syntax_error(code: str) -> str | None:
    """Why `code` is not Python, or None when it parses.

    >>> syntax_error("x = 1"), syntax_error("  x = 1")
    (None, 'IndentationError at line 1: unexpected indent')
    """
    try:
        ast.parse(code)
    except SyntaxError as exc:
        return f"{type(exc).__name__} at line {exc.lineno}: {exc.msg}"
    except ValueError as exc:  # a NUL byte
        return f"ValueError: {exc}"
    return None


def readable_dir(ctx: ToolContext, path: str) -> Path:
    """The directory `path` names, in the workspace or a source; `PathError` if it is none."""
    base = resolve_path(ctx.artifacts, path, readonly_roots=ctx.sources, for_write=False)
    if not base.is_dir():
        raise PathError(f"not a directory: {path}")
    return base


def list_directory(ctx: ToolContext, path: str = ".") -> ToolOutput:
    """List files under a directory (recursively, up to MAX_LISTED), with sizes."""
    try:
        base = readable_dir(ctx, path)
    except PathError as exc:
        return failure(str(exc))
    prefix = "" if path in (".", "") else path.rstrip("/") + "/"
    walked = sorted(_walk(base))
    entries = [(rel, size) for rel, size, why in walked if why is None]
    shown = [(f"{prefix}{rel}", size) for rel, size in entries[:MAX_LISTED]]
    lines = [f"{rel}\t{size} bytes" for rel, size in shown]
    if len(entries) > MAX_LISTED:
        lines.append(f"[... {len(entries) - MAX_LISTED} more files]")
    if passed := [f"{prefix}{rel}" for rel, _, why in walked if why is not None]:
        lines.append(skipped_line(passed))
    if not path.startswith("source:") and path in (".", ""):
        lines += [f"source:{name}/\t(read-only source)" for name in sorted(ctx.sources)]
    return ToolOutput(text="\n".join(lines) or "(empty)", paths=[rel for rel, _ in shown])


def _walk(base: Path) -> list[tuple[str, int, SourceSkip | None]]:
    return [(rel, full.stat().st_size, skipped(full)) for rel, full in visible_files(base)]


def skipped_line(names: list[str], named: int = 8) -> str:
    """What a listing or a search says of the files it did not read: `[skipped 2 binary or too
    large files: a.png, b.mp4]` (the first `named` of them named).

    >>> skipped_line(["a.png", "b.mp4", "c.pdf"], named=2)
    '[skipped 3 binary or too large files: a.png, b.mp4, ...]'
    """
    shown = ", ".join(names[:named]) + (", ..." if len(names) > named else "")
    return f"[skipped {len(names)} binary or too large file{'s' * (len(names) != 1)}: {shown}]"
