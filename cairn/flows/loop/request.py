"""One task as asked for: the goal and everything it runs with, from the command line to the loop.

`cairn run`, `cairn resume`, a scheduled deployment and a Python caller each build one
`TaskRequest`; the task's flow stores it as its parameters (what a deployment run and the UI's
Retry replay) and hands it to `start_task`. The task id is derived here only: a goal's slug and a
suffix, random for the command line, the flow run's own id for a run that was given none (so the
run's name, `cairn-{task_id}`, is known before the run starts).

Each check before a run (the model's preflight, calls only a person can settle, whether the task
can go on) is made once: `cairn run` and `cairn resume` make them under their claim on the task
and say so in `checked`; the flow trusts that only under the same claim, in the same process, and
makes them itself for any other run (a library caller, a worker's run, the UI's Retry).

>>> request = TaskRequest.new("How big is the reservoir?", RunConfig(workspace="ws"), suffix="3f9a")
>>> request.task_id, request.flow_parameters()["sources"]
('how-big-is-the-3f9a', [])
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cairn.core import Frozen, RunConfig, TaskType, ToolsConfig
from cairn.memory.log.workspace import new_task_id
from cairn.tasks.tools.python_tools import GivenTools, tools_config


def task_id_for(goal: str, given: str | None, suffix: str | None = None) -> str:
    """The task's id: the one given, else the goal's slug and `suffix` (random when None)."""
    return given or new_task_id(goal, suffix=suffix)


class Checked(Frozen):
    """What a command established before the task's flow started, under its claim on the task
    (`claim`: the claim's token): the model can be called and `config` holds what its preflight
    learnt, no interrupted call waits for a person, and the task's history and repository let it
    go on. Never stored with a run: a run replayed from its parameters checks again."""

    claim: str


class TaskRequest(Frozen):
    goal: str
    config: RunConfig
    task_id: str
    sources: tuple[str, ...] = ()
    task_type: TaskType | None = None
    related: tuple[str, ...] = ()  # earlier tasks whose evidence this one's searches include
    tools: ToolsConfig | None = None  # None: the tools the task's history records
    checked: Checked | None = None  # the checks a command made before the flow (see `Checked`)
    # A user's own `cairn.tasks.verifier.Verifier` object (None: Cairn's judge). Live, in this
    # process only: a run replayed from its stored parameters judges with Cairn's.
    verifier: Any = Field(default=None, exclude=True)

    @classmethod
    def new(
        cls,
        goal: str,
        config: RunConfig,
        *,
        task_id: str | None = None,
        suffix: str | None = None,
        sources: tuple[str, ...] | list[str] = (),
        task_type: TaskType | None = None,
        related: tuple[str, ...] | list[str] = (),
        tools: ToolsConfig | None = None,
        verifier: Any = None,
    ) -> TaskRequest:
        return cls(
            goal=goal,
            config=config,
            task_id=task_id_for(goal, task_id, suffix),
            sources=tuple(sources),
            task_type=task_type,
            related=tuple(related),
            tools=tools,
            verifier=verifier,
        )

    @classmethod
    def from_parameters(cls, parameters: dict[str, Any], suffix: str | None = None) -> TaskRequest:
        """From a flow run's parameters: live objects (an in-process call) or the JSON a deployment
        run stored."""
        config, tools = parameters["config"], parameters.get("tools")
        return cls.new(
            parameters["goal"],
            config if isinstance(config, RunConfig) else RunConfig.model_validate(config),
            task_id=parameters.get("task_id"),
            suffix=suffix,
            sources=parameters.get("sources") or (),
            task_type=parameters.get("task_type"),
            related=parameters.get("related") or (),
            tools=_tools(tools),
            verifier=parameters.get("verifier"),
        ).vouched(parameters.get("checked"))

    def vouched(self, checked: Checked | dict[str, Any] | None) -> TaskRequest:
        """This request with the checks a command made (`checked`), or none."""
        found = Checked.model_validate(checked) if isinstance(checked, dict) else checked
        return self.model_copy(update={"checked": found})

    def flow_parameters(self, stored: bool = False) -> dict[str, Any]:
        """The task flow's parameters; `stored`: as JSON, for a flow run the server keeps (without
        `checked`: whoever runs it again checks again)."""
        config: Any = self.config.model_dump(mode="json") if stored else self.config
        tools: Any = self.tools.model_dump(mode="json") if stored and self.tools is not None else self.tools
        return {
            "goal": self.goal,
            "config": config,
            "task_id": self.task_id,
            "sources": list(self.sources),
            "task_type": self.task_type,
            "related": list(self.related) or None,
            "tools": tools,
        } | ({} if stored else {"checked": self.checked, "verifier": self.verifier})


def _tools(tools: ToolsConfig | GivenTools | dict[str, Any] | None) -> ToolsConfig | None:
    """A flow run's `tools`: a configuration, its stored JSON, or functions given as objects."""
    if tools is None or isinstance(tools, ToolsConfig):
        return tools
    if isinstance(tools, dict):
        return ToolsConfig.model_validate(tools)
    return tools_config(tools)
