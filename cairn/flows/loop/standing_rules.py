"""A person's words while a task runs, and the workspace's standing rules.

- `give_feedback` appends the message to the task's log as `UserMessage(role="feedback")` (safe
  while the task runs in another process: appends are locked) and records the constraint it
  carries, if any. The next iteration takes it in (`IterationStarted.feedback`, the planner's
  `feedback` field), and the rule joins every prompt from then on.
- `list_rules` reads every task's log: a rule is one key (`rules:general:{sha256(rule)[:16]}`), so
  the same rule stated in several tasks is one entry naming all of them.
- `retire_rule` records `ConstraintRetired` in every task that holds the rule, which also marks its
  `shared` memory inactive: the task logs stay the one source of truth, and `cairn reindex`
  reproduces the retirement (see docs/design.md, "Constraints across tasks").

No Prefect here: these run in a short CLI process next to a running flow.

>>> result = give_feedback(config, "alder-creek-3f9a", "From now on, never cite Wikipedia.")  # doctest: +SKIP
>>> result.rule  # doctest: +SKIP
'Never cite Wikipedia.'
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from cairn.core import (
    ConstraintExtracted,
    ConstraintRetired,
    NotFound,
    RunConfig,
    UsageError,
    UserMessage,
    memory_key,
)
from cairn.memory.context.relevant import SHARED
from cairn.memory.index.recorder import TaskRecorder
from cairn.memory.store.protocol import SearchFilter
from cairn.tasks.deps import deps_for
from cairn.tasks.messages.schemas import ExtractConstraintInput, ExtractConstraintOutput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.rule_stated import stated, states_a_rule

DEFAULT_MODEL = "cairn/offline"


class FeedbackResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: str
    index: int  # position among the task's user messages (the goal is 0)
    message: str
    rule: str | None = None
    key: str | None = None
    status: str = "running"
    error: str | None = None  # the extraction call failed: the feedback is kept, without a rule


class RuleView(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    rule: str
    active: bool
    tasks: list[str]


def constraint_key(rule: str) -> str:
    """The one key of a rule in the workspace: the same text is the same rule, in any task."""
    return memory_key(rule, "rules", "general")


def constraint_event(out: ExtractConstraintOutput | None, message: str) -> ConstraintExtracted:
    """What an extraction reply means as an event: a rule with its key, or none. A rule the
    message does not state in its own words is none (`cairn.tasks.rule_stated`)."""
    if out is None or not out.found or not stated(out.rule, message):
        return ConstraintExtracted(message=message)
    rule = out.rule.strip()
    return ConstraintExtracted(message=message, rule=rule, key=constraint_key(rule))


def give_feedback(
    config: RunConfig, task_id: str, text: str, client: ModelClient | None = None
) -> FeedbackResult:
    """Record feedback for a task and the rule it carries; the next iteration sees both."""
    message = text.strip()
    if not message:
        raise UsageError("the feedback message is empty")
    deps = deps_for(config)
    recorder = TaskRecorder(deps.workspace.task(task_id), deps.store)
    state = recorder.state
    index = len(state.messages)
    recorder.record(UserMessage(text=message, role="feedback"))
    model = config.model if config.model != DEFAULT_MODEL else state.model
    error: str | None = None
    event = ConstraintExtracted(message=message)
    if states_a_rule(message):  # otherwise any rule in a reply would be refused: no call
        result = (client or ModelClient(model, record=config.record)).call(
            "extract_constraint", ExtractConstraintInput(message=message)
        )
        event, error = constraint_event(result.output if result.ok else None, message), result.error
    recorder.record(event)
    return FeedbackResult(
        task_id=task_id,
        index=index,
        message=message,
        rule=event.rule,
        key=event.key,
        status=state.status,
        error=error,
    )


def list_rules(config: RunConfig) -> list[RuleView]:
    """Every rule of the workspace: from the task logs, plus shared memories no task log holds."""
    deps = deps_for(config)
    found: dict[str, RuleView] = {}
    for task_id in deps.workspace.task_ids():
        for c in deps.workspace.task(task_id).state().constraints:
            seen = found.get(c.key)
            tasks = [*(seen.tasks if seen else []), task_id]
            found[c.key] = RuleView(
                key=c.key, rule=c.rule, active=c.active or bool(seen and seen.active), tasks=tasks
            )
    for memory in deps.store.list(SearchFilter(tenants=[SHARED], kinds=["constraint"]), limit=1000):
        if memory.key not in found:
            found[memory.key] = RuleView(key=memory.key, rule=memory.content, active=memory.active, tasks=[])
    return sorted(found.values(), key=lambda r: (not r.active, r.rule.lower()))


def retire_rule(config: RunConfig, key: str) -> RuleView:
    """Retire a rule everywhere; `key` may be the full key or a unique part of its hash."""
    rule = _find(list_rules(config), key)
    deps = deps_for(config)
    for task_id in rule.tasks:
        recorder = TaskRecorder(deps.workspace.task(task_id), deps.store)
        if any(c.key == rule.key and c.active for c in recorder.state.constraints):
            recorder.record(ConstraintRetired(key=rule.key))
    shared = deps.store.get(rule.key, SHARED)
    if shared is not None and shared.active:  # a rule no task log holds any more
        deps.store.upsert([shared.model_copy(update={"active": False})])
    return rule.model_copy(update={"active": False})


def _find(rules: list[RuleView], key: str) -> RuleView:
    exact = [r for r in rules if r.key == key]
    matches = exact or [
        r for r in rules if key and (r.key.endswith(key) or r.key.split(":")[-1].startswith(key))
    ]
    if not matches:
        raise NotFound(f"no rule with key {key!r}; `cairn rules` lists them")
    if len(matches) > 1:
        raise UsageError(f"key {key!r} matches {len(matches)} rules; give more of it")
    return matches[0]
