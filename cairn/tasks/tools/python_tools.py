"""Python functions as tools: the JSON schema from the signature and docstring, through pydantic.

    from cairn.tasks.tools import tool

    @tool(read_only=True)
    def word_count(text: str, unique: bool = False) -> int:
        \"\"\"Count the words of a text.

        Args:
            text: the text to count
            unique: count each distinct word once
        \"\"\"
        words = text.split()
        return len(set(words)) if unique else len(words)

`@tool` leaves the function as it is (it can still be called and tested directly) and attaches
its definition; a configuration names it as `module:function`. A plain function without `@tool`
works too and is taken to have side effects. A parameter annotated `ToolContext` receives the
call's context (the task's artifacts folder, its sources) and is not shown to the model. Arguments
are validated against the signature before the call; what the function returns becomes the
output (text as it is, anything else as JSON). A call that outlives its timeout is reported as a
`timeout` (Python cannot stop a thread: the function runs on, its result is dropped). Functions
may also be given to `run_task` as objects (`tools_config`, at the end).
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, get_type_hints, overload

from pydantic import ConfigDict, Field, ValidationError, create_model

from cairn.core import JsonValue, PythonToolConfig, ToolsConfig, UsageError
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.definition import Runner, Tool, ToolKind, make_spec, to_output

F = TypeVar("F", bound=Callable[..., Any])
ATTRIBUTE = "__cairn_tool__"
_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$", re.M)
_ARG_LINE = re.compile(r"^\s+(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


class ToolDefinitionError(UsageError):
    """A function that cannot be a tool, or a `module:function` that cannot be imported."""


@overload
def tool(fn: F, /) -> F: ...
@overload
def tool(
    *,
    name: str | None = None,
    read_only: bool = False,
    side_effects: bool | None = None,
    idempotent: bool = False,
    timeout_s: float | None = None,
) -> Callable[[F], F]: ...
def tool(
    fn: F | None = None,
    /,
    *,
    name: str | None = None,
    read_only: bool = False,
    side_effects: bool | None = None,
    idempotent: bool = False,
    timeout_s: float | None = None,
) -> F | Callable[[F], F]:
    """Mark a typed function as a Cairn tool (see the module docstring); `read_only=True` (or
    `side_effects=False`) declares that calling it changes nothing, `side_effects=True` that it
    changes the world (the default), `idempotent=True` that calling it twice changes what calling it
    once does: a read-only or idempotent call may simply run again after a crash mid-call, where
    otherwise a person decides."""
    if read_only and side_effects:
        raise ToolDefinitionError("@tool: read_only and side_effects say opposite things; give one")
    quiet = read_only or side_effects is False

    def mark(f: F) -> F:
        made = function_tool(f, name=name, read_only=quiet, idempotent=idempotent, timeout_s=timeout_s)
        setattr(f, ATTRIBUTE, made)
        return f

    return mark(fn) if fn is not None else mark


def function_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
    params: dict[str, str] | None = None,
    kind: ToolKind = "python",
    timeout_s: float | None = None,
    idempotent: bool = False,
) -> Tool:
    """The `Tool` of a typed function; `params` replaces the descriptions read from the docstring."""
    tool_name = name or fn.__name__
    model, context_param = _arguments_model(fn, tool_name)
    schema = model.model_json_schema()
    schema.pop("title", None)
    spec = make_spec(tool_name, description or summary(fn.__doc__) or tool_name, schema, read_only)
    if params is not None:
        spec = spec.model_copy(update={"params": params})
    run = _runner(fn, model, context_param, tool_name, threaded=kind == "python")
    return Tool(
        spec=spec, run=run, input_schema=schema, kind=kind, timeout_s=timeout_s, idempotent=idempotent
    )


def load_python_tool(config: PythonToolConfig) -> Tool:
    """Import `module:function` (from `config.path` when set) and make it a tool."""
    module_name, _, attr = config.function.partition(":")
    if config.path and config.path not in sys.path:
        sys.path.insert(0, config.path)
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ToolDefinitionError(f"Python tool {config.function}: cannot import it ({exc})") from None
    if not callable(fn):
        raise ToolDefinitionError(f"Python tool {config.function}: {attr} is not a function")
    found = getattr(fn, ATTRIBUTE, None)
    made = found if isinstance(found, Tool) else function_tool(fn)
    read_only = made.read_only if config.read_only is None else config.read_only
    spec = made.spec.model_copy(update={"read_only": read_only})
    return Tool(
        spec=spec,
        run=made.run,
        input_schema=made.input_schema,
        kind="python",
        timeout_s=config.timeout_s or made.timeout_s,
        max_output_chars=config.max_output_chars,
        idempotent=made.idempotent if config.idempotent is None else config.idempotent,
    )


def summary(doc: str | None) -> str:
    """A docstring's text before its `Args:` section, on one line."""
    text = inspect.cleandoc(doc or "")
    text = _ARGS_HEADER.split(text, maxsplit=1)[0]
    return " ".join(text.split())


def param_docs(doc: str | None) -> dict[str, str]:
    """`name: description` lines of a docstring's `Args:` section (Google style).

    >>> param_docs("Count.\\n\\n    Args:\\n        text: the text\\n        n (int): how many\\n")
    {'text': 'the text', 'n': 'how many'}
    """
    parts = _ARGS_HEADER.split(inspect.cleandoc(doc or ""), maxsplit=1)
    if len(parts) < 3:
        return {}
    found: dict[str, str] = {}
    for line in parts[2].splitlines():
        if line.strip() and not line.startswith((" ", "\t")):
            break  # the next section
        match = _ARG_LINE.match(line)
        if match:
            found[match.group(1).lstrip("*")] = match.group(2).strip()
    return found


def _arguments_model(fn: Callable[..., Any], name: str) -> tuple[Any, str | None]:
    try:
        hints = get_type_hints(fn)
        signature = inspect.signature(fn)
    except (NameError, TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"tool {name}: cannot read its signature ({exc})") from None
    docs = param_docs(fn.__doc__)
    fields: dict[str, Any] = {}
    context_param = None
    for param in signature.parameters.values():
        annotation = hints.get(param.name, Any)
        if annotation is ToolContext:
            context_param = param.name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise ToolDefinitionError(f"tool {name}: parameter {param.name} must be a named parameter")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, Field(default, description=docs.get(param.name)))
    model = create_model(f"{name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    return model, context_param


def _runner(
    fn: Callable[..., Any], model: Any, context_param: str | None, name: str, *, threaded: bool
) -> Runner:
    def run(ctx: ToolContext, params: dict[str, JsonValue]) -> ToolOutput:
        try:
            args = model.model_validate(params)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "arguments"
            return failure(f"bad arguments for {name}: {where}: {first['msg']}", "error")
        kwargs = {key: getattr(args, key) for key in type(args).model_fields}
        if context_param:
            kwargs[context_param] = ctx
        if not threaded:  # built-ins keep their own limits (subprocess timeouts, size caps)
            return to_output(fn(**kwargs))
        return _with_timeout(lambda: fn(**kwargs), ctx.timeout_s, name)

    return run


def _with_timeout(call: Callable[[], Any], timeout_s: float, name: str) -> ToolOutput:
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name=f"cairn-tool-{name}", daemon=True).start()
    if not done.wait(timeout_s):
        return failure(f"{name} did not finish within {timeout_s:g} s", "timeout")
    if "error" in box:
        raise box["error"]
    return to_output(box.get("value"))


# --- functions given to `run_task` as objects -----------------------------------------------
# `run_task(goal, config, tools=[send_money, "mytools:word_count"])`: a function an import finds
# again by its name (defined at a module's top level) is recorded as `module:function`, so a
# worker or a resume in another process rebuilds it; any other callable (a closure over a live
# connection, a bound method) is kept in this process only, under a name and a token recorded in
# the task's history, and a resume in another process must pass it again.

GivenTools = Sequence[Callable[..., Any] | str]
_KEPT: dict[str, Tool] = {}  # this process's object tools, by reference (`name@token`)
_KEPT_LOCK = threading.Lock()


def tools_config(tools: GivenTools, base: ToolsConfig | None = None) -> ToolsConfig:
    """The configuration for `tools` (functions, or `module:function` names), added to `base`.

    >>> def local(): ...
    >>> config = tools_config([local, "mytools:word_count"])
    >>> [p.function for p in config.python], [ref.split("@")[0] for ref in config.objects]
    (['mytools:word_count'], ['local'])
    """
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
    with _KEPT_LOCK:
        _KEPT[ref] = made
    return ref


def kept_tool(ref: str) -> Tool:
    """The tool kept under `ref`; one kept by another process cannot be had here."""
    with _KEPT_LOCK:
        found = _KEPT.get(ref)
    if found is None:
        name = ref.split("@")[0]
        raise ToolDefinitionError(
            f"tool {name!r} was given to run_task as an object in another process: pass it again "
            "(tools=[...]) to resume here, or define it at a module's top level"
        )
    return found
