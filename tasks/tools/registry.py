"""The tool set: name -> function and the spec the planner sees.

>>> sorted(TOOLS)[:3]
['lint', 'list_directory', 'read_file']
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from cairn.memory.models import PlannedCall, TaskType
from cairn.tasks.schemas import ToolSpec
from cairn.tasks.tools import coding, directory, files, history_tools, memory_search
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure

ToolFn = Callable[..., ToolOutput]

TOOLS: dict[str, tuple[ToolFn, ToolSpec]] = {
    "list_directory": (
        files.list_directory,
        ToolSpec(
            name="list_directory",
            description="List the files under a directory of the workspace or a source (source:NAME).",
            params={"path": "directory, '.' for the workspace or 'source:NAME' for a source"},
        ),
    ),
    "summarize_directory": (
        directory.summarize_directory,
        ToolSpec(
            name="summarize_directory",
            description="A virtual README of a folder: its files, what each is for (first heading or "
            "docstring) and its key functions and classes. Orient yourself before reading files.",
            params={"path": "directory, '.' for the workspace or 'source:NAME' for a source"},
        ),
    ),
    "read_file": (
        files.read_file,
        ToolSpec(
            name="read_file",
            description="Read a text file from the workspace or a source.",
            params={"path": "file path, e.g. 'notes.md' or 'source:docs/intro.md'"},
        ),
    ),
    "write_file": (
        files.write_file,
        ToolSpec(
            name="write_file",
            description="Write a text file into the workspace (committed to the task's git history).",
            params={"path": "file path inside the workspace", "content": "the full text"},
        ),
    ),
    "search_memory": (
        memory_search.search_memory,
        ToolSpec(
            name="search_memory",
            description="Search the task's memory (evidence, files, notes) by meaning and keywords.",
            params={"query": "what to look for"},
        ),
    ),
    "run_tests": (
        coding.run_tests,
        ToolSpec(
            name="run_tests",
            description="Run pytest on the workspace (or a test path) and report passed/failed tests.",
            params={"target": "test file or directory, '.' for all"},
        ),
    ),
    "lint": (
        coding.lint,
        ToolSpec(
            name="lint",
            description="Lint Python files with ruff and list the findings.",
            params={"target": "file or directory, '.' for all"},
        ),
    ),
    "run_python": (
        coding.run_python,
        ToolSpec(
            name="run_python",
            description="Run a Python snippet or a workspace script (timeout and output cap apply).",
            params={"code": "a snippet to run, or", "path": "a script in the workspace"},
        ),
    ),
    "summarize_history": (
        history_tools.summarize_history,
        ToolSpec(
            name="summarize_history",
            description="The key decisions of this task so far: rules, feedback, files written, hot issues, "
            "turning points, the last verdict and the latest important findings.",
            params={
                "focus": "optional words to narrow turning points and findings to",
                "limit": "lines per part",
            },
        ),
    ),
}


def register(name: str, fn: ToolFn, spec: ToolSpec) -> None:
    TOOLS[name] = (fn, spec)


def tool_specs(task_type: TaskType) -> list[ToolSpec]:
    return [spec for _, spec in TOOLS.values()]


def execute(ctx: ToolContext, call: PlannedCall) -> ToolOutput:
    """Run one planned call; an unknown tool or bad arguments are a failed output, not a crash."""
    entry = TOOLS.get(call.tool)
    if entry is None:
        return failure(f"unknown tool {call.tool!r}; available: {', '.join(sorted(TOOLS))}", "error")
    fn, _ = entry
    params: dict[str, Any] = dict(call.params)
    try:
        inspect.signature(fn).bind(ctx, **params)
    except TypeError as exc:
        return failure(f"bad arguments for {call.tool}: {exc}", "error")
    return fn(ctx, **params)
