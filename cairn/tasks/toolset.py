"""A task's tools: the built-ins, its Python tools and its MCP servers' tools, behind its allow-list.

A `Toolset` is built per process from the task's `ToolsConfig` (plain data recorded in its
history), so the iteration that runs after a crash, in another process, has the same tools.
`execute` is the one way a call runs: an unknown or disallowed tool and bad arguments are failed
outputs, each tool gets its timeout (through `ToolContext.timeout_s`) and its output is capped.

>>> toolset = toolset_for(ToolsConfig(allow=["read_file", "list_*"]))
>>> sorted(toolset.names())
['list_directory', 'read_file']
"""

from __future__ import annotations

import fnmatch
import logging
import threading
from collections.abc import Iterable

from cairn.core import PlannedCall, ToolsConfig, UsageError
from cairn.tasks.messages.schemas import ToolSpec
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.builtins import BUILTINS
from cairn.tasks.tools.definition import Tool
from cairn.tasks.tools.mcp.client import McpUnavailable
from cairn.tasks.tools.mcp.tools import call_unlisted, server_tools
from cairn.tasks.tools.python_tools import kept_tool, load_python_tool

log = logging.getLogger("cairn.tools")


class ToolConfigError(UsageError):
    """A tool configuration that cannot work: a clash of names, an allow-list entry matching nothing."""


class Toolset:
    def __init__(self, tools: Iterable[Tool], config: ToolsConfig | None = None) -> None:
        self.config = config or ToolsConfig()
        self.everything = {t.name: t for t in tools}  # before the allow-list
        self._tools = {n: t for n, t in self.everything.items() if allowed(n, self.config.allow)}
        self.problems: list[str] = []  # servers that could not be listed (lenient builds)

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self._tools.values()]

    def get(self, name: str) -> Tool | None:
        """The tool, or for `server.tool` of a configured server whose listing failed here, a tool
        that tries the server again when called (and fails with its reason)."""
        found = self._tools.get(name)
        server, _, tool = name.partition(".")
        if found is None and tool and allowed(name, self.config.allow):
            config = next((s for s in self.config.mcp if s.name == server), None)
            return call_unlisted(config, tool) if config else None
        return found

    def read_only(self, name: str) -> bool:
        """A call to an unknown tool changes nothing: it fails before anything runs."""
        tool = self.get(name)
        return tool is None or tool.read_only

    def run_name(self, call: PlannedCall) -> str:
        tool = self.get(call.tool)
        return tool.run_name(call.params) if tool else call.tool

    def execute(self, ctx: ToolContext, call: PlannedCall) -> ToolOutput:
        tool = self.get(call.tool)
        if tool is None:
            why = "is not allowed in this task" if call.tool in self.everything else "does not exist"
            return failure(f"tool {call.tool!r} {why}; available: {', '.join(sorted(self._tools))}", "error")
        timeout = tool.timeout_s or self.config.timeout_s
        output = tool.run(ctx.model_copy(update={"timeout_s": timeout}), dict(call.params))
        return cap(output, tool.max_output_chars or self.config.max_output_chars)


def allowed(name: str, patterns: list[str] | None) -> bool:
    return patterns is None or any(fnmatch.fnmatchcase(name, p) for p in patterns)


def cap(output: ToolOutput, limit: int) -> ToolOutput:
    """The output with its text cut at `limit` characters, saying how much was cut."""
    if len(output.text) <= limit:
        return output
    cut = len(output.text) - limit
    return output.model_copy(update={"text": f"{output.text[:limit]}\n[... {cut} more characters cut]"})


_BUILT: dict[str, Toolset] = {}
_LOCK = threading.Lock()


def toolset_for(config: ToolsConfig, *, strict: bool = False) -> Toolset:
    """This process's toolset for a configuration. `strict` (at the CLI, before a task starts): a
    server that cannot start raises; otherwise it is logged, and its tools fail when called."""
    with _LOCK:
        built = _BUILT.get(config.key())
        if built is not None and not (strict and built.problems):
            return built
        built = build(config, strict=strict)
        _BUILT[config.key()] = built
        return built


def build(config: ToolsConfig, *, strict: bool) -> Toolset:
    own = [load_python_tool(p) for p in config.python] + [kept_tool(ref) for ref in config.objects]
    # A tool of the user's own named like a built-in (an API's `read_file`) takes its place.
    tools = [t for t in BUILTINS if t.name not in {o.name for o in own}] + own
    problems: list[str] = []
    for server in config.mcp:
        try:
            tools += server_tools(server)
        except McpUnavailable as exc:
            if strict:
                raise
            problems.append(str(exc))
            log.warning("%s; its tools fail until it starts", exc)
    _check(tools, config, strict=strict and not problems)
    toolset = Toolset(tools, config)
    toolset.problems = problems
    return toolset


def _check(tools: list[Tool], config: ToolsConfig, *, strict: bool) -> None:
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise ToolConfigError(f"two tools are named {tool.name!r}: rename one (`@tool(name=...)`)")
        seen.add(tool.name)
    for pattern in config.allow or []:
        if strict and not any(fnmatch.fnmatchcase(name, pattern) for name in seen):
            raise ToolConfigError(f"--allow-tools: {pattern!r} matches no tool (see `cairn tools list`)")
