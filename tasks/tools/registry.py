"""The tool set: name -> function and the spec the planner sees.

>>> sorted(TOOLS)[:3]
['answer', 'lint', 'list_directory']
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from cairn.memory.models import PlannedCall, TaskType
from cairn.tasks.schemas import ToolSpec
from cairn.tasks.tools import answer, coding, directory, files, history_tools, memory_search
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure

ToolFn = Callable[..., ToolOutput]

# Descriptions name no example paths: a small model copies examples literally. The planner sees the
# real sources and files beside the tools (`PlanInput.sources`, `PlanInput.files`).
TOOLS: dict[str, tuple[ToolFn, ToolSpec]] = {
    "list_directory": (
        files.list_directory,
        ToolSpec(
            name="list_directory",
            description="List the files under a directory: '.' for the workspace, or a `sources` entry.",
            params={"path": "'.', a folder you wrote, or an entry of `sources`"},
        ),
    ),
    "summarize_directory": (
        directory.summarize_directory,
        ToolSpec(
            name="summarize_directory",
            description="A virtual README of a folder: its files, what each is for (first heading or "
            "docstring) and its key functions and classes. Orient yourself before reading files.",
            params={"path": "'.', a folder you wrote, or an entry of `sources`"},
        ),
    ),
    "read_file": (
        files.read_file,
        ToolSpec(
            name="read_file",
            description="Read a text file.",
            params={"path": "a path exactly as listed in `files`"},
        ),
    ),
    "write_file": (
        files.write_file,
        ToolSpec(
            name="write_file",
            description="Write a text file into the workspace (committed to the task's git history). "
            "Sources are read-only.",
            params={
                "path": "a file path in the workspace, without any 'source:' prefix",
                "content": "the full text",
            },
        ),
    ),
    "answer": (
        answer.answer,
        ToolSpec(
            name="answer",
            description="Deliver the result of the task: the answer (for a report, the whole report, in "
            "Markdown) and the files it relies on. Use it as soon as your notes hold what the goal asks.",
            params={
                "answer": "the answer text, with the facts and figures",
                "sources": "list of paths from `files`",
            },
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
            description="Run pytest on the workspace and report passed and failed tests.",
            params={"target": "a test file you wrote, or '.' for all"},
        ),
    ),
    "lint": (
        coding.lint,
        ToolSpec(
            name="lint",
            description="Lint Python files with ruff and list the findings.",
            params={"target": "a Python file you wrote, or '.' for all"},
        ),
    ),
    "run_python": (
        coding.run_python,
        ToolSpec(
            name="run_python",
            description="Run a Python snippet, or a script you wrote, in the workspace (timeout and output "
            "cap apply). Code may open source files by their `source:` paths.",
            params={"code": "the Python code to run (or give path)", "path": "a script in the workspace"},
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
