"""One tool: what the planner sees (its `ToolSpec`), how it runs, and where it comes from.

A tool is built-in, a Python function (`cairn.tasks.tools.python_tools`) or an MCP server's tool
(`cairn.tasks.tools.mcp.tools`); a `Toolset` (`cairn.tasks.toolset`) holds a task's tools.
Its runner takes the call's context and its arguments; the context carries the call's timeout.

>>> schema = {"properties": {"tz": {"type": "string", "description": "IANA name"}}, "required": ["tz"]}
>>> compact_params(schema)
{'tz': 'string, required: IANA name'}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from cairn.core import JsonValue, main_argument
from cairn.tasks.messages.schemas import ToolSpec, needs_schema
from cairn.tasks.tools.base import ToolContext, ToolOutput

ToolKind = Literal["builtin", "python", "mcp"]
Runner = Callable[[ToolContext, dict[str, JsonValue]], ToolOutput]
# Whether an interrupted call took effect, found by looking: the output it had, or None (it had not).
Settle = Callable[[ToolContext, dict[str, JsonValue]], ToolOutput | None]


@dataclass(frozen=True)
class Tool:
    """A tool and its limits (None: the task's default)."""

    spec: ToolSpec
    run: Runner
    input_schema: dict[str, Any]  # the full JSON schema of its arguments (the spec has it if needed)
    kind: ToolKind = "python"
    server: str | None = None  # the MCP server it belongs to
    timeout_s: float | None = None
    max_output_chars: int | None = None
    # After a crash mid-call (docs/tools.md, "Side effects: at most once"): `idempotent`, running
    # it again leaves what running it once does; `settle`, Cairn can look whether it took effect.
    idempotent: bool = False
    settle: Settle | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def read_only(self) -> bool:
        return self.spec.read_only

    def run_name(self, params: dict[str, JsonValue]) -> str:
        """How a call shows in Prefect: `read_file-notes.md`, `mcp:time.get_current_time-Europe/Paris`."""
        prefix = "mcp:" if self.kind == "mcp" else ""
        arg = main_argument(params) or (first_string(params) if self.kind != "builtin" else "")
        return f"{prefix}{self.name}-{arg}" if arg else f"{prefix}{self.name}"


def make_spec(
    name: str, description: str, schema: dict[str, Any], read_only: bool, destructive: bool = False
) -> ToolSpec:
    """The planner's view of a tool: compact params, the schema itself only where they fall short."""
    return ToolSpec(
        name=name,
        description=description,
        params=compact_params(schema),
        read_only=read_only,
        destructive=destructive,
        input_schema=schema if needs_schema(schema) else {},
    )


def first_string(params: dict[str, JsonValue]) -> str:
    """The first short text argument, for tools whose parameters have names of their own."""
    for value in params.values():
        if isinstance(value, str) and value.strip():
            return value if len(value) <= 60 else value[:57] + "..."
    return ""


def compact_params(schema: dict[str, Any]) -> dict[str, str]:
    """A JSON schema's parameters as the planner reads them: name -> "type[, required]: description"."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    required = set(schema.get("required") or [])
    out: dict[str, str] = {}
    for name, prop in props.items():
        kind = _type_of(prop) if isinstance(prop, dict) else "any"
        flag = ", required" if name in required else ""
        about = str(prop.get("description") or "") if isinstance(prop, dict) else ""
        out[str(name)] = f"{kind}{flag}: {about}".rstrip(": ") if about else f"{kind}{flag}"
    return out


def _type_of(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + ", ".join(json.dumps(v) for v in prop["enum"])
    if "anyOf" in prop:
        kinds = [_type_of(p) for p in prop["anyOf"] if isinstance(p, dict) and p.get("type") != "null"]
        return " or ".join(kinds) or "any"
    kind = prop.get("type", "any")
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_type_of(prop['items'])}"
    return str(kind)


def to_output(value: object) -> ToolOutput:
    """A function's return value as a tool output: text as it is, models and data as JSON."""
    if isinstance(value, ToolOutput):
        return value
    if isinstance(value, str):
        return ToolOutput(text=value)
    if value is None:
        return ToolOutput(text="(no output)")
    if isinstance(value, BaseModel):
        return ToolOutput(text=value.model_dump_json(indent=2))
    return ToolOutput(text=json.dumps(value, indent=2, ensure_ascii=False, default=str))
