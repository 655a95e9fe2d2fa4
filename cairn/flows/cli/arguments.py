"""Checking what a person typed before anything is created or Prefect starts.

Every command checks its arguments here first, with nothing but the file system: a bad argument
answers in a fraction of a second with one line (`UsageError`, `NotFound`: exit 2), and a refused
command has written nothing, not a lock, not a results folder. Paths derived from a task id are
built only after `check_task_id` accepted it, so they stay inside the workspace.

>>> check_source(Path("/no/such/folder"))
Traceback (most recent call last):
cairn.core.errors.UsageError: --source /no/such/folder: no such directory
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from cairn.core import (
    TASK_TYPES,
    NotFound,
    RunConfig,
    TaskType,
    ToolsConfig,
    UsageError,
    displayable,
    has_surrogates,
)
from cairn.memory.log.workspace import Workspace, check_task_id
from cairn.tasks.model.capabilities import replay_of
from cairn.tasks.model.cassette import CassetteError, load_cassette
from cairn.tasks.toolset import toolset_for
from cairn.tasks.verify.model import load_verifier

C = TypeVar("C", bound=str)  # an option's choices: a Literal's values


class RunArguments(BaseModel):
    """`cairn run`'s arguments once checked: what the run may safely use."""

    model_config = ConfigDict(frozen=True)

    goal: str
    sources: list[Path]
    task_id: str | None
    task_type: TaskType | None
    related: list[str]


def check_verifier(path: Path) -> None:
    """`CAIRN_VERIFIER` names a weights file the verifier can read (a refit's `--out`)."""
    try:
        load_verifier(path)
    except OSError as exc:
        raise UsageError(f"CAIRN_VERIFIER: cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # pydantic's ValidationError is one
        first = str(exc).splitlines()[0]
        raise UsageError(f"CAIRN_VERIFIER: {path} holds no verifier weights ({first})") from None


def check_run(
    config: RunConfig,
    goal: str,
    sources: list[Path],
    task_id: str | None,
    task_type: str | None,
    related: list[str],
) -> RunArguments:
    """Everything `cairn run` was given, checked in the order a person reads the command."""
    if not goal.strip():
        raise UsageError("the goal is empty")
    workspace = check_workspace(Path(config.workspace), write=True)
    checked_type = check_task_type(task_type)
    if task_id is not None:
        check_task_id(task_id)
    check_model(config.model)
    if config.record:
        check_record(Path(config.record))
    if config.verifier:
        check_verifier(Path(config.verifier))
    known = set(Workspace(workspace).task_ids())
    for other in related:
        if check_task_id(other) not in known:
            raise NotFound(f"--related: no task {other!r} in workspace {workspace}")
    return RunArguments(
        goal=displayable(goal),  # bytes that are not UTF-8 in argv: kept, as \xNN
        sources=[check_source(source) for source in sources],
        task_id=task_id,
        task_type=checked_type,
        related=list(dict.fromkeys(related)),
    )


def check_workspace(path: Path, write: bool) -> Path:
    """The workspace directory, resolved; refused if it is a file, or read-only when `write`.

    A workspace that does not exist yet is fine when its nearest existing parent is a writable
    directory (it is created on first use)."""
    where = path.expanduser().absolute()
    _check_unicode("workspace", where)
    existing = where
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"workspace is not a directory: {existing}")
    if write and not os.access(existing, os.W_OK | os.X_OK):
        what = "workspace" if existing == where else f"cannot create workspace {where}:"
        raise UsageError(f"{what} {existing} is read-only")
    if not write and not where.is_dir():
        raise NotFound(f"no workspace at {where}")
    return where.resolve()


def check_task_type(task_type: str | None) -> TaskType | None:
    return one_of(task_type, TASK_TYPES, "--task-type")


def check_source(source: Path) -> Path:
    """A `--source`: an existing, readable directory whose name is valid UTF-8."""
    path = source.expanduser()
    _check_unicode("--source", path)
    if not path.exists():
        raise UsageError(f"--source {displayable(str(source))}: no such directory")
    if not path.is_dir():
        raise UsageError(f"--source {displayable(str(source))}: not a directory")
    if not os.access(path, os.R_OK | os.X_OK):
        raise UsageError(f"--source {displayable(str(source))}: cannot be read (permission denied)")
    return path.resolve()


def check_model(model: str) -> str:
    """`replay:PATH[?match=kind]` must name a readable cassette; other names are the model
    preflight's business (a provider that cannot answer is reported by the run)."""
    if not model.strip():
        raise UsageError("--model is empty")
    if (replay := replay_of(model)) is not None:
        path = replay[0]
        try:
            load_cassette(path)
        except CassetteError as exc:
            raise UsageError(f"--model replay: {exc}") from None
        except OSError as exc:
            raise UsageError(f"--model replay: cannot read {path}: {exc.strerror}") from None
    return model


def check_record(path: Path) -> Path:
    """`--record PATH`: a cassette to continue (it must read back) or a new file in a writable folder."""
    if path.is_dir():
        raise UsageError(f"--record {path}: is a directory")
    if path.exists():
        try:
            load_cassette(path)
        except CassetteError as exc:
            raise UsageError(f"--record {path}: {exc}") from None
        return path
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--record {path}: cannot write in {parent}")
    return path


def check_tools(tools: ToolsConfig | None) -> None:
    """The task's tools built strictly: an allow-list entry that matches nothing, a Python tool
    that does not import, an MCP server that does not start is one line (`UsageError` or
    `McpUnavailable`). Prefect is not imported: it would freeze its settings before `prepare`."""
    if tools is not None:
        toolset_for(tools, strict=True)  # kept for the run: each server starts once


def one_of(value: str | None, choices: tuple[C, ...], option: str, *, before_not: str = ";") -> C | None:
    """The one of `choices` that `value` is (None stays None), else a `UsageError` naming them
    (`before_not`: `cairn files --type` has always said "..., not", the others "...; not")."""
    if value is None:
        return None
    for choice in choices:
        if value == choice:
            return choice
    raise UsageError(f"{option} must be one of {', '.join(choices)}{before_not} not {value!r}")


def _check_unicode(what: str, path: Path) -> None:
    # A directory name that is not UTF-8 would become a flow parameter Prefect cannot send.
    if has_surrogates(str(path)):
        raise UsageError(f"{what} {displayable(str(path))}: the path is not valid UTF-8; rename it")
