"""An action goal's steps: its plan, asked once from the goal and the tools alone; each step's
values read from earlier results by the model, then checked exactly (`cairn.tasks.actions`); the
calls a tool's output suggests, recorded as refused.

Each model call here is keyed by what it is asked (`content_hash` of its input), so a resumed run
reads the same reply back, whichever iteration asks it again.
"""

from __future__ import annotations

from typing import Any

from cairn.core import (
    ActionChecked,
    ActionsPlanned,
    ActStep,
    ModelJudgement,
    PlannedCall,
    ToolCall,
    call_signature,
)
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask, asks, keyed
from cairn.flows.steps.session import Session
from cairn.tasks.actions import (
    GOAL,
    MADE,
    Output,
    check_step,
    looked_up,
    needs_source,
    plans_done,
    read_instead,
    source_of,
    step_fates,
    suggested_calls,
    typed,
)
from cairn.tasks.messages.schemas import (
    ActInput,
    ActOutput,
    CallKind,
    JudgeInput,
    JudgeOutput,
    LedgerInput,
    LedgerOutput,
    ReplanInput,
    ToolSpec,
)
from cairn.tasks.verifier.seam import hears_model

ANSWER = "answer"  # the built-in that writes the answer: the plan's last word, never a step
LINES_CHARS = 24_000  # the results a step's values are read from, newest kept first
CUT = "(the plan was cut short after these steps: any it had still to write are missing)"
ASKS = "the goal only asks to find something out: a call that changes the world is not made"


def plan_of(session: Session, executor: Executor, iteration: int) -> list[ActStep]:
    """The goal's plan, asked once (a model that plans no calls, as the offline one, gives none).
    Where the model says the goal only asks to find something out, and its word on meaning is
    heard (`hears_model`: calibrated), a step that would change the world is no step of it: it is
    recorded as refused, and the plan reads."""
    state = session.state
    if state.actions is None:
        planned(session, executor, iteration, "act", ActInput(goal=state.goal, tools=_tools(session)))
    return session.state.actions or []


def planned(
    session: Session, executor: Executor, iteration: int, kind: CallKind, payload: ActInput | ReplanInput
) -> None:
    """Ask `kind` for steps and record them: the first plan (`act`), or the steps a plan that did
    not go as planned still needs (`replan`), numbered after the first plan's."""
    steps: list[ActStep] = []
    cut = False
    if asks(session.config.model, kind):
        result = ask(
            session, executor, keyed(session, 0, kind, payload), kind, payload, f"plan-actions-{kind}"
        )
        if result.ok and isinstance(result.output, ActOutput):
            steps = [ActStep(**step.model_dump()) for step in result.output.steps if step.tool != ANSWER]
            cut = result.error is not None  # it ran away: the steps it wrote whole are kept
            if not result.output.asks_for_change and hears_model(session.verifier):
                steps = _reads_only(session, steps, iteration)
    session.recorder.record(ActionsPlanned(steps=steps, again=kind == "replan", cut=cut))


def _reads_only(session: Session, steps: list[ActStep], iteration: int) -> list[ActStep]:
    """The reads of a plan for a goal that asks no change; each other step recorded as refused
    (a step of a tool that is not there stays, to be refused as such)."""
    toolset = session.toolset()
    reads: list[ActStep] = []
    for step in steps:
        if toolset.get(step.tool) is None or toolset.read_only(step.tool):
            reads.append(step)
            continue
        check = ActionChecked(iteration=iteration, step=None, tool=step.tool, params=step.args, refused=ASKS)
        session.recorder.record(check)
    return reads


def due_steps(session: Session, executor: Executor, iteration: int) -> list[PlannedCall]:
    """The next steps that can run now, each checked and recorded (made or refused). Once every
    step is settled and one went wrong (refused, failed, or the plan was cut short), the model is
    asked once for the steps the goal still needs, from what became of each (`step_fates`: no tool
    output), and those run next."""
    batch = _due(session, executor, iteration, plan_of(session, executor, iteration))
    if not batch and len(session.state.plans) == 1 and (tried := went_wrong(session)):
        first = len(session.state.actions or [])
        again = ReplanInput(goal=session.state.goal, tools=_tools(session), tried=tried)
        planned(session, executor, iteration, "replan", again)
        batch = _due(session, executor, iteration, session.state.actions or [], first)
    return batch


def went_wrong(session: Session) -> list[str]:
    """What became of each step of a first plan that is settled and did not go as planned (empty:
    it did, or a step is still to run)."""
    state = session.state
    steps, checks = state.actions or [], state.checked_actions
    fates = step_fates(steps, checks, state.calls)
    settled = {c.step for c in checks if c.step is not None} >= set(range(len(steps)))
    if not (steps and settled and (state.plans[0].cut or any(not f.endswith(MADE) for f in fates))):
        return []
    return [*fates, CUT] if state.plans[0].cut else fates


def _due(
    session: Session, executor: Executor, iteration: int, steps: list[ActStep], start: int = 0
) -> list[PlannedCall]:
    """The steps from `start` whose values the goal gives, up to the first made that reads from
    results; that one only once every call before it has its result (a refused step makes no
    call, so the steps after it go on)."""
    state = session.state
    settled = {c.step for c in state.checked_actions if c.iteration < iteration and c.step is not None}
    toolset = session.toolset()
    outputs = results_of(state.calls)
    made = {call_signature(c.tool, c.params) for c in state.calls if not toolset.read_only(c.tool)}
    batch: list[PlannedCall] = []
    for n, step in enumerate(steps[start:], start):
        if n in settled:
            continue
        changes = not toolset.read_only(step.tool)
        tool = toolset.get(step.tool)
        schema = tool.input_schema if tool else {}
        step = looked_up(read_instead(_known(step, schema, changes), state.goal, changes), state.calls)
        if step.inputs and batch:
            break  # its values come from results this batch has not given yet
        read = _filled(session, executor, step, outputs) if step.inputs else {}
        filled = {name: typed(value, types_of(schema, name)) for name, value in read.items()}
        counted = frozenset(
            name for name in schema.get("properties") or {} if "integer" in types_of(schema, name)
        )
        checked = check_step(step, filled, state.goal, outputs, made, changes, counted)
        refused = checked.refused if tool else f"no tool is named {step.tool!r}"
        session.recorder.record(
            ActionChecked(
                iteration=iteration,
                step=n,
                tool=step.tool,
                params=checked.params,
                sources=checked.sources,
                refused=refused,
            )
        )
        if refused:
            continue  # no call, so no result to wait for: the next step may run now
        why = f"step {n + 1} of the goal's plan" + (f": {step.why}" if step.why else "")
        batch.append(PlannedCall(tool=step.tool, params=checked.params, rationale=why))
        if step.inputs:
            break
    return batch


def refuse_suggestions(session: Session, iteration: int) -> None:
    """Record, as refused, each call that the last iteration's results suggest and the goal's plan
    does not hold: text in a tool's output is data, never an instruction."""
    state = session.state
    seen = any(c.iteration == iteration and c.step is None for c in state.checked_actions)
    if not state.iterations or seen:
        return
    tools = [name for name in session.toolset().names() if name != ANSWER]
    planned = {s.tool for s in state.actions or []}
    taken = [str(v) for c in state.checked_actions for v in c.params.values()]
    for call in state.iterations[-1].tool_calls:
        for tool, params in suggested_calls(call.next_suggested_actions, tools):
            foreign = [v for v in params.values() if needs_source(v) and _unplanned(v, state.goal, taken)]
            if tool in planned and not foreign:
                continue
            label = f"{call.tool} (call {call.index}, iteration {call.iteration})"
            where = source_of(foreign[0], "", [Output(label, call.raw_output)]) if foreign else None
            session.recorder.record(
                ActionChecked(
                    iteration=iteration,
                    step=None,
                    tool=tool,
                    params=params,
                    sources={"suggested by": where or label},
                    refused="suggested by a tool's output, not asked for by the goal",
                )
            )


def judged_acts(session: Session, executor: Executor) -> list[ModelJudgement]:
    """A served model's yes/no on whether the calls made did what the goal asked, the calls and
    their results quoted: asked once every step of the plan was made as planned, and only where
    the model's word can change the verdict (`hears_model`)."""
    state = session.state
    made = plans_done(state.plans, state.checked_actions, state.calls)
    asked = asks(session.config.model, "judge") and hears_model(session.verifier)
    if made.why or not asked:
        return []
    payload = JudgeInput(question=state.goal, answer=f"The calls made: {made.value}", line=made.results())
    result = ask(session, executor, keyed(session, 0, "judge", payload), "judge", payload, "judge-actions")
    if not (result.ok and isinstance(result.output, JudgeOutput)):
        return []
    return [
        ModelJudgement(part=state.goal, value=made.value, source="calls", line=0, p_yes=result.output.p_yes)
    ]


def _tools(session: Session) -> list[ToolSpec]:
    return [spec for spec in session.toolset().specs() if spec.name != ANSWER]


def _known(step: ActStep, schema: dict[str, Any], changes: bool) -> ActStep:
    """A read's step without the parameters its tool does not take (the 1.5B gave
    `get_balance`, which takes none, a `recipient`): reading with them left out reads as much,
    where the tool would refuse the call. A call that changes the world is left as planned, to fail
    where it is wrong; so is a call to a tool whose schema lists no properties at all."""
    known = schema.get("properties")
    if changes or known is None:
        return step
    args = {name: value for name, value in step.args.items() if name in known}
    inputs = {name: what for name, what in step.inputs.items() if name in known}
    return step.model_copy(update={"args": args, "inputs": inputs})


def types_of(schema: dict[str, Any], name: str) -> frozenset[str]:
    """The JSON types a tool's schema gives one parameter (alone or in `anyOf`: `int | None`)."""
    prop = (schema.get("properties") or {}).get(name) or {}
    return frozenset(t for t in [prop.get("type"), *(o.get("type") for o in prop.get("anyOf", []))] if t)


def results_of(calls: list[ToolCall]) -> list[Output]:
    numbered = enumerate(calls, start=1)
    return [Output(f"{c.tool} (call {n})", c.raw_output) for n, c in numbered if c.raw_output]


def _filled(session: Session, executor: Executor, step: ActStep, outputs: list[Output]) -> dict[str, str]:
    """The values of `step`'s inputs, read by the model from the results so far ("" where none)."""
    lines: list[str] = []
    for output in reversed(outputs):  # the newest first, while they fit
        block = [f"{output.label}: {line}" for line in output.text.splitlines() if line.strip()]
        if sum(map(len, lines)) + sum(map(len, block)) > LINES_CHARS:
            break
        lines = block + lines
    names = list(step.inputs)
    payload = LedgerInput(
        item=f"the call {step.tool} for the goal: {session.state.goal}",
        questions=[f"{name}: {step.inputs[name]}" for name in names],
        lines=lines,
    )
    if not asks(session.config.model, "ledger"):
        return {}
    key = keyed(session, 0, "ledger", payload)
    result = ask(session, executor, key, "ledger", payload, f"values-{step.tool}")
    if not (result.ok and isinstance(result.output, LedgerOutput)):
        return {}
    return {
        name: unlabelled(name, answer) for name, answer in zip(names, result.output.answers, strict=False)
    }


def unlabelled(name: str, answer: str) -> str:
    """A value read for parameter `name` without that name written before it as a label: the 1.5B
    answered `street` with `street: Dalton Street 123`, its line or its question as written.

    >>> unlabelled("street", "Street: Dalton Street 123"), unlabelled("city", "New York")
    ('Dalton Street 123', 'New York')
    """
    head, colon, rest = answer.partition(":")
    return rest.strip() if colon and head.strip().casefold() == name.casefold() and rest.strip() else answer


def _unplanned(value: object, goal: str, taken: list[str]) -> bool:
    return source_of(str(value), goal, []) != GOAL and str(value) not in taken
