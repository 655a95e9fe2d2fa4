"""The workspace jail: every path a tool touches is resolved here first.

A tool names a file either inside the task's workspace (`notes/plan.md`) or inside one of the
read-only sources the user passed with `--source` (`source:docs/guide.md`). `resolve_path` returns
the real, absolute path or raises a one-line `PathError`; it never creates, opens or writes anything.

Refused: empty names, NUL or control characters, over-long names, absolute paths, any `..`
component (even one that would stay inside: simpler to reason about than lexical folding before
symlinks are known), symlinks anywhere on the path that point outside their root, hard-linked
files (the same inode may live outside), devices, FIFOs and sockets, and every write into a source.

>>> import tempfile; ws = Path(tempfile.mkdtemp())
>>> resolve_path(ws, "notes/plan.md", for_write=True) == ws.resolve() / "notes" / "plan.md"
True

The check cannot stop a process that races it (swapping a directory for a symlink between the check
and the open); the code tools run agent code in a subprocess, which is no filesystem jail either.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from cairn.core import from_displayable

SOURCE_PREFIX = "source:"
MAX_NAME_BYTES = 255  # NAME_MAX on Linux and macOS
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux
_NO_SOURCES: Mapping[str, Path] = MappingProxyType({})


class PathError(ValueError):
    """A path a tool may not use; the message is one line, safe to show to the model."""


def resolve_path(
    root: Path,
    user_path: str,
    *,
    readonly_roots: Mapping[str, Path] = _NO_SOURCES,
    for_write: bool,
) -> Path:
    """The real path `user_path` names inside `root` (or inside a source, for reads).

    >>> resolve_path(Path("/tmp"), "../etc/passwd", for_write=False)
    Traceback (most recent call last):
    ...
    cairn.tasks.tools.paths.PathError: '..' is not allowed in a path: '../etc/passwd'
    """
    _check_text(user_path)
    base, relative = _split_source(root, user_path, readonly_roots, for_write)
    parts = _components(relative, user_path)
    real_base = _real_dir(base)
    target = _walk(real_base, parts, user_path)
    _check_file_kind(target, user_path)
    if for_write:
        _check_not_in_source(target, root, readonly_roots, user_path)
    return target


def _check_text(user_path: str) -> None:
    if not isinstance(user_path, str) or not user_path.strip():
        raise PathError("empty path")
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in user_path):
        raise PathError(f"control character in path: {user_path!r}"[:200])
    try:
        encoded = user_path.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: no file system name can hold them
        raise PathError(f"path is not valid unicode: {user_path!r}"[:200]) from None
    if len(encoded) > MAX_PATH_BYTES:
        raise PathError(f"path longer than {MAX_PATH_BYTES} bytes")
    if any(len(part.encode("utf-8")) > MAX_NAME_BYTES for part in user_path.split("/")):
        raise PathError(f"a path component is longer than {MAX_NAME_BYTES} bytes")


def _split_source(
    root: Path, user_path: str, sources: Mapping[str, Path], for_write: bool
) -> tuple[Path, str]:
    """The root a path is relative to, and the rest of it."""
    if not user_path.startswith(SOURCE_PREFIX):
        return root, user_path
    name, _, rest = user_path[len(SOURCE_PREFIX) :].partition("/")
    if for_write:
        raise PathError(f"sources are read-only: {user_path!r}")
    if name not in sources:
        known = ", ".join(sorted(sources)) or "none"
        raise PathError(f"unknown source {name!r} (known: {known})")
    return sources[name], rest or "."


def _components(relative: str, user_path: str) -> list[str]:
    if relative.startswith("/"):
        raise PathError(f"absolute paths are not allowed: {user_path!r}")
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise PathError(f"'..' is not allowed in a path: {user_path!r}")
    return parts


def _real_dir(base: Path) -> Path:
    real = Path(os.path.realpath(base))
    if not real.is_dir():
        raise PathError(f"root is not a directory: {base}")
    return real


def _walk(real_base: Path, parts: list[str], user_path: str) -> Path:
    """Follow `parts` one component at a time, refusing any symlink that leaves `real_base`.

    Checking each prefix (not only the final real path) also refuses a symlink that leaves the root
    and a second one that comes back, which a single check of the end point would let through.
    """
    current = real_base
    for part in parts:
        candidate = current / part
        info = _lstat(candidate, user_path)
        if info is None and "\\x" in part:  # a name that is not UTF-8, written as it was shown
            raw = current / from_displayable(part)
            info = _lstat(raw, user_path)
            candidate = raw if info is not None else candidate
        if info is not None and stat.S_ISLNK(info.st_mode):
            candidate = Path(os.path.realpath(candidate))
            if not candidate.is_relative_to(real_base):
                raise PathError(f"symlink points outside the workspace: {user_path!r}")
        current = candidate
    return current


def _lstat(path: Path, user_path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None  # the rest of the path does not exist yet: fine for a write
    except OSError as exc:  # ELOOP, ENOTDIR, EACCES, ENAMETOOLONG
        raise PathError(f"cannot use path {user_path!r}: {exc.strerror}") from None


def _check_file_kind(target: Path, user_path: str) -> None:
    info = _lstat(target, user_path)
    if info is None or stat.S_ISDIR(info.st_mode):
        return
    if stat.S_ISLNK(info.st_mode):  # a dangling or looping symlink left by the walk
        raise PathError(f"broken symlink: {user_path!r}")
    if not stat.S_ISREG(info.st_mode):
        raise PathError(f"not a regular file (device, FIFO or socket): {user_path!r}")
    if info.st_nlink > 1:
        raise PathError(f"hard-linked files are not allowed: {user_path!r}")


def _check_not_in_source(target: Path, root: Path, sources: Mapping[str, Path], user_path: str) -> None:
    """Refuse a write that lands in a source, unless the workspace itself lives inside that source.

    `cairn run --source . --workspace ./cairn-workspace` is common: the workspace is then inside the
    source, and writes there are the point. A source inside the workspace stays read-only.
    """
    real_root = Path(os.path.realpath(root))
    for name, source in sources.items():
        real_source = Path(os.path.realpath(source))
        if target.is_relative_to(real_source) and not real_root.is_relative_to(real_source):
            raise PathError(f"source {name!r} is read-only: {user_path!r}")
