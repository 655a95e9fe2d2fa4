"""An MCP server's tools as Cairn tools: named `server.tool`, their schemas and annotations kept.

A tool is read-only when the server says so (`readOnlyHint`) and does not also call it
destructive (`destructiveHint`); anything else has side effects, and is marked destructive unless
the server says it is not (the MCP default). A tool the server calls idempotent (`idempotentHint`)
is run again after a crash mid-call; any other with side effects waits for a person's decision
(`cairn.flows.loop.uncertain`). A result becomes an output: its text blocks, other
blocks named, structured content as JSON when there is no text; `isError` makes it a failure. A
refused call or a server that stopped is a failed call with one line, never a crash.

>>> from mcp_types import TextContent
>>> from mcp_types import CallToolResult
>>> result_output(CallToolResult(content=[TextContent(text="12:00")])).text
'12:00'
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from cairn.core import JsonValue, McpServerConfig
from cairn.tasks.messages.schemas import ToolSpec
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.definition import Tool, make_spec
from cairn.tasks.tools.mcp.client import POOL, McpPool, McpTimeout, McpUnavailable

if TYPE_CHECKING:  # the SDK is imported when a server starts (`cairn.tasks.tools.mcp.client`)
    from mcp_types import CallToolResult
    from mcp_types import Tool as McpTool


def server_tools(server: McpServerConfig, pool: McpPool = POOL) -> list[Tool]:
    """List the server's tools (starting it if needed); raises `McpUnavailable` if it cannot start."""
    return [as_tool(server, listed, pool) for listed in pool.tools(server)]


def as_tool(server: McpServerConfig, listed: McpTool, pool: McpPool = POOL) -> Tool:
    hints = listed.annotations
    read_only = bool(hints and hints.read_only_hint) and not (hints and hints.destructive_hint)
    destructive = not read_only and (hints is None or hints.destructive_hint is not False)
    description = " ".join((listed.description or listed.title or listed.name).split())[:1000]
    spec = make_spec(f"{server.name}.{listed.name}", description, listed.input_schema, read_only, destructive)
    return Tool(
        spec=spec,
        run=_runner(server, listed.name, pool),
        input_schema=listed.input_schema,
        kind="mcp",
        server=server.name,
        timeout_s=server.timeout_s,
        max_output_chars=server.max_output_chars,
        idempotent=bool(hints and hints.idempotent_hint),  # the server says a call may be repeated
    )


def call_unlisted(server: McpServerConfig, name: str, pool: McpPool = POOL) -> Tool:
    """A tool of a server that could not be listed in this process: calling it says why."""
    spec = ToolSpec(name=f"{server.name}.{name}", description="(not listed)", params={}, read_only=False)
    return Tool(spec=spec, run=_runner(server, name, pool), input_schema={}, kind="mcp", server=server.name)


def _runner(server: McpServerConfig, name: str, pool: McpPool) -> Any:
    def run(ctx: ToolContext, params: dict[str, JsonValue]) -> ToolOutput:
        from mcp.shared.exceptions import MCPError

        try:
            result = pool.call(server, name, dict(params), ctx.timeout_s)
        except McpTimeout as exc:
            return failure(str(exc), "timeout")
        except McpUnavailable as exc:
            return failure(str(exc), "error")
        except MCPError as exc:
            return failure(f"MCP {server.name}.{name} refused the call: {exc.error.message}", "error")
        return result_output(result)

    return run


def result_output(result: CallToolResult) -> ToolOutput:
    parts = [_block_text(block) for block in result.content]
    text = "\n".join(p for p in parts if p)
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, indent=2, ensure_ascii=False, default=str)
    if result.is_error:
        return failure(text or "the tool reported an error")
    return ToolOutput(text=text or "(no output)")


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        inner = block.resource
        return str(getattr(inner, "text", "") or f"[resource {inner.uri}]")
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    mime = getattr(block, "mime_type", "")
    return f"[{kind} {mime}, {len(getattr(block, 'data', '') or '')} base64 characters]"
