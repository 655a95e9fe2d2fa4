"""At most once: calls with side effects across crashes.

Before a batch runs, each of its calls to a tool with side effects (`read_only` false) is recorded
as started (`ToolCallStarted`, appended and fsync'd). Its `ToolCallRecorded` follows once it
finished. A process that dies between the two leaves the call *uncertain*: it may or may not have
taken effect. On the next run of the iteration (a resume, a Retry from the UI) each tool's ruling
comes first (`rule`). Asking a person is right for a tool with effects outside the task; for
Cairn's own write into the task's repository it stopped a research task, killed while writing
its deliverable, until a person answered (issue 35). So:

- by looking (`Tool.settle`): `write_file` and `answer` took effect when the file holds the call's
  content, or the task's last commit does; their result is then recorded without running them
  again. Otherwise the write never landed, and it runs again;
- by running again (`Tool.idempotent`): `run_tests` (Cairn runs the tests again after every write
  anyway); a user's tool that declares it (`@tool(idempotent=True)`, or `idempotent = true` in its
  configuration); an MCP tool whose server declares `idempotentHint`;
- by a person: everything else, `run_python` among the built-ins (a snippet may do anything,
  anywhere: the sandbox is no jail). `RunConfig.on_uncertain` decides: `ask` (the default) stops
  before anything runs, with one line saying how to decide; `skip` records it as not run (a failed
  call the planner sees); `rerun` runs it again.

A call whose tool finished and whose result Prefect persisted is not uncertain: running it again
reads the kept result back and the tool does not run. `resolve` is the decision point a review
form (the UI) can call with a person's answer; every decision, Cairn's included, is recorded.

>>> from pathlib import Path
>>> from cairn.tasks.tools.builtins import BUILTINS
>>> ctx = ToolContext(task_id="t", artifacts=Path("/nonexistent"))
>>> tools = {t.name: t for t in BUILTINS}
>>> [rule(tools[name], ctx, {}).action for name in ("write_file", "run_tests", "run_python")]
['rerun', 'rerun', 'ask']
>>> UncertainCalls.exit_code
6
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Literal

from cairn.core import (
    CairnError,
    CallCost,
    CallKey,
    Compression,
    Frozen,
    JsonValue,
    RunConfig,
    ToolCallStarted,
    UncertainCallResolved,
)
from cairn.flows.loop.results import record_call
from cairn.flows.steps.executor import Executor, ToolResult, ToolRun
from cairn.flows.steps.session import Session
from cairn.memory.log.state import CallStart, TaskState
from cairn.tasks.tools.base import ToolContext, ToolOutput, failure
from cairn.tasks.tools.definition import Tool
from cairn.tasks.toolset import Toolset

Decision = Literal["skip", "rerun"]


class UncertainCalls(CairnError):
    """Calls with side effects were interrupted and nobody has said whether to run them again."""

    exit_code = 6  # not 4: "the model is down" and "your decision is needed" call for different acts


class Ruling(Frozen):
    """What becomes of an interrupted call: its effect `found` (its `output` is recorded as its
    result), run it again (`rerun`), or `ask` a person; `reason` says why, for the history."""

    action: Literal["found", "rerun", "ask"]
    reason: str
    output: ToolOutput | None = None


Judged = list[tuple[CallStart, Ruling]]


def rule(tool: Tool | None, ctx: ToolContext, params: dict[str, JsonValue]) -> Ruling:
    """How the doubt of an interrupted call of `tool` is settled (None: a tool this process lacks)."""
    if tool is not None and tool.settle is not None:
        found = tool.settle(ctx, params)
        if found is not None:
            return Ruling(action="found", reason=f"its effect is there ({found.text})", output=found)
        return Ruling(action="rerun", reason="it had not taken effect: run again")
    if tool is not None and tool.idempotent:
        return Ruling(action="rerun", reason=f"{tool.name} is safe to run again")
    return Ruling(action="ask", reason="it may have had effects nobody can check")


def uncertain(state: TaskState, cached: Callable[[CallKey], bool]) -> list[CallStart]:
    """Started side-effecting calls of the unfinished iteration, with no record and no kept result."""
    return [s for s in state.uncertain_calls if not cached(call_key(state, s.index))]


def judged(state: TaskState, calls: list[CallStart], tools: Toolset, ctx: ToolContext) -> Judged:
    """Each uncertain call with its tool's ruling: its effect found, run it again, or ask."""
    return [(s, rule(tools.get(s.tool), ctx, state.plan[s.index - 1].params)) for s in calls]


def check_before_run(
    config: RunConfig, state: TaskState, cached: Callable[[CallKey], bool], tools: Toolset, ctx: ToolContext
) -> None:
    """With `ask`, refuse to continue a task that has calls only a person can settle (before any
    flow starts). `cached` says whether a call's result was kept (Prefect's result store knows)."""
    if config.on_uncertain != "ask":
        return
    asked = [s for s, ruling in judged(state, uncertain(state, cached), tools, ctx) if ruling.action == "ask"]
    if asked:
        raise UncertainCalls(ask_message(state, asked, config.workspace))


def settle_calls(
    session: Session, executor: Executor, runs: list[ToolRun]
) -> tuple[list[ToolRun], list[ToolResult]]:
    """Settle the batch's uncertain calls, then record the start of each call with side effects.
    Returns the calls still to run (skipped ones are recorded as not run) and the results of those
    whose effect was found (recorded as they are, never run again)."""
    state, policy = session.state, session.config.on_uncertain
    rulings = judged(state, uncertain(state, executor.cached), session.toolset(), session.tool_context())
    asked = [start for start, ruling in rulings if ruling.action == "ask"]
    if asked and policy == "ask":
        raise UncertainCalls(ask_message(state, asked, session.config.workspace))
    found = _settled(session, [(s, r) for s, r in rulings if r.action != "ask"])
    if asked and policy != "ask":
        resolve(session, asked, policy)
    skipped = {s.index for s in asked} if policy == "skip" else set()
    results = [(key, call, found[key.index]) for key, call in runs if key.index in found]
    runs = [(key, call) for key, call in runs if key.index not in skipped | found.keys()]
    tools = session.toolset()
    for key, call in runs:
        start = session.state.call_starts.get(key.index)
        if not tools.read_only(call.tool) and (start is None or start.decision is not None):
            session.recorder.record(
                ToolCallStarted(
                    iteration=key.iteration, index=key.index, tool=call.tool, signature=call.signature
                )
            )
    return runs, results


def _settled(session: Session, rulings: Judged) -> dict[int, ToolOutput]:
    """Record Cairn's own decisions; returns the outputs of the calls whose effect was found."""
    found: dict[int, ToolOutput] = {}
    for start, ruling in rulings:
        decision: Literal["found", "rerun"] = "found" if ruling.action == "found" else "rerun"
        session.recorder.record(
            UncertainCallResolved(
                iteration=session.state.current,
                index=start.index,
                decision=decision,
                by="cairn",
                reason=f"{start.tool}: {ruling.reason}",
            )
        )
        if ruling.output is not None:
            found[start.index] = ruling.output
    return found


def in_call_order(found: list[ToolResult], ran: Iterable[ToolResult]) -> Iterator[ToolResult]:
    """The batch's results in the order of its calls: those found after a crash, those run now."""
    waiting = sorted(found, key=lambda result: result[0].index)
    for result in ran:
        while waiting and waiting[0][0].index < result[0].index:
            yield waiting.pop(0)
        yield result
    yield from waiting


def resolve(session: Session, calls: list[CallStart], decision: Decision) -> None:
    """Record a person's decision on uncertain calls; a skipped call is recorded as not run."""
    state = session.state
    for start in calls:
        session.recorder.record(
            UncertainCallResolved(iteration=state.current, index=start.index, decision=decision)
        )
        if decision == "skip":
            _record_skipped(session, start)


def _record_skipped(session: Session, start: CallStart) -> None:
    state = session.state
    planned = state.plan[start.index - 1]
    why = (
        f"not run again: {start.tool} has side effects and was interrupted before its result was "
        "recorded; it may or may not have taken effect (skipped by decision)"
    )
    output = failure(why, "error")
    compression = Compression(insights=why, relevance="high")
    key = call_key(state, start.index)
    record_call(session, key, planned, output, compression, CallCost())


def call_key(state: TaskState, index: int) -> CallKey:
    return CallKey(task_id=state.task_id, iteration=state.current, index=index, kind="tool")


def ask_message(state: TaskState, calls: list[CallStart], workspace: str) -> str:
    which = ", ".join(f"{s.tool} (call {state.current}/{s.index})" for s in calls)
    resume = f"cairn resume {state.task_id} --workspace {workspace} --on-uncertain"
    return (
        f"task {state.task_id} stopped: {which} has side effects and was interrupted before its "
        f"result was recorded, so it may or may not have taken effect; decide with "
        f"`{resume} skip` (record it as not run) or `{resume} rerun` (run it again)"
    )
