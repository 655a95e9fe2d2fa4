"""Tools passed to `run_task` as Python objects: recorded so another process can rebuild them where
an import finds them again, kept in this process where none can, and marked by what they change."""

from __future__ import annotations

import pytest

from cairn.core import ToolsConfig
from cairn.tasks.tools import tool
from cairn.tasks.tools.python_tools import ToolDefinitionError, kept_tool, tools_config
from cairn.tasks.toolset import build


@tool(side_effects=False)
def balance() -> float:
    """The account's balance."""
    return 1.0


def test_a_top_level_function_is_recorded_by_name_a_closure_is_kept_here() -> None:
    sent: list[str] = []

    def pay(to: str) -> str:
        """Pay someone."""
        sent.append(to)
        return "paid"

    config = tools_config([balance, pay], ToolsConfig(allow=["balance", "pay", "answer"]))
    assert [p.function for p in config.python] == [f"{__name__}:balance"]
    assert [ref.split("@")[0] for ref in config.objects] == ["pay"] and config.allow == [
        "balance",
        "pay",
        "answer",
    ]
    toolset = build(config, strict=True)
    assert toolset.read_only("balance") and not toolset.read_only("pay")  # undeclared: it changes the world
    assert sorted(toolset.names()) == ["answer", "balance", "pay"]


def test_a_tool_kept_by_another_process_is_one_clear_error() -> None:
    with pytest.raises(ToolDefinitionError, match="given to run_task as an object in another process"):
        kept_tool("pay@1234")


def test_a_users_tool_named_like_a_built_in_takes_its_place() -> None:
    def read_file(file_path: str) -> str:
        """Read one of the bank's files."""
        return "bank file"

    toolset = build(tools_config([read_file]), strict=True)
    found = toolset.get("read_file")
    assert found is not None and found.kind == "python" and "file_path" in found.input_schema["properties"]


def test_side_effects_says_what_read_only_says_and_never_both() -> None:
    @tool(side_effects=True)
    def send(to: str) -> str:
        """Send."""
        return to

    assert send.__cairn_tool__.read_only is False
    with pytest.raises(ToolDefinitionError, match="opposite"):
        tool(read_only=True, side_effects=True)
