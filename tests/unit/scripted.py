"""A scripted model and scripted tools for running iterations in process (no Prefect engine).

`ScriptedModel` is a litellm custom provider (`script/...`): it sees the exact chat messages
`cairn.tasks.messages.prompts` rendered, keeps them, and answers plans from a script and everything else like
`cairn/offline`. `drive_iteration` runs `cairn.flows.loop.iteration.run_iteration` itself, with an
executor whose tool outputs the test supplies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import litellm
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from cairn.core import IterationMode, PlannedCall, RunConfig, TaskType, ToolsConfig
from cairn.flows.loop.cycle import NoPages, TaskResult, run_loop
from cairn.flows.loop.iteration import run_iteration
from cairn.flows.loop.request import TaskRequest
from cairn.flows.loop.start import start_task
from cairn.flows.loop.task_tools import record_tools
from cairn.flows.steps.executor import InProcessExecutor, ToolResult, ToolRun
from cairn.flows.steps.session import Session, open_session
from cairn.tasks.messages.prompts import parse_request
from cairn.tasks.messages.schemas import Candidate, DeliverInput, DeliverOutput, Plan, PlanInput, Schema
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.offline import respond
from cairn.tasks.tools.base import ToolContext, ToolOutput
from cairn.tasks.verifier import Verifier

PROVIDER = "script"
PlanScript = Callable[[PlanInput], list[Candidate]]
DeliverScript = Callable[[DeliverInput], DeliverOutput]
Outputs = Callable[[PlannedCall], ToolOutput]


class ScriptedModel(CustomLLM):
    """Plans from `plan`; answers `deliver` from `deliver` when given (else as `cairn/offline`)."""

    def __init__(self, plan: PlanScript, deliver: DeliverScript | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.deliver = deliver
        self.prompts: list[tuple[str, str, Any]] = []  # (kind, full prompt text, input model)

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        self.prompts.append((kind, "\n".join(str(m["content"]) for m in messages), payload))
        if isinstance(payload, PlanInput):
            content = Plan(candidates=self.plan(payload)).model_dump_json()
        elif isinstance(payload, DeliverInput) and self.deliver is not None:
            content = self.deliver(payload).model_dump_json()
        else:
            content = respond(messages)
        return ModelResponse(
            model=model,
            choices=[
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
            ],
            usage={"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        )

    def of_kind(self, kind: str) -> list[tuple[str, Any]]:
        return [(text, payload) for k, text, payload in self.prompts if k == kind]


def register(model: ScriptedModel) -> Callable[[], None]:
    """Put the scripted provider into litellm; returns a function that takes it out again."""
    before = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [
        *[e for e in before if e.get("provider") != PROVIDER],
        {"provider": PROVIDER, "custom_handler": model},
    ]

    def undo() -> None:
        litellm.custom_provider_map = before

    return undo


def answer_with(model: str, reply: Schema | None, messages: list[Any]) -> ModelResponse:
    """A chat completion holding `reply` as JSON, or what `cairn/offline` answers when None."""
    text = reply.model_dump_json() if reply is not None else respond(messages)
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
    return ModelResponse(model=model, choices=[choice], usage={"prompt_tokens": 50, "completion_tokens": 5})


@contextmanager
def provided(handler: CustomLLM, provider: str = "fn") -> Iterator[None]:
    """`handler` answers the model strings `{provider}/...` while the block runs."""
    saved = list(litellm.custom_provider_map)
    litellm.custom_provider_map = [*saved, {"provider": provider, "custom_handler": handler}]
    try:
        yield
    finally:
        litellm.custom_provider_map = saved


class ScriptedTools(InProcessExecutor):
    """Model calls go to the (scripted) model; tool outputs come from the test."""

    def __init__(self, client: ModelClient, outputs: Outputs) -> None:
        super().__init__(client)
        self.outputs = outputs

    def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
        for key, call in runs:
            yield key, call, self.outputs(call)


def executor_for(config: RunConfig, outputs: Outputs = lambda call: ToolOutput(text="")) -> ScriptedTools:
    return ScriptedTools(ModelClient(config.model, max_attempts=1), outputs)


def drive_iteration(config: RunConfig, task_id: str, n: int, outputs: Outputs) -> Session:
    """Iteration `n` of the task through `run_iteration`, with scripted tool outputs."""
    session = open_session(config, task_id)
    run_iteration(session, n, session.state.mode, False, executor_for(config, outputs))
    return session


def workspace_config(root: Path, **overrides: Any) -> RunConfig:
    return RunConfig(workspace=str(root), model="script/model", **overrides)


def create_task(config: RunConfig, task_id: str, goal: str) -> Session:
    """A new coding task, created as `run_task` creates one, with its model calls in process."""
    return start_task(
        TaskRequest.new(goal, config, task_id=task_id, task_type="coding_task"), executor_for(config)
    )


def run_whole_task(
    config: RunConfig,
    task_id: str,
    goal: str,
    sources: list[Path] | None = None,
    executor: InProcessExecutor | None = None,
    task_type: TaskType | None = None,
    verifier: Verifier | None = None,
    tools: ToolsConfig | None = None,
) -> TaskResult:
    """A task from start (or resume) to its end, as `run_task` runs it, in process without Prefect."""
    executor = executor or InProcessExecutor(ModelClient(config.model, retry_wait=0))
    paths = [str(s) for s in sources or []]
    request = TaskRequest.new(
        goal, config, task_id=task_id, sources=paths, task_type=task_type, verifier=verifier, tools=tools
    )
    session = start_task(request, executor)
    record_tools(session, request.tools)

    def iterate(n: int, mode: IterationMode, recovery: bool) -> None:
        run_iteration(session, n, mode, recovery, executor)

    return run_loop(session, iterate, NoPages())
