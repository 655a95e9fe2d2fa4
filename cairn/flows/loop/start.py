"""Opening a task: create it (task type, goal, the goal's constraint) or reopen it to resume.

The flow opens a task under its claim with `checked_model` and `open_task`, which make each check
before a run once: a command (`cairn run`, `cairn resume`) that made them under the same claim says
so in the request (`TaskRequest.checked`) and is trusted; any other run makes them here.

>>> with TaskLock(Path("ws"), request.task_id) as claim:  # doctest: +SKIP
...     request = checked_model(request, claim)
...     session = open_task(request, InProcessExecutor(model_client(request.config)), claim, cached)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cairn.core import (
    BudgetSet,
    CallKey,
    ConstraintExtracted,
    GoalSplit,
    NotFound,
    RunConfig,
    TaskCreated,
    TaskType,
    ToolsConfig,
    UsageError,
    UserMessage,
)
from cairn.flows.loop.claim import TaskLock
from cairn.flows.loop.preflight import learnt, record_probe
from cairn.flows.loop.reopen import ready_to_continue
from cairn.flows.loop.request import TaskRequest
from cairn.flows.loop.standing_rules import constraint_event
from cairn.flows.loop.task_tools import record_tools
from cairn.flows.loop.uncertain import check_before_run
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask, record_model_call
from cairn.flows.steps.session import Session, open_session
from cairn.memory.index.sources import skipped_sources
from cairn.tasks.deps import Deps, deps_for
from cairn.tasks.grounding import split_goal
from cairn.tasks.messages.schemas import (
    DetectTaskTypeInput,
    DetectTaskTypeOutput,
    ExtractConstraintInput,
    ExtractConstraintOutput,
)
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.offline.classifier import task_type_by_words
from cairn.tasks.pieces import prose_of
from cairn.tasks.rule_stated import states_a_rule
from cairn.tasks.strategy_choice import strategy_for
from cairn.tasks.toolset import toolset_for
from cairn.tasks.verifier import OncePerAnswer
from cairn.tasks.verify.model import use_verifier

log = logging.getLogger("cairn.task")


def vouched(request: TaskRequest, claim: TaskLock) -> bool:
    """Whether a command made the run's checks under `claim` (see `TaskRequest.checked`)."""
    return request.checked is not None and request.checked.claim == claim.token


def checked_model(request: TaskRequest, claim: TaskLock) -> TaskRequest:
    """The request with what the model's preflight learnt: the command's, or learnt here now."""
    if vouched(request, claim):
        return request
    return request.model_copy(update={"config": learnt(request.config)})


def open_task(
    request: TaskRequest, executor: Executor, claim: TaskLock, cached: Callable[[CallKey], bool]
) -> Session:
    """The task opened under `claim` (`start_task`), its probe and tools recorded. Unless a command
    checked it under this claim: refused when its history or repository cannot go on, or (with
    `on_uncertain=ask`) when a call only a person can settle was interrupted; `cached` says
    whether a call's result was kept."""
    checked = vouched(request, claim)
    session = start_task(request, executor, checked=checked)
    record_probe(session, request.config)
    record_tools(session, request.tools)
    if not checked:
        state, tools, context = session.state, session.toolset(), session.tool_context()
        check_before_run(request.config, state, cached, tools, context)
    return session


def start_task(request: TaskRequest, executor: Executor, checked: bool = False) -> Session:
    """Create the task the request asks for, or reopen it (the log says where it stopped).
    `checked`: this process made sure the task can go on (`ready_to_continue`) under its claim."""
    config, task_id, goal, task_type = request.config, request.task_id, request.goal, request.task_type
    use_verifier(config.verifier)  # every check and the offline model judge by these weights
    deps = deps_for(config)
    if task_id in deps.workspace.task_ids():
        return _judged_by(_reopened(config, task_id, executor, checked), request)
    related_ids = check_related(deps, list(request.related))  # before any model call: a typo fails fast
    detection = None
    if task_type is None:
        task_type, detection = detect_task_type(executor, task_id, goal)
    else:
        log.info("task type: %s (given)", task_type)
    sources = name_sources([Path(source) for source in request.sources])
    created = TaskCreated(
        task_id=task_id,
        goal=goal,
        task_type=task_type,
        sources=sources,
        skipped_sources=skipped_sources(sources),
        model=config.model,
        max_iterations=config.max_iterations,
        related=related_ids,
        max_usd=config.max_usd,
        max_tokens=config.max_tokens,
        strategy=strategy_for(task_type, goal, acts=acts_through_tools(request.tools)),
    )
    deps.workspace.create_task(created)
    session = open_session(config, task_id)
    if detection is not None:  # the first model call, recorded once the task has a history
        record_model_call(session, _detect_key(task_id), detection)
    record_goal(session, executor)
    return _judged_by(session, request)


def acts_through_tools(tools: ToolsConfig | None) -> bool:
    """Whether the task has tools of the user's own (Python or MCP) that change the world."""
    if tools is None or tools.is_default:
        return False
    return any(t.kind != "builtin" and not t.read_only for t in toolset_for(tools).tools())


def _judged_by(session: Session, request: TaskRequest) -> Session:
    """The session judging answers with the request's verifier (a user's own), if it has one,
    asked once per answer."""
    if request.verifier is not None:
        session.verifier = OncePerAnswer(request.verifier)
    return session


def record_goal(session: Session, executor: Executor) -> None:
    """The goal as the first user message, with the rule it states and the parts it asks: in one
    write, so a kill keeps all or none (a resume records them when none is there). A task made
    before goals were split gets its parts when it resumes."""
    state = session.state
    parts = [] if state.parts else [GoalSplit(parts=split_goal(state.goal))]
    if any(m.role == "goal" for m in state.messages):
        if parts:
            session.recorder.record(*parts)
        return
    rule = extract_constraint(session, executor, prose_of(state.goal), index=0)  # rules are words
    session.recorder.record(UserMessage(text=state.goal, role="goal"), rule, *parts)


def _reopened(config: RunConfig, task_id: str, executor: Executor, checked: bool) -> Session:
    """The task as its log left it; a budget given to this run replaces the recorded one. Refused
    if its history was tampered with (unless accepted); a missing `.git` is rebuilt."""
    if not checked:  # a UI retry, a worker, a library caller: no command checked it
        ready_to_continue(deps_for(config).workspace.task(task_id), config.accept_tampered)
    session = open_session(config, task_id)
    state = session.state
    if config.max_usd is not None or config.max_tokens is not None:
        usd = config.max_usd if config.max_usd is not None else state.max_usd
        tokens = config.max_tokens if config.max_tokens is not None else state.max_tokens
        if (usd, tokens) != (state.max_usd, state.max_tokens):
            session.recorder.record(BudgetSet(max_usd=usd, max_tokens=tokens))
    record_goal(session, executor)  # killed before the goal was recorded
    return session


def check_related(deps: Deps, related: list[str]) -> list[str]:
    """Related task ids, each once; an unknown id is refused (a typo would silently search nothing)."""
    known = set(deps.workspace.task_ids())
    for task_id in related:
        if task_id not in known:
            raise NotFound(f"related task {task_id!r} does not exist in this workspace")
    return list(dict.fromkeys(related))


def name_sources(sources: list[Path]) -> dict[str, str]:
    """Name each source directory by its folder name, made unique; refuse what is not a directory."""
    named: dict[str, str] = {}
    for source in sources:
        path = source.expanduser().resolve()
        if not path.is_dir():
            raise UsageError(f"source is not a directory: {source}")
        name, n = path.name or "source", 2
        while name in named:
            name, n = f"{path.name}-{n}", n + 1
        named[name] = str(path)
    return named


def _detect_key(task_id: str) -> CallKey:
    return CallKey(task_id=task_id, iteration=0, index=0, kind="detect_task_type")


def detect_task_type(executor: Executor, task_id: str, goal: str) -> tuple[TaskType, LLMResult[Any]]:
    """The model's reading of the goal, checked against the goal's own words (`checked_type`)."""
    log.info("detecting the task type (a model call)")
    payload = DetectTaskTypeInput(goal=goal)
    result = executor.ask(_detect_key(task_id), "detect_task_type", payload, "detect-task-type")
    out = result.output if result.ok and isinstance(result.output, DetectTaskTypeOutput) else None
    task_type, why = checked_type(goal, out.task_type if out else None)
    log.info("task type: %s (%s)", task_type, why if out else f"detection failed: {result.error}; {why}")
    return task_type, result


def checked_type(goal: str, detected: TaskType | None) -> tuple[TaskType, str]:
    """The task type to use, and why. A model's `coding_task` stands only if the goal asks for
    code; when detection failed, the goal's words decide (`cairn.tasks.offline.classifier`).

    >>> checked_type("How many days of water does the reservoir hold?", "coding_task")[0]
    'simple_question'
    """
    by_words = task_type_by_words(goal)
    if detected is None:
        return by_words.task_type, f"from the goal's words: {by_words.rationale}"
    if detected == "coding_task" and by_words.task_type != "coding_task":
        return (
            by_words.task_type,
            f"the model said coding_task, but the goal asks for no code ({by_words.rationale})",
        )
    return detected, "detected by the model"


def extract_constraint(session: Session, executor: Executor, message: str, index: int) -> ConstraintExtracted:
    """Only people make rules: this runs on user messages (the goal, feedback), never tool output.
    A message that states no rule is not asked about: any rule in the reply would be refused."""
    if not states_a_rule(message):
        return ConstraintExtracted(message=message)
    key = CallKey(task_id=session.task_id, iteration=0, index=index, kind="extract_constraint")
    payload = ExtractConstraintInput(message=message)
    result = ask(session, executor, key, "extract_constraint", payload, f"extract-constraint-{index}")
    out = result.output if result.ok and isinstance(result.output, ExtractConstraintOutput) else None
    event = constraint_event(out, message)
    if event.rule:
        log.info("rule from the user: %s", event.rule)
    return event
