"""The coding tools as the agent calls them: `run_tests`, `lint`, `run_python` on the artifacts.

Thin adapters from the structured results of `cairn.tasks.tools.code` to a `ToolOutput`; the checks
travel along, so a failing test or lint check opens a hot issue and its later success resolves it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import cairn.tasks.tools.code
from cairn.tasks.tools.base import ToolContext, ToolOutput


def run_tests(ctx: ToolContext, target: str = ".") -> ToolOutput:
    # The agent's tests run on Cairn's interpreter: its pytest plugins are not the project's.
    result = cairn.tasks.tools.code.run_tests(ctx.artifacts, target, timeout_s=ctx.timeout_s, plugins=False)
    text = f"{result.summary}\n\n{result.output}".strip()
    return ToolOutput(
        text=text,
        outcome=result.outcome,
        error=None if result.outcome == "success" else result.summary,
        checks=result.checks,
        paths=[target],
        exercised=result.exercised,
    )


def lint(ctx: ToolContext, target: str = ".") -> ToolOutput:
    result = cairn.tasks.tools.code.lint(ctx.artifacts, target, timeout_s=ctx.timeout_s)
    lines = [f"{f.file}:{f.line}:{f.column}: {f.code} {f.message}" for f in result.findings]
    return ToolOutput(
        text="\n".join([result.summary, *lines]),
        outcome=result.outcome,
        error=None if result.outcome == "success" else result.summary,
        checks=result.checks,
        paths=[target],
    )


def run_python(ctx: ToolContext, code: str | None = None, path: str | None = None) -> ToolOutput:
    code = with_source_paths(code, ctx.sources) if code is not None else None
    result = cairn.tasks.tools.code.run_python(ctx.artifacts, code=code, path=path, timeout_s=ctx.timeout_s)
    text = "\n".join(part for part in (result.summary, result.stdout, result.stderr) if part)
    return ToolOutput(
        text=text,
        outcome=result.outcome,
        error=None if result.outcome == "success" else result.summary,
        checks=result.checks,
        paths=[path] if path else [],
    )


def with_source_paths(code: str, sources: Mapping[str, Path]) -> str:
    """The snippet with `source:NAME/...` paths written as the real paths, so code can open the
    task's sources by the names every other tool uses. (A snippet runs in a subprocess, which no
    path check confines: the sources are read by convention, not protected from it.)

    >>> with_source_paths("open('source:docs/a.md')", {"docs": Path("/data/docs")})
    "open('/data/docs/a.md')"
    """
    if not sources:
        return code
    names = "|".join(re.escape(name) for name in sorted(sources, key=len, reverse=True))
    pattern = re.compile(rf"source:({names})(?=/|['\"\s]|$)")
    return pattern.sub(lambda m: str(sources[m.group(1)].resolve()), code)
