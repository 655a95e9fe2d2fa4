"""Loop policy: when to stop, and how the next iteration should run (docs/design.md, "The iteration").

Pure functions of the task state, each stop condition giving a human reason.

>>> decide(TaskState(max_iterations=1, iterations=[IterationRecord(iteration=1)])).stop
'iteration cap of 1 reached'
"""

from __future__ import annotations

from pathlib import PurePosixPath

from pydantic import BaseModel, ConfigDict

from cairn.core import IterationMode, IterationRecord
from cairn.memory.log.state import TaskState
from cairn.tasks.pieces import DRAWS, pieces_of


class LoopPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    same_call_limit: int = 3
    validation_limit: int = 5
    no_evidence_iterations: int = 5
    stuck_iterations: int = 3
    model_failures: int = 3  # failed model calls in a row that stop the task
    piece_draws: int = DRAWS  # samples of one function of a piecewise goal before it is given unverified


class Decision(BaseModel):
    model_config = ConfigDict(frozen=True)

    stop: str | None = None
    mode: IterationMode = "fast"
    recovery: bool = False


DEFAULT_POLICY = LoopPolicy()
MODEL_UNAVAILABLE = "model_unavailable"  # stop reasons a caller acts on start with these words
BUDGET = "budget"
AWAITING_REVIEW = "awaiting_review"
NOT_STATED = "not_stated"
COVERED = "covered"
UNVERIFIED = "unverified"


def awaiting_review(iteration: int) -> str:
    """The stop reason of a task whose review point found no server to hold a form
    (`cairn/flows/prefect/review.py`).

    >>> awaiting_review(4)
    'awaiting_review: a review of iteration 4, with no Prefect server to hold a form'
    """
    return f"{AWAITING_REVIEW}: a review of iteration {iteration}, with no Prefect server to hold a form"


def decide(state: TaskState, policy: LoopPolicy = DEFAULT_POLICY) -> Decision:
    if state.verdict is not None and state.verdict.complete:
        return Decision(stop="complete: every requirement of the suite is met")
    conditions = (
        _model_unavailable,
        _budget,
        _cap,
        _acted,
        _covered,
        _not_stated,
        _unverified,
        _pieces_left,
        _same_call,
        _validations,
        _no_evidence,
    )
    for condition in conditions:
        reason = condition(state, policy)
        if reason:
            return Decision(stop=reason)
    return _stuck(state, policy)


def _model_unavailable(state: TaskState, policy: LoopPolicy) -> str | None:
    """The model keeps failing: stop (resumable) rather than iterate on nothing."""
    failed = state.failed_calls_in_a_row
    if failed >= policy.model_failures:
        last = state.model_calls[-1]
        return f"{MODEL_UNAVAILABLE}: {failed} model calls failed in a row (last, {last.kind}: {last.error})"
    return None


def _budget(state: TaskState, policy: LoopPolicy) -> str | None:
    """Spent, counted from the log: a resume does not reset it, `--max-usd` on a resume raises it."""
    spent = state.model_cost
    if state.max_usd is not None and spent.usd >= state.max_usd:
        return f"{BUDGET}: ${spent.usd:.4f} of ${state.max_usd:.4f} spent on model calls"
    if state.max_tokens is not None and spent.tokens >= state.max_tokens:
        return f"{BUDGET}: {spent.tokens} of {state.max_tokens} tokens spent on model calls"
    return None


def _cap(state: TaskState, policy: LoopPolicy) -> str | None:
    if len(state.iterations) >= state.max_iterations:
        return f"iteration cap of {state.max_iterations} reached"
    return None


def _covered(state: TaskState, policy: LoopPolicy) -> str | None:
    """A goal about every item of a kind whose every source was read: its ledger will not change.
    (One that found no item of its kind is answered as asked: `goal_over_items`.)"""
    coverage = state.coverage
    if coverage is None or not coverage.kind or not coverage.items or coverage.read < coverage.sources:
        return None
    if state.verdict is None or state.verdict.iteration != state.iterations[-1].iteration:
        return None  # judge the last ledger first
    open_rows = coverage.items - coverage.done
    items = f"{open_rows} of {coverage.items} {coverage.kind} items"
    return f"{COVERED}: every source read; {items} lack a proven field"


def _not_stated(state: TaskState, policy: LoopPolicy) -> str | None:
    """Every source was read (or searched for the question's words) and no line states what is
    still unanswered, while all the answer says is in the files: reading on finds nothing more."""
    verdict = state.verdict
    if verdict is None or verdict.iteration != (state.iterations[-1].iteration if state.iterations else -1):
        return None
    open_parts = [p for p in verdict.parts if not p.answered]
    if not open_parts or not all(p.not_stated for p in open_parts):
        return None
    if any(not c.supported for c in verdict.claims):
        return None
    asked = "; ".join(p.part for p in open_parts)
    return f"{NOT_STATED}: the files read do not say: {asked}"


def _unverified(state: TaskState, policy: LoopPolicy) -> str | None:
    """Every source was read (or searched for each question's words: a conversation too long to
    read whole), an answer was written and judged, and every question is proven, not stated, or
    given unverified: asking the same model again about the same lines gives the same answer, so
    the task ends with it (marked unverified) rather than spend the cap."""
    verdict = state.verdict
    last = state.iterations[-1] if state.iterations else None
    if verdict is None or last is None or verdict.iteration != last.iteration or not verdict.parts:
        return None
    if not any(
        call.tool in ("answer", "write_file") and call.outcome == "success" for call in last.tool_calls
    ):
        return None  # judged on an answer this iteration wrote (delivered, or a file the model wrote)
    coverage = state.coverage  # none: the evidence is tools' outputs, every one of them read
    if coverage is not None and (
        coverage.kind or (coverage.read < coverage.sources and not verdict.every_source_read)
    ):
        return None
    statuses = [p.status for p in verdict.parts]
    if "open" in statuses or all(s == "proven" for s in statuses):
        return None
    unproven = "; ".join(f"{p.part} ({p.status})" for p in verdict.parts if p.status != "proven")
    read = (
        "every source read"
        if coverage is None or coverage.read >= coverage.sources
        else "every source searched"
    )
    return f"{UNVERIFIED}: {read}, and the verifier does not prove: {unproven}"


def _acted(state: TaskState, policy: LoopPolicy) -> str | None:
    """An action goal whose every planned step was made or refused, and whose answer the last
    iteration gave: its plan is all it does (no tool output may add a call), so it ends; so does
    one whose plan holds no call (the 1.5B's plan call failed on three of slack's goals, and the
    task then spent four empty iterations before it was called stuck)."""
    steps = state.actions
    if state.strategy != "action" or steps is None or not state.iterations:
        return None
    if not steps:  # nothing to make: another iteration would plan nothing again
        failed = [c.error for c in state.model_calls if c.kind == "act" and not c.ok]
        return "acted: no call of the goal was planned" + (
            f" (the plan call failed: {failed[-1]})" if failed else ""
        )
    if len({c.step for c in state.checked_actions if c.step is not None}) < len(steps):
        return None
    if not any(c.tool == "answer" and c.outcome == "success" for c in state.iterations[-1].tool_calls):
        return None
    refused = sum(1 for c in state.checked_actions if c.refused)
    made = len(steps) - sum(1 for c in state.checked_actions if c.refused and c.step is not None)
    return f"acted: {made} of {len(steps)} calls of the goal's plan made, {refused} refused, the answer given"


def _pieces_left(state: TaskState, policy: LoopPolicy) -> str | None:
    """A goal written piece by piece (`cairn.flows.steps.piecewise`) with nothing left to ask:
    every function asked for passed its examples or spent its samples, the tests ran on the last
    code, and what keeps it from complete is a function that fails its examples, one that two
    samples answer differently, or one without examples that fails the model's own test of it.
    Another sample is no proof: the task ends with the code written, unverified, and says what
    is not."""
    last = state.iterations[-1] if state.iterations else None
    verdict = state.verdict
    if not state.pieces or last is None or verdict is None or verdict.iteration != last.iteration:
        return None
    if any(c.tool == "write_file" and c.outcome == "success" for c in last.tool_calls):
        return None  # the code just written is tested first
    asked = [p.name for p in pieces_of(state.goal) if not p.given]
    checks = [state.pieces[name] for name in asked if name in state.pieces]
    if len(checks) < len(asked) or any(not c.passed and c.draws < policy.piece_draws for c in checks):
        return None
    said = [f"{c.name} failed its examples in all {c.draws} samples" for c in checks if not c.passed]
    said += [f"{c.name}: {c.disagreement.words()}" for c in checks if c.disagreement]
    tested = [c for c in last.tool_calls if c.tool == "run_tests"]
    bare = [p.name for p in pieces_of(state.goal) if not (p.given or p.examples)]
    if not said and bare and tested and tested[-1].outcome != "success":
        named = ", ".join(bare)
        which = "which of the two is wrong, nothing says"
        has_tests = any(PurePosixPath(path).name.startswith("test_") for path in state.files)
        said = [
            f"the model's own tests of {named} fail on its code ({which})"
            if has_tests
            else f"the goal gives no example of {named} and the model gave no test of it: nothing checks it"
        ]
    if not said:
        return None
    return f"{UNVERIFIED}: the code is written, and not verified: {'; '.join(said)}"


def _same_call(state: TaskState, policy: LoopPolicy) -> str | None:
    """The same call with nothing changed in between; a check re-run after a file write is new work
    (`TaskState.repeats`, folded call by call)."""
    if repeats := state.call_repeats:
        signature, n = max(repeats.items(), key=lambda item: item[1])
        if n >= policy.same_call_limit:
            return f"the same call ran {n} times: {signature[:80]}"
    return None


def _validations(state: TaskState, policy: LoopPolicy) -> str | None:
    waiting = _awaiting_tests(state) | _still_reading(state) | _acting(state)
    failed = [v for v in state.verdicts if not v.complete and v.iteration not in waiting]
    if len(failed) >= policy.validation_limit:
        return f"{len(failed)} validations without completion; still missing: {', '.join(failed[-1].missing)}"
    return None


def _acting(state: TaskState) -> set[int]:
    """The iterations of an action goal that made its plan's calls (the answer comes after them)."""
    if state.strategy != "action":
        return set()
    return {c.iteration for c in state.checked_actions if c.step is not None}


def _awaiting_tests(state: TaskState) -> set[int]:
    """A coding task's iterations that wrote code and ran no tests: their verdicts could not be
    complete (the tests run next), so they do not count as failed validations. Counted, a write
    and test cycle spent two of five: HumanEval/10's third body, right, was stopped untested."""
    if state.task_type != "coding_task":
        return set()
    return {
        it.iteration
        for it in state.iterations
        if any(c.tool == "write_file" and c.outcome == "success" for c in it.tool_calls)
        and not any(c.tool == "run_tests" for c in it.tool_calls)
    }


def _still_reading(state: TaskState) -> set[int]:
    """A coverage goal's iterations that read sources not read before: its ledger is partial by
    design until the last source is read, so a verdict then is no failed attempt."""
    coverage = state.coverage
    return set(state.new_ground) if coverage is not None and coverage.kind else set()


def _no_evidence(state: TaskState, policy: LoopPolicy) -> str | None:
    n = policy.no_evidence_iterations
    if len(state.iterations) < n:
        return None
    recent = {it.iteration for it in state.iterations[-n:]}
    if recent & set(state.new_ground[-n:]):
        return None  # it read sources it had not read, or filled its ledger: that is progress
    if not any(ev.iteration in recent for ev in state.evidence):
        return f"no new evidence or new ground for {n} iterations"
    return None


def _stuck(state: TaskState, policy: LoopPolicy) -> Decision:
    streak = _streak(state.iterations)
    n = policy.stuck_iterations
    if streak >= n + 1 and _had_recovery(state.iterations[-streak:]):
        return Decision(stop=f"{streak} iterations stuck or regressing, recovery did not help")
    if streak >= n:
        return Decision(mode="deep", recovery=True)
    return Decision(mode="deep" if streak >= 2 else "fast")


def _streak(iterations: list[IterationRecord]) -> int:
    count = 0
    for it in reversed(iterations):
        if it.progress_assessment == "advancing":
            break
        count += 1
    return count


def _had_recovery(iterations: list[IterationRecord]) -> bool:
    return any(it.mode == "deep" for it in iterations[-2:])
