"""Tools passed as Python objects: `run_task(goal, config, tools=[send_money, "mytools:word_count"])`.

A function that can be imported again by its name (defined at a module's top level) is recorded
as `module:function`, so a worker or a resume in another process rebuilds it. Any other callable
(a closure over a live connection, a bound method) is kept in this process only, under a name and
a token recorded in the task's history; a resume in another process must pass it again.

>>> def local(): ...
>>> config = tools_config([local, "mytools:word_count"])
>>> [p.function for p in config.python], [ref.split("@")[0] for ref in config.objects]
(['mytools:word_count'], ['local'])
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from typing import Any

from cairn.core import PythonToolConfig, ToolsConfig
from cairn.tasks.tools.definition import Tool
from cairn.tasks.tools.python_tools import ATTRIBUTE, ToolDefinitionError, function_tool

GivenTools = Sequence[Callable[..., Any] | str]
_KEPT: dict[str, Tool] = {}  # this process's object tools, by reference (`name@token`)
_LOCK = threading.Lock()


def tools_config(tools: GivenTools, base: ToolsConfig | None = None) -> ToolsConfig:
    """The configuration for `tools` (functions, or `module:function` names), added to `base`."""
    python, objects = list(base.python if base else []), list(base.objects if base else [])
    for given in tools:
        if isinstance(given, str):
            python.append(PythonToolConfig(function=given))
        elif (name := importable(given)) is not None:
            python.append(PythonToolConfig(function=name))
        else:
            objects.append(keep(given))
    return (base or ToolsConfig()).model_copy(update={"python": python, "objects": objects})


def importable(fn: Callable[..., Any]) -> str | None:
    """`module:function` when importing it gives this very function back, else None."""
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or not name.isidentifier():
        return None
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return None
    return f"{module}:{name}" if found is fn else None


def keep(fn: Callable[..., Any]) -> str:
    """Keep a callable as a tool of this process; its reference for the task's configuration."""
    if not callable(fn):
        raise ToolDefinitionError(f"tools: {fn!r} is not a function")
    found = getattr(fn, ATTRIBUTE, None)
    made = found if isinstance(found, Tool) else function_tool(fn)
    ref = f"{made.name}@{id(fn):x}"
    with _LOCK:
        _KEPT[ref] = made
    return ref


def kept_tool(ref: str) -> Tool:
    """The tool kept under `ref`; one kept by another process cannot be had here."""
    with _LOCK:
        found = _KEPT.get(ref)
    if found is None:
        name = ref.split("@")[0]
        raise ToolDefinitionError(
            f"tool {name!r} was given to run_task as an object in another process: pass it again "
            "(tools=[...]) to resume here, or define it at a module's top level"
        )
    return found
