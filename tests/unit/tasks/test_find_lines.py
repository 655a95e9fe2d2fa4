"""`find_lines` is a plain line search: binary files skipped and said so, a huge one-line file
searched whole and shown around its match, a Markdown sentence under its headings; no grammar."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import TaskCreated
from cairn.memory.index.sources import skipped_sources
from cairn.memory.log.state import TaskState, replay
from cairn.tasks.grounding import names, units
from cairn.tasks.grounding.reads import passages
from cairn.tasks.task_grounding import source_files
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.tools.file_tools import list_directory, read_file
from cairn.tasks.tools.find_lines import MAX_SHOWN_CHARS, find_lines

TEAMS = """# Teams

Overview of who does what.

## Team Kestrel

Team Kestrel owns the data platform. It is
led by Tomasz.
- **Budget:** 40,000 EUR a year

| service | lead |
|---|---|
| exports | Ana |
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "teams.md").write_text(TEAMS, encoding="utf-8")
    (root / "data.bin").write_bytes(b"Kestrel led by Tomasz\x00\x01\x02" * 10)  # words, but a NUL
    (root / "paper.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\nTeam Kestrel is led by Tomasz\n")
    tail = "var a=function(e){return e};" * 80_000  # 2.3 MB of minified code on one line
    (root / "app.min.js").write_text(f"{tail}/* Kestrel, led by Tomasz */{tail}", encoding="utf-8")
    return root


@pytest.fixture
def ctx(tmp_path: Path, folder: Path) -> ToolContext:
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    return ToolContext(task_id="t", artifacts=artifacts, sources={"repo": folder})


@pytest.fixture(autouse=True)
def no_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grammar of units and names is quadratic in a unit's length: a search never needs it."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("find_lines cut a file into grammar units")

    monkeypatch.setattr(units, "units_of", refuse)
    monkeypatch.setattr(units, "names", refuse)
    monkeypatch.setattr(names, "names", refuse)


def test_lines_are_found_by_lemma_under_their_headings_and_binary_files_are_skipped(ctx: ToolContext) -> None:
    out = find_lines(ctx, "source:repo", "leads Kestrel")
    lines = out.text.splitlines()
    assert lines[0].startswith("[lines source:repo/app.min.js:1] ") and "led by Tomasz" in lines[0]
    assert lines[1] == (
        "[lines source:repo/docs/teams.md:7 | Teams › Team Kestrel] It is led by Tomasz."  # wrapped
    )
    # the row's `lead` is its header's, `Kestrel` its heading's
    assert (
        lines[2] == "[lines source:repo/docs/teams.md:13 | Teams › Team Kestrel] service: exports; lead: Ana"
    )
    assert lines[3] == "[skipped 2 binary or too large files: source:repo/data.bin, source:repo/paper.pdf]"
    assert lines[4:] == ["(3 of 3 matching lines)"]
    assert out.paths == ["source:repo/app.min.js", "source:repo/docs/teams.md"]


def test_a_huge_one_line_file_is_searched_whole_and_shown_around_its_match(ctx: ToolContext) -> None:
    out = find_lines(ctx, "source:repo/app.min.js", "Tomasz")
    (read,) = passages(out.text)
    assert (read.source, read.line) == ("source:repo/app.min.js", 1)
    assert "Kestrel, led by Tomasz" in read.text and len(read.text) <= MAX_SHOWN_CHARS
    assert out.text.endswith("(1 of 1 matching lines)")


def test_heading_words_count_for_the_lines_under_them_and_rows_are_spelled(ctx: ToolContext) -> None:
    budget = find_lines(ctx, "source:repo/docs/teams.md", "Kestrel budget")
    assert passages(budget.text)[0].text == "Budget: 40,000 EUR a year"  # the heading gives `Kestrel`
    row = find_lines(ctx, "source:repo/docs/teams.md", "lead exports")
    (read,) = passages(row.text)
    assert (read.line, read.about, read.text) == (13, "Teams › Team Kestrel", "service: exports; lead: Ana")
    assert find_lines(ctx, "source:repo", "Kestrel quarterly").text == (
        "[skipped 2 binary or too large files: source:repo/data.bin, source:repo/paper.pdf]\n"
        "(0 of 0 matching lines)"
    )


def test_binary_sources_are_not_source_files_and_are_recorded_as_skipped(folder: Path) -> None:
    state = TaskState(goal="Who leads Team Kestrel?", sources={"repo": str(folder)})
    assert source_files(state) == ["source:repo/app.min.js", "source:repo/docs/teams.md"]
    skipped = skipped_sources({"repo": str(folder)})
    assert skipped == {"source:repo/data.bin": "binary", "source:repo/paper.pdf": "binary"}
    created = TaskCreated(task_id="t", goal="g", task_type="simple_question", skipped_sources=skipped)
    assert replay([created]).skipped_sources == skipped


def test_the_file_tools_skip_binary_files_and_say_so(ctx: ToolContext) -> None:
    listing = list_directory(ctx, "source:repo").text.splitlines()
    assert [line.split("\t")[0] for line in listing[:2]] == [
        "source:repo/app.min.js",
        "source:repo/docs/teams.md",
    ]
    assert listing[2:] == [
        "[skipped 2 binary or too large files: source:repo/data.bin, source:repo/paper.pdf]"
    ]
    assert read_file(ctx, "source:repo/paper.pdf").text.startswith("source:repo/paper.pdf is a binary file")
