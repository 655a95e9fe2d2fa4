"""summarize_directory: a virtual README of a folder, as a function and as a registered tool."""

from __future__ import annotations

from pathlib import Path

from cairn.core import PlannedCall, ToolsConfig
from cairn.memory.index.directory_summary import summarize_directory
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.toolset import toolset_for

SERVICE = '''"""Payment services: charges and refunds."""


def charge(amount: float) -> str:
    """Charge a card and return the receipt id."""
    return "r1"


def _helper() -> None:
    pass


class Refunds:
    """Refund bookkeeping."""
'''


def _tree(root: Path) -> Path:
    (root / "src" / "api").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    (root / "README.md").write_text("# Shop\n\nA small shop backend.\n")
    (root / "src" / "api" / "services.py").write_text(SERVICE)
    (root / "src" / "notes.txt").write_text("\nTodo: add invoices.\n")
    (root / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    return root


def test_summary_lists_files_purposes_and_key_functions(tmp_path: Path) -> None:
    summary = summarize_directory(_tree(tmp_path))
    by_path = {f.path: f for f in summary.files}
    assert set(by_path) == {"README.md", "src/api/services.py", "src/notes.txt"}  # .git skipped
    assert summary.skipped == 1  # logo.png: binary, counted, not summarized
    assert by_path["README.md"].purpose == "Shop"
    assert by_path["src/notes.txt"].purpose == "Todo: add invoices."
    service = by_path["src/api/services.py"]
    assert service.purpose == "Payment services: charges and refunds."
    assert service.key_items == [
        "def charge(amount: float) -> str — Charge a card and return the receipt id.",
        "class Refunds — Refund bookkeeping.",
    ]
    assert summary.folders == {"src": 2}
    text = summary.render(title="shop")
    assert text.startswith("# shop (virtual README)\n3 files") and "## src/api/services.py — Payment" in text
    assert text.endswith("[skipped 1 binary or too large file]")
    assert summarize_directory(tmp_path, max_files=1).truncated == 2


def test_the_tool_is_registered_and_reads_sources_but_not_outside(tmp_path: Path) -> None:
    source = _tree(tmp_path / "shop")
    ctx = ToolContext(task_id="t", artifacts=tmp_path / "ws", sources={"shop": source})
    (tmp_path / "ws").mkdir()
    tools = toolset_for(ToolsConfig())
    assert "summarize_directory" in tools.names()
    out = tools.execute(ctx, PlannedCall(tool="summarize_directory", params={"path": "source:shop/src"}))
    assert out.outcome == "success" and "def charge(amount: float) -> str" in out.text
    assert "source:shop/src/api/services.py" in out.paths
    refused = tools.execute(ctx, PlannedCall(tool="summarize_directory", params={"path": "../shop"}))
    assert refused.outcome == "failure"
