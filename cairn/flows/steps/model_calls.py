"""Every model call of a task, in its history: kind, outcome, attempts, tokens, seconds, money.

`ask` is how the loop talks to the model: the executor makes the call (a Prefect task run, or in
process), and the call is recorded as a `ModelCallRecorded` event, so `cairn show` totals them, the
budget counts them and the loop policy sees a model that keeps failing. A failed call also goes to
the `cairn.model` logger, which the CLI prints as one line on stderr.

A resumed run meets its finished calls again, as Prefect cache hits: a call the log already holds
as a success is not recorded twice. A failed call is never cached, so each failure is a real one.
"""

from __future__ import annotations

import logging
from typing import Any

from cairn.core import CallKey, ModelCall, ModelCallRecorded, content_hash
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.session import Session
from cairn.tasks.messages.schemas import CallKind, Schema
from cairn.tasks.model.capabilities import OFFLINE_PREFIX, replay_of
from cairn.tasks.model.cassette import records
from cairn.tasks.model.llm import LLMResult

log = logging.getLogger("cairn.model")


def ask(
    session: Session, executor: Executor, key: CallKey, kind: CallKind, payload: Schema, name: str
) -> LLMResult[Any]:
    """One model call through the executor, recorded in the task's history."""
    result = executor.ask(key, kind, payload, name)
    record_model_call(session, key, result)
    return result


def keyed(session: Session, iteration: int, kind: CallKind, payload: Schema) -> CallKey:
    """A model call's key, from what it asks: the same request in one iteration is one call, so a
    resumed run (or a second path of the same step) reads its reply back, and no key is numbered
    by hand."""
    index = int(content_hash(payload.model_dump_json(), 12), 16)
    return CallKey(task_id=session.task_id, iteration=iteration, index=index, kind=kind)


def asks(model: str, kind: CallKind) -> bool:
    """Whether a call of this kind goes to the model: a served model's do, the offline model's
    never, a replay's when its cassette recorded such calls (one recorded before them had none)."""
    if model.startswith(OFFLINE_PREFIX):
        return False
    replay = replay_of(model)
    return replay is None or records(replay[0], kind)


def record_model_call(session: Session, key: CallKey, result: LLMResult[Any]) -> None:
    done = {call.key for call in session.state.model_calls if call.ok}
    if str(key) in done:
        return  # a resumed run read a finished call back from the cache
    call = ModelCall(
        key=str(key),
        kind=result.kind,
        model=result.model,
        iteration=key.iteration,
        ok=result.ok,
        error=result.error,
        attempts=result.attempts,
        cost=result.cost,
    )
    session.recorder.record(ModelCallRecorded(call=call))
    if result.ok and result.error:
        log.warning("model reply ran away: %s %s (%s): %s", result.kind, key, result.model, result.error)
    if not result.ok:
        log.warning(
            "model call failed: %s %s (%s, %d attempts, %.1f s): %s",
            result.kind,
            key,
            result.model,
            result.attempts,
            result.cost.seconds,
            result.error,
        )
