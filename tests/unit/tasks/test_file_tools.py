"""File tools stay inside the workspace; refusals are clear and write nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.tasks.tools.base import ToolContext
from cairn.tasks.tools.file_tools import list_directory, read_file, write_file


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    artifacts = tmp_path / "ws" / "artifacts"
    artifacts.mkdir(parents=True)
    source = tmp_path / "corpus"
    source.mkdir()
    (source / "a.md").write_text("# A\nalpha facts", encoding="utf-8")
    return ToolContext(task_id="t", artifacts=artifacts, sources={"corpus": source})


def _all_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize(
    "bad", ["../x", "../../etc/passwd", "/tmp/evil.txt", "a/../../x", "source:corpus/new.md"]
)
def test_writes_outside_the_workspace_are_refused_and_nothing_is_written(
    ctx: ToolContext, tmp_path: Path, bad: str
) -> None:
    before = _all_files(tmp_path)
    out = write_file(ctx, bad, "pwned")
    assert out.outcome == "failure" and out.error and "\n" not in out.error
    assert _all_files(tmp_path) == before


def test_a_symlink_pointing_out_is_refused(ctx: ToolContext, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, ctx.artifacts / "link")
    out = write_file(ctx, "link/x.txt", "pwned")
    assert out.outcome == "failure"
    assert not (outside / "x.txt").exists()
    assert read_file(ctx, "link/x.txt").outcome == "failure"


def test_write_read_and_list_inside_the_workspace(ctx: ToolContext) -> None:
    text = "# Report ✓\n" + "é" * 10
    out = write_file(ctx, "notes/report.md", text)
    assert out.outcome == "success" and out.written is not None and out.written.path == "notes/report.md"
    assert read_file(ctx, "notes/report.md").text == text
    listing = list_directory(ctx, ".")
    assert "notes/report.md" in listing.paths and "source:corpus/" in listing.text


def test_sources_are_readable_and_listed_by_address(ctx: ToolContext) -> None:
    assert "alpha facts" in read_file(ctx, "source:corpus/a.md").text
    assert list_directory(ctx, "source:corpus").paths == ["source:corpus/a.md"]


def test_missing_file_and_huge_content_are_clear_failures(ctx: ToolContext) -> None:
    assert read_file(ctx, "nope.md").error == "no such file: nope.md"
    out = write_file(ctx, "big.txt", "x" * 3_000_000)
    assert out.outcome == "failure" and "too large" in (out.error or "")
    assert not (ctx.artifacts / "big.txt").exists()


def test_a_binary_source_reads_as_a_line_saying_so_not_as_its_bytes(ctx: ToolContext, tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    (tmp_path / "corpus" / "shot.png").write_bytes(png)
    out = read_file(ctx, "source:corpus/shot.png")
    said = f"source:corpus/shot.png is a binary file ({len(png):,} bytes): it holds no text to read"
    assert out.outcome == "success" and out.text == said
    assert read_file(ctx, "source:corpus/a.md").text == "# A\nalpha facts"
