"""Tools served by MCP servers: the connection pool and the tools it lists."""

from __future__ import annotations

from cairn.tasks.tools.mcp.client import McpPool, McpUnavailable
from cairn.tasks.tools.mcp.tools import call_unlisted, server_tools

__all__ = ["McpPool", "McpUnavailable", "call_unlisted", "server_tools"]
