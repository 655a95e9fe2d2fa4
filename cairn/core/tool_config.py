"""A task's tool configuration as plain data: Python tools, MCP servers, the allow-list, limits.

It is recorded in the task's history (`ToolsConfigured`), so every process that runs the task —
`cairn resume`, a worker executing the UI's Retry — rebuilds the same tools from it. Nothing live
is kept here: an MCP server is how to start it, a Python tool is where to import it from. Secrets
belong in the environment: an MCP server's `env` values may say `${NAME}`, expanded when the
server starts, so the history holds the reference and never the value.

>>> ToolsConfig(mcp=[McpServerConfig(name="time", command="mcp-server-time")]).mcp[0].transport
'stdio'
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from cairn.core.frozen import Frozen

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")  # no dots: an MCP tool is named `server.tool`


class McpServerConfig(Frozen):
    """One MCP server: a command to start (stdio) or a streamable-HTTP URL."""

    name: str
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)  # merged over a minimal environment
    cwd: str | None = None
    url: str | None = None
    timeout_s: float | None = None  # per call; the task's default when None
    max_output_chars: int | None = None

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if not SERVER_NAME.match(self.name):
            raise ValueError(f"MCP server name {self.name!r}: use letters, digits, '-' or '_'")
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name!r}: give either a command or a url")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"


class PythonToolConfig(Frozen):
    """A Python function as a tool: `module:function`, imported from `path` (a directory) if set."""

    function: str
    path: str | None = None
    read_only: bool | None = None  # overrides what the function's `@tool` declares
    idempotent: bool | None = None  # the same: safe to run again after a crash mid-call
    timeout_s: float | None = None
    max_output_chars: int | None = None

    @model_validator(mode="after")
    def _module_and_name(self) -> PythonToolConfig:
        module, _, name = self.function.partition(":")
        if not module or not name.isidentifier():
            raise ValueError(f"Python tool {self.function!r}: write it as module:function")
        return self


class ToolsConfig(Frozen):
    """Which tools a task has beyond the built-ins, which it may use, and their limits."""

    python: list[PythonToolConfig] = Field(default_factory=list)
    # Functions given to `run_task` as objects that no import finds again: kept in the process
    # that was given them (`cairn.tasks.tools.python_tools`), as `name@token`.
    objects: list[str] = Field(default_factory=list)
    mcp: list[McpServerConfig] = Field(default_factory=list)
    allow: list[str] | None = None  # tool names or globs (`git.*`); None: every tool
    timeout_s: float = Field(default=120.0, gt=0)  # per call, unless a tool says otherwise
    max_output_chars: int = Field(default=100_000, ge=100)

    @model_validator(mode="after")
    def _unique_servers(self) -> ToolsConfig:
        names = [server.name for server in self.mcp]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"MCP server {twice[0]!r} is configured twice")
        return self

    @property
    def is_default(self) -> bool:
        return self == ToolsConfig()

    def key(self) -> str:
        """A stable identity, for caching what a process builds from this configuration."""
        return self.model_dump_json()
