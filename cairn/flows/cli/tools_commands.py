"""`cairn tools list` and `cairn tools call`, and the tool options of `cairn run`.

The configuration comes from `--tools FILE` or the workspace's `cairn.toml`, plus `--mcp` and
`--allow-tools` (`cairn.tasks.tools.config`). Listing starts the MCP servers, so it doubles as a
check of the configuration; `call` runs one tool outside any task, in the current directory (its
file tools read and write there), through the same path as a task's calls (limits, redaction).
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from cairn.core import CairnError, JsonValue, NotFound, PlannedCall, RunConfig, ToolsConfig, UsageError
from cairn.flows.console import emit, printable, safe
from cairn.flows.loop.task_tools import prepare_tools
from cairn.flows.settings import tool_list
from cairn.tasks.calls import run_tool_call
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.tools.config import CONFIG_FILE, resolve_tools
from cairn.tasks.tools.definition import Tool


def tools_from_options(
    config: RunConfig, tools_file: Path | None, mcp: list[str], allow: str | None
) -> ToolsConfig | None:
    """The configuration the options and the workspace give; None when they give none at all
    (an existing task then keeps the tools its history records)."""
    workspace = Path(config.workspace)
    if tools_file is None and not mcp and allow is None and not (workspace / CONFIG_FILE).is_file():
        return None
    return resolve_tools(workspace, tools_file, mcp, list(tool_list(allow) or ()) if allow else None)


def list_command(tools: ToolsConfig, as_json: bool) -> None:

    toolset = prepare_tools(tools)
    if as_json:
        emit({"tools": [tool_row(t) for t in toolset.tools()]})
        return
    out = Console(highlight=False)
    for t in toolset.tools():
        effect = "read-only" if t.read_only else "[yellow]side effects[/]"
        where = f"mcp:{t.server}" if t.server else t.kind
        out.print(f"[bold]{safe(t.name)}[/]  {effect}  [dim]{where}[/]  {safe(t.spec.description)}")
        for param, about in t.spec.params.items():
            out.print(f"    {safe(param)}: {safe(about)}", soft_wrap=True)


def tool_row(tool: Tool) -> dict[str, object]:
    """One tool as `cairn tools list --json` shows it."""
    spec = tool.spec
    return {
        "name": tool.name,
        "kind": tool.kind,
        "server": tool.server,
        "read_only": tool.read_only,
        "destructive": spec.destructive,
        "description": spec.description,
        "params": spec.params,
        "input_schema": tool.input_schema,
    }


def call_command(config: RunConfig, tools: ToolsConfig, name: str, arguments: str, as_json: bool) -> None:

    params = parse_arguments(arguments)
    toolset = prepare_tools(tools)
    if toolset.get(name) is None:
        raise NotFound(f"no tool {name!r}; `cairn tools list` shows them")
    ctx = ToolContext(task_id="cli", artifacts=Path.cwd(), workspace=Path(config.workspace), tools=tools)
    output = run_tool_call(ctx, PlannedCall(tool=name, params=params))
    if as_json:
        emit(
            {"tool": name, **output.model_dump(mode="json", include={"outcome", "text", "error", "seconds"})}
        )
    elif output.outcome in ("success", "failure") and output.text != output.error:
        print(printable(output.text))  # what the tool said, a failing test run's output included
    if output.outcome != "success":
        reason = " ".join((output.error or output.text or "no output").split())
        raise ToolCallFailed(f"{name} {output.outcome}: {reason[:300]}")


class ToolCallFailed(CairnError):
    """A tool called from the command line did not succeed (refused arguments included): one line."""


def parse_arguments(text: str) -> dict[str, JsonValue]:
    """The call's arguments: a JSON object.

    >>> parse_arguments('{"timezone": "UTC"}')
    {'timezone': 'UTC'}
    """
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise UsageError(f"arguments are not JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(value, dict):
        raise UsageError('arguments must be a JSON object, e.g. \'{"path": "notes.md"}\'')
    return value
