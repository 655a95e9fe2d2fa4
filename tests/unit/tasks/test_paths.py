"""The workspace jail: every escape is refused with a PathError, and nothing is written."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.tasks.tools.paths import PathError, resolve_path


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """A workspace, a read-only source and an outside directory holding a secret."""
    ws, src, outside = tmp_path / "ws", tmp_path / "src", tmp_path / "outside"
    for folder in (ws / "a", src / "docs", outside):
        folder.mkdir(parents=True)
    (outside / "secret.txt").write_text("secret")
    (src / "docs" / "guide.md").write_text("guide")
    (ws / "a" / "note.md").write_text("note")
    return {"ws": ws, "src": src, "outside": outside}


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
        for p in sorted(root.rglob("*"))
        if not stat.S_ISFIFO(os.lstat(p).st_mode)
    }


def refused(tree: dict[str, Path], user_path: str, *, for_write: bool = False) -> str:
    before = snapshot(tree["ws"].parent)
    with pytest.raises(PathError) as info:
        resolve_path(tree["ws"], user_path, readonly_roots={"src": tree["src"]}, for_write=for_write)
    assert snapshot(tree["ws"].parent) == before  # nothing is written on refusal
    message = str(info.value)
    assert "\n" not in message
    return message


def test_plain_paths_resolve_inside_the_workspace(tree: dict[str, Path]) -> None:
    ws = tree["ws"].resolve()
    assert resolve_path(tree["ws"], "a/note.md", for_write=False) == ws / "a" / "note.md"
    assert resolve_path(tree["ws"], "./new/deep/file.txt", for_write=True) == ws / "new" / "deep" / "file.txt"
    assert resolve_path(tree["ws"], ".", for_write=False) == ws


@pytest.mark.parametrize("path", ["../x", "a/../../outside/secret.txt", "a/..", ".."])
def test_dot_dot_is_refused(tree: dict[str, Path], path: str) -> None:
    assert "'..'" in refused(tree, path)


def test_absolute_path_is_refused(tree: dict[str, Path]) -> None:
    assert "absolute" in refused(tree, "/etc/passwd")
    assert "absolute" in refused(tree, str(tree["outside"] / "secret.txt"), for_write=True)


def test_symlink_pointing_out_is_refused(tree: dict[str, Path]) -> None:
    (tree["ws"] / "out").symlink_to(tree["outside"])
    (tree["ws"] / "leak.txt").symlink_to(tree["outside"] / "secret.txt")
    assert "symlink" in refused(tree, "out/secret.txt")
    assert "symlink" in refused(tree, "leak.txt")
    assert "symlink" in refused(tree, "leak.txt", for_write=True)


def test_symlink_in_the_middle_of_the_path_is_refused(tree: dict[str, Path]) -> None:
    (tree["ws"] / "a" / "mid").symlink_to(tree["outside"])
    assert "symlink" in refused(tree, "a/mid/secret.txt")
    assert "symlink" in refused(tree, "a/mid/new.txt", for_write=True)


def test_symlink_out_and_back_in_is_refused(tree: dict[str, Path]) -> None:
    (tree["outside"] / "back").symlink_to(tree["ws"] / "a")
    (tree["ws"] / "hop").symlink_to(tree["outside"])
    assert "symlink" in refused(tree, "hop/back/note.md")


def test_symlink_staying_inside_is_followed(tree: dict[str, Path]) -> None:
    (tree["ws"] / "alias").symlink_to(tree["ws"] / "a")
    assert resolve_path(tree["ws"], "alias/note.md", for_write=True) == tree["ws"].resolve() / "a" / "note.md"


def test_symlink_loop_is_refused(tree: dict[str, Path]) -> None:
    (tree["ws"] / "loop").symlink_to(tree["ws"] / "loop")
    refused(tree, "loop")
    refused(tree, "loop/x", for_write=True)


def test_hard_link_to_an_outside_file_is_refused(tree: dict[str, Path]) -> None:
    os.link(tree["outside"] / "secret.txt", tree["ws"] / "hard.txt")
    assert "hard-linked" in refused(tree, "hard.txt")
    assert "hard-linked" in refused(tree, "hard.txt", for_write=True)


def test_fifo_and_socket_are_refused(tree: dict[str, Path]) -> None:
    os.mkfifo(tree["ws"] / "fifo")
    assert "FIFO" in refused(tree, "fifo")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tree["ws"] / "sock"))
        assert "socket" in refused(tree, "sock", for_write=True)


def test_device_file_is_refused(tree: dict[str, Path]) -> None:
    try:
        os.mknod(tree["ws"] / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot create a device node here")
    assert "device" in refused(tree, "null", for_write=True)


@pytest.mark.parametrize("path", ["a\x00b", "a\nb", "a/\x1bb", "x\x7f", "", "   ", "a" * 256, "a/" * 2100])
def test_bad_names_are_refused(tree: dict[str, Path], path: str) -> None:
    refused(tree, path)


def test_lone_surrogate_is_refused(tree: dict[str, Path]) -> None:
    assert "unicode" in refused(tree, "bad\udc80name")


def test_sources_are_readable_but_never_writable(tree: dict[str, Path]) -> None:
    sources = {"src": tree["src"]}
    got = resolve_path(tree["ws"], "source:src/docs/guide.md", readonly_roots=sources, for_write=False)
    assert got == tree["src"].resolve() / "docs" / "guide.md"
    assert "read-only" in refused(tree, "source:src/docs/guide.md", for_write=True)
    assert "read-only" in refused(tree, "source:src/new.md", for_write=True)
    assert "unknown source" in refused(tree, "source:nope/x")
    assert "absolute" in refused(tree, "source:src//etc/passwd")
    assert "'..'" in refused(tree, "source:src/../outside/secret.txt")


def test_source_inside_the_workspace_stays_read_only(tree: dict[str, Path]) -> None:
    inner = tree["ws"] / "vendor"
    inner.mkdir()
    with pytest.raises(PathError, match="read-only"):
        resolve_path(tree["ws"], "vendor/x.py", readonly_roots={"v": inner}, for_write=True)


def test_workspace_inside_a_source_is_writable(tree: dict[str, Path]) -> None:
    ws = tree["src"] / "cairn-workspace"
    ws.mkdir()
    got = resolve_path(ws, "out.md", readonly_roots={"src": tree["src"]}, for_write=True)
    assert got == ws.resolve() / "out.md"


# --- property: nothing generated ever resolves outside the allowed roots -------------------------

PARTS = ["..", ".", "", "a", "b", "note.md", "out", "mid", "alias", "loop", "hard.txt", "fifo"]
PARTS += ["ü", "\x00", "😀", "a\nb", "source:src"]


@pytest.fixture(scope="module")
def fuzz_tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("fuzz")
    ws, src, outside = base / "ws", base / "src", base / "outside"
    for folder in (ws / "a" / "b", src / "a", outside / "a"):
        folder.mkdir(parents=True)
    (outside / "note.md").write_text("secret")
    (outside / "back").symlink_to(ws / "a")
    (ws / "a" / "note.md").write_text("note")
    (ws / "out").symlink_to(outside)
    (ws / "a" / "mid").symlink_to(outside / "a")
    (ws / "alias").symlink_to(ws / "a")
    (ws / "loop").symlink_to(ws / "loop")
    (src / "out").symlink_to(outside)
    (src / "alias").symlink_to(ws)
    os.link(outside / "note.md", ws / "hard.txt")
    os.mkfifo(ws / "fifo")
    return {"ws": ws, "src": src, "outside": outside}


paths = st.tuples(
    st.sampled_from(["", "/", "source:src/", "source:nope/", "source:src"]),
    st.lists(st.one_of(st.sampled_from(PARTS), st.text(max_size=4)), max_size=6),
).map(lambda t: t[0] + "/".join(t[1]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user_path=paths, for_write=st.booleans())
def test_no_generated_path_escapes(fuzz_tree: dict[str, Path], user_path: str, for_write: bool) -> None:
    ws, src = fuzz_tree["ws"].resolve(), fuzz_tree["src"].resolve()
    try:
        got = resolve_path(fuzz_tree["ws"], user_path, readonly_roots={"src": src}, for_write=for_write)
    except PathError:
        return
    assert got == Path(os.path.realpath(got))
    assert got.is_relative_to(ws) or (not for_write and got.is_relative_to(src))
    if got.exists():
        info = os.stat(got)
        assert stat.S_ISDIR(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_nlink == 1)
