"""Moved to `cairn.core.tool_config`; kept until 0.5, so that what names the old path still imports."""

from __future__ import annotations

from cairn.core import tool_config
from cairn.core.moved import moved
from cairn.core.tool_config import SERVER_NAME, McpServerConfig, PythonToolConfig, ToolsConfig

__all__ = ["SERVER_NAME", "McpServerConfig", "PythonToolConfig", "ToolsConfig"]

moved(__name__, tool_config)
