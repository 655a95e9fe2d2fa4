"""A scripted model and a Prefect-free driver of the iteration's steps, for context tests.

`ScriptedModel` is a litellm custom provider (`script/...`): it sees the exact chat messages
`tasks.prompts` rendered, keeps them, and answers plans from a script and everything else like
`cairn/offline`. `drive_iteration` runs the same plain functions `flows.iteration.bfs_iteration`
runs (context, plan_batch, compress_results, record_call, _synthesize), with tool outputs supplied by
the test instead of real tools.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import litellm
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import ModelResponse

from flows.iteration import _synthesize
from flows.session import Session, compress_results, plan_batch, record_call
from memory.events import IterationStarted
from memory.models import PlannedCall
from memory.recorder import TaskRecorder
from tasks._prefect import CallKey
from tasks.deps import RunConfig, deps_for
from tasks.llm import ModelClient
from tasks.offline import respond
from tasks.prompts import parse_request
from tasks.schemas import Candidate, Plan, PlanInput
from tasks.tools.base import ToolOutput

PROVIDER = "script"
PlanScript = Callable[[PlanInput], list[Candidate]]
Outputs = Callable[[PlannedCall], ToolOutput]


class ScriptedModel(CustomLLM):
    def __init__(self, plan: PlanScript) -> None:
        super().__init__()
        self.plan = plan
        self.prompts: list[tuple[str, str, Any]] = []  # (kind, full prompt text, input model)

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        kind, payload = parse_request(messages)
        self.prompts.append((kind, "\n".join(str(m["content"]) for m in messages), payload))
        if isinstance(payload, PlanInput):
            content = Plan(candidates=self.plan(payload)).model_dump_json()
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


def session_for(config: RunConfig, task_id: str) -> Session:
    """What `open_session` builds, with model calls going straight to a `ModelClient` (no Prefect)."""
    deps = deps_for(config)
    recorder = TaskRecorder(deps.workspace.task(task_id), deps.store)
    return Session(
        config=config, deps=deps, recorder=recorder, client=ModelClient(config.model, max_attempts=1)
    )


def drive_iteration(config: RunConfig, task_id: str, n: int, outputs: Outputs) -> tuple[Session, str]:
    """One iteration through the flow's own steps; returns the session and the CONTEXT it used."""
    session = session_for(config, task_id)
    state = session.state
    session.recorder.record(IterationStarted(iteration=n, mode=state.mode, feedback=state.pending_feedback))
    evidence_before = len(session.state.evidence)
    context = session.context()
    batch = plan_batch(session, n, context)
    started = time.monotonic()
    finished = [
        (CallKey(task_id=task_id, iteration=n, index=i + 1, kind="tool"), call, outputs(call))
        for i, call in enumerate(batch)
    ]
    for key, call, output, compression, cost in compress_results(session, finished):
        record_call(session, key, call, output, compression, cost, time.monotonic() - started)
    _synthesize(session, config, task_id, n, state.mode, evidence_before)
    return session, context


def workspace_config(root: Path, **overrides: Any) -> RunConfig:
    return RunConfig(workspace=str(root), model="script/model", **overrides)


def create_task(config: RunConfig, task_id: str, goal: str) -> Session:
    """What `flows.start.start_task` records for a new task, without Prefect."""
    from flows.rules import constraint_event
    from memory.events import TaskCreated, UserMessage
    from tasks.schemas import ExtractConstraintInput

    deps = deps_for(config)
    deps.workspace.create_task(
        TaskCreated(task_id=task_id, goal=goal, task_type="coding_task", model=config.model)
    )
    session = session_for(config, task_id)
    session.recorder.record(UserMessage(text=goal, role="goal"))
    assert session.client is not None
    result = session.client.call("extract_constraint", ExtractConstraintInput(message=goal))
    session.recorder.record(constraint_event(result.output if result.ok else None, goal))
    return session
