"""After a crash mid-call: whether Cairn settles an interrupted call's doubt itself, or asks.

A call with side effects interrupted before its result was recorded may or may not have taken
effect (`cairn.flows.loop.uncertain`). Asking a person is right for a tool with effects outside
the task (a user's tool, an MCP server's); for Cairn's own write into the task's repository it
stopped a research task, killed while writing its deliverable, until a person answered (issue
35). So each tool says how its doubt is settled (`rule`):

- by looking (`Tool.settle`): `write_file` and `answer` took effect when the file holds the call's
  content, or the task's last commit does; their result is then recorded without running them
  again. Otherwise the write never landed, and it runs again;
- by running again (`Tool.idempotent`): `run_tests` (Cairn runs the tests again after every write
  anyway); a user's tool that declares it (`@tool(idempotent=True)`, or `idempotent = true` in its
  configuration); an MCP tool whose server declares `idempotentHint`;
- by a person (`--on-uncertain`): everything else, `run_python` among the built-ins (a snippet may
  do anything, anywhere: the sandbox is no jail).

>>> from cairn.tasks.tools.builtins import BUILTINS
>>> ctx = ToolContext(task_id="t", artifacts=Path("/nonexistent"))
>>> tools = {t.name: t for t in BUILTINS}
>>> [rule(tools[name], ctx, {}).action for name in ("write_file", "run_tests", "run_python")]
['rerun', 'rerun', 'ask']
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from cairn.memory.models import Frozen, JsonValue
from cairn.tasks.tools.base import ToolContext, ToolOutput
from cairn.tasks.tools.definition import Tool
from cairn.tasks.tools.file_tools import written_output
from cairn.tasks.tools.paths import PathError, resolve_path


class Ruling(Frozen):
    """What becomes of an interrupted call: its effect `found` (its `output` is recorded as its
    result), run it again (`rerun`), or `ask` a person; `reason` says why, for the history."""

    action: Literal["found", "rerun", "ask"]
    reason: str
    output: ToolOutput | None = None


def rule(tool: Tool | None, ctx: ToolContext, params: dict[str, JsonValue]) -> Ruling:
    """How the doubt of an interrupted call of `tool` is settled (None: a tool this process lacks)."""
    if tool is not None and tool.settle is not None:
        found = tool.settle(ctx, params)
        if found is not None:
            return Ruling(action="found", reason=f"its effect is there ({found.text})", output=found)
        return Ruling(action="rerun", reason="it had not taken effect: run again")
    if tool is not None and tool.idempotent:
        return Ruling(action="rerun", reason=f"{tool.name} is safe to run again")
    return Ruling(action="ask", reason="it may have had effects nobody can check")


def found_write(ctx: ToolContext, params: dict[str, JsonValue]) -> ToolOutput | None:
    """`write_file`'s effect, when it is there: the call's content in the file, or in the file as
    the task's last commit holds it (a call of the same batch may have changed the file since)."""
    path, content = params.get("path"), params.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    try:
        target = resolve_path(ctx.artifacts, path, readonly_roots=ctx.sources, for_write=True)
    except PathError:
        return None
    rel = target.relative_to(ctx.artifacts.resolve()).as_posix()
    data = content.encode("utf-8", errors="surrogatepass")  # as `write_file` writes it
    held = _bytes(target) == data or (ctx.committed is not None and ctx.committed(rel) == data)
    return written_output(rel, content) if held else None


def _bytes(target: Path) -> bytes | None:
    return target.read_bytes() if target.is_file() else None
