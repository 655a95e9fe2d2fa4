"""The built-in tools: files, code, memory and history, each a typed function (`cairn.tasks.tools`).

Which have side effects (and so run at most once across crashes, see docs/tools.md):
`write_file` and `answer` write the workspace; `run_python` and `run_tests` run code, which may do
anything. The rest only read (`lint` runs ruff without `--fix`). After a crash mid-call
(`cairn.flows.loop.uncertain.rule`): whether a write took effect is found by looking, a test run is
run again, and a person decides on a `run_python` snippet.

>>> sorted(t.name for t in BUILTINS)[:3]
['answer', 'find_lines', 'lint']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from cairn.tasks.tools import answer, coding, directory, file_tools, find_lines, history_tools, memory_search
from cairn.tasks.tools.definition import Settle, Tool
from cairn.tasks.tools.python_tools import function_tool

_DIR = "'.', a folder you wrote, or an entry of `sources`"


def _builtin(
    fn: Callable[..., Any],
    description: str,
    params: dict[str, str],
    *,
    read_only: bool = True,
    idempotent: bool = False,
    settle: Settle | None = None,
) -> Tool:
    made = function_tool(fn, description=description, params=params, read_only=read_only, kind="builtin")
    return replace(made, idempotent=idempotent, settle=settle)


# Descriptions name no example paths: a small model copies examples literally. The planner sees the
# real sources and files beside the tools (`PlanInput.sources`, `PlanInput.files`).
BUILTINS: list[Tool] = [
    _builtin(
        file_tools.list_directory,
        "List the files under a directory: '.' for the workspace, or a `sources` entry.",
        {"path": _DIR},
    ),
    _builtin(
        directory.summarize_directory,
        "A virtual README of a folder: its files, what each is for (first heading or "
        "docstring) and its key functions and classes. Orient yourself before reading files.",
        {"path": _DIR},
    ),
    _builtin(file_tools.read_file, "Read a text file.", {"path": "a path exactly as listed in `files`"}),
    _builtin(
        find_lines.find_lines,
        "Find every line of a source file, or of all files under a source folder, that holds all the "
        "given words (any form of each: 'lead' finds 'led'), with its headings and line number.",
        {"path": "a `sources` entry or a source file from `files`", "words": "the words a line must hold"},
    ),
    _builtin(
        file_tools.write_file,
        "Write a text file into the workspace (committed to the task's git history). Sources are read-only.",
        {"path": "a file path in the workspace, without any 'source:' prefix", "content": "the full text"},
        read_only=False,
        settle=file_tools.found_write,
    ),
    _builtin(
        answer.answer,
        "Deliver the result of the task: the answer (for a report, the whole report, in "
        "Markdown) and the files it relies on. Use it as soon as your notes hold what the goal asks.",
        {"answer": "the answer text, with the facts and figures", "sources": "list of paths from `files`"},
        read_only=False,
        settle=answer.found_answer,
    ),
    _builtin(
        memory_search.search_memory,
        "Search the task's memory (evidence, files, notes) by meaning and keywords.",
        {"query": "what to look for"},
    ),
    _builtin(
        coding.run_tests,
        "Run pytest on the workspace and report passed and failed tests.",
        {"target": "a test file you wrote, or '.' for all"},
        read_only=False,
        idempotent=True,  # Cairn runs the tests again after every write anyway
    ),
    _builtin(
        coding.lint,
        "Lint Python files with ruff and list the findings.",
        {"target": "a Python file you wrote, or '.' for all"},
    ),
    _builtin(
        coding.run_python,
        "Run a Python snippet, or a script you wrote, in the workspace (timeout and output "
        "cap apply). Code may open source files by their `source:` paths.",
        {"code": "the Python code to run (or give path)", "path": "a script in the workspace"},
        read_only=False,
    ),
    _builtin(
        history_tools.summarize_history,
        "The key decisions of this task so far: rules, feedback, files written, hot issues, "
        "turning points, the last verdict and the latest important findings.",
        {"focus": "optional words to narrow turning points and findings to", "limit": "lines per part"},
    ),
]
BUILTIN_NAMES = frozenset(t.name for t in BUILTINS)
