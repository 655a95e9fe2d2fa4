"""Reading a tool configuration: `cairn.toml` (or `--tools FILE`), `--mcp NAME=COMMAND`, `--allow-tools`.

    [tools]
    allow = ["read_file", "write_file", "time.*", "word_count"]   # optional: default every tool
    timeout_s = 60                                                # per call (default 120)
    max_output_chars = 50000                                      # per call (default 100000)
    python = ["mytools:word_count", { function = "mytools:append_note", timeout_s = 5 }]

    [tools.mcp.time]
    command = "mcp-server-time"
    args = ["--local-timezone", "UTC"]
    env = { TOKEN = "${MY_TOKEN}" }    # expanded when the server starts; history keeps ${MY_TOKEN}

    [tools.mcp.docs]
    url = "http://127.0.0.1:8000/mcp"  # streamable HTTP

A Python tool is imported from the directory of the file that names it. Every problem is one line:
the file, where in it, and what is wrong.

>>> parse_mcp_option("time=mcp-server-time --local-timezone UTC").args
['--local-timezone', 'UTC']
"""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cairn.core import McpServerConfig, ToolsConfig, UsageError

CONFIG_FILE = "cairn.toml"


class ToolFileError(UsageError):
    """A tool configuration file or option that cannot be read."""


def resolve_tools(
    workspace: Path, tools_file: Path | None, mcp: list[str], allow: list[str] | None
) -> ToolsConfig:
    """The configuration from `tools_file`, else the workspace's `cairn.toml` if there is one,
    with the `--mcp` servers added (replacing any of the same name) and `--allow-tools` applied."""
    path = tools_file or workspace / CONFIG_FILE
    if tools_file is not None and not tools_file.is_file():
        raise ToolFileError(f"tools file not found: {tools_file}")
    base = load_file(path) if path.is_file() else ToolsConfig()
    extra = [parse_mcp_option(text) for text in mcp]
    servers = {s.name: s for s in base.mcp} | {s.name: s for s in extra}
    return base.model_copy(
        update={"mcp": list(servers.values()), "allow": allow if allow is not None else base.allow}
    )


def load_file(path: Path) -> ToolsConfig:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolFileError(f"{path}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ToolFileError(f"{path}: invalid TOML ({exc})") from None
    section = data.get("tools", {})
    if not isinstance(section, dict):
        raise ToolFileError(f"{path}: [tools] must be a table")
    return from_table(section, path)


def from_table(section: dict[str, Any], path: Path) -> ToolsConfig:
    """The `[tools]` table as a `ToolsConfig`; Python tools import from the file's directory."""
    here = str(path.resolve().parent)
    table = dict(section)
    python = table.get("python", [])
    servers = table.get("mcp", {})
    if not isinstance(python, list) or not isinstance(servers, dict):
        raise ToolFileError(f"{path}: tools.python must be a list and [tools.mcp] a table of servers")
    table["python"] = [_python_entry(entry, here) for entry in python]
    table["mcp"] = [{"name": name, **(s if isinstance(s, dict) else {})} for name, s in servers.items()]
    try:
        return ToolsConfig.model_validate(table)
    except ValidationError as exc:
        raise ToolFileError(f"{path}: {_first(exc, table)}") from None


def parse_mcp_option(text: str) -> McpServerConfig:
    """`NAME=COMMAND ARGS...` (split like a shell would) as a stdio server."""
    name, sep, command = text.partition("=")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ToolFileError(f"--mcp {text!r}: {exc}") from None
    if not sep or not name.strip() or not words:
        raise ToolFileError(f"--mcp {text!r}: write it as NAME=COMMAND, e.g. time=mcp-server-time")
    try:
        return McpServerConfig(name=name.strip(), command=words[0], args=words[1:])
    except ValidationError as exc:
        raise ToolFileError(
            f"--mcp {text!r}: {exc.errors()[0]['msg'].removeprefix('Value error, ')}"
        ) from None


def _python_entry(entry: object, here: str) -> object:
    if isinstance(entry, str):
        return {"function": entry, "path": here}
    if isinstance(entry, dict):
        return {"path": here, **entry}
    return entry


def _first(exc: ValidationError, table: dict[str, Any]) -> str:
    """The first error, located the way the file names it (`tools.mcp.time.command`)."""
    error = exc.errors()[0]
    loc = list(error["loc"])
    if len(loc) >= 2 and loc[0] == "mcp" and isinstance(loc[1], int):
        loc[1] = table["mcp"][loc[1]].get("name", loc[1])
    where = ".".join(str(part) for part in ["tools", *loc])
    return f"{where}: {error['msg'].removeprefix('Value error, ')}"
