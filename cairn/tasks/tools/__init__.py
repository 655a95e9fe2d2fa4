"""Agent tools: the built-ins, your Python functions and MCP servers' tools (docs/tools.md).

>>> from cairn.tasks.tools import tool
>>> @tool(read_only=True)
... def shout(text: str) -> str:
...     '''Upper-case a text.'''
...     return text.upper()
>>> shout("hi"), shout.__cairn_tool__.spec.params
('HI', {'text': 'string, required'})
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn._faces import lazy_names

if TYPE_CHECKING:
    from cairn.core import McpServerConfig, PythonToolConfig, ToolsConfig
    from cairn.tasks.tools.base import ToolContext, ToolOutput
    from cairn.tasks.tools.definition import Tool
    from cairn.tasks.tools.python_tools import function_tool, tool
    from cairn.tasks.toolset import Toolset, toolset_for

__all__ = [
    "McpServerConfig",
    "PythonToolConfig",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "ToolsConfig",
    "Toolset",
    "function_tool",
    "tool",
    "toolset_for",
]
_WHERE = {
    "McpServerConfig": "cairn.core.tool_config",
    "PythonToolConfig": "cairn.core.tool_config",
    "ToolsConfig": "cairn.core.tool_config",
    "ToolContext": "cairn.tasks.tools.base",
    "ToolOutput": "cairn.tasks.tools.base",
    "function_tool": "cairn.tasks.tools.python_tools",
    "tool": "cairn.tasks.tools.python_tools",
    "Tool": "cairn.tasks.tools.definition",
    "Toolset": "cairn.tasks.toolset",
    "toolset_for": "cairn.tasks.toolset",
}

__getattr__ = lazy_names(__name__, _WHERE)
