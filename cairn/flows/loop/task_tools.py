"""A task's tools at its edges: checked before a run starts, recorded in its history once it has.

`ready_to_run` runs in the CLI before any flow: it imports the Python tools and starts the MCP
servers (listing their tools), so a bad configuration or a server that exits at once is one line
and a non-zero exit, and nothing is created. `record_tools` writes the configuration into the
task's history (`ToolsConfigured`) when it is new or changed: every later process — the iteration
subflows, `cairn resume`, a worker running the UI's Retry — rebuilds the same tools from there.

>>> from cairn.core import ToolsConfig
>>> needs_record(None, ToolsConfig()), needs_record(None, ToolsConfig(allow=["read_file"]))
(False, True)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cairn.core import CallKey, RunConfig, ToolsConfig, ToolsConfigured
from cairn.flows.loop.uncertain import check_before_run
from cairn.flows.steps.session import Session, task_context
from cairn.memory.log.workspace import Workspace
from cairn.tasks.toolset import Toolset, toolset_for


def ready_to_run(
    config: RunConfig, task_id: str, tools: ToolsConfig | None, cached: Callable[[CallKey], bool]
) -> ToolsConfig | None:
    """Before a run of a task, in the CLI: refuse uncertain calls (with `ask`) and tools that cannot
    work, each with one line. Returns the configuration to record (None: the task's own)."""
    workspace = Workspace(Path(config.workspace))
    repo = workspace.task(task_id) if task_id in workspace.task_ids() else None
    state = repo.state() if repo is not None else None
    toolset = prepare_tools(tools or (state.tools if state else None) or ToolsConfig())
    if repo is not None and state is not None:  # Cairn looks at its own writes; the rest may need a person
        check_before_run(config, state, cached, toolset, task_context(repo, state))
    return tools


def prepare_tools(config: ToolsConfig) -> Toolset:
    """The toolset, built strictly: raises a one-line `CairnError` for anything that cannot work."""
    return toolset_for(config, strict=True)


def record_tools(session: Session, tools: ToolsConfig | None) -> None:
    """Record the task's tool configuration if it is new (`None`: keep what the history holds)."""
    if tools is not None and needs_record(session.state.tools, tools):
        session.recorder.record(ToolsConfigured(config=tools))


def needs_record(recorded: ToolsConfig | None, given: ToolsConfig) -> bool:
    """A task without extra tools records nothing; any other change of configuration is recorded."""
    return given != (recorded or ToolsConfig())
