"""After every iteration: how far the task got, recorded; for a goal about every item of a kind,
the ledger rows its reads changed, and the report written and committed with them.

With a served model, the model reads the changed rows and the sections the offline reader found
no item in (`cairn.flows.steps.ledger_reading`); either way, a user's verifier judges each row.

The report is Cairn's own write (`write_file` of the task's deliverable, marked with the iteration
it reports), so a task stopped at any point (its cap, its budget, a crash, a person) leaves a
deliverable that says how far it got: "97 of 240 sources read; 95 service items found, 93 with ...".
"""

from __future__ import annotations

from cairn.core import CallCost, CallKey, Compression, Coverage, CoverageRecorded, LedgerRow, PlannedCall
from cairn.flows.loop.results import record_call
from cairn.flows.steps.coverage import kept_ledger, read_sources, spec_of
from cairn.flows.steps.deliverable import deliverable_name
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.ledger_reading import LedgerReading
from cairn.flows.steps.model_calls import asks
from cairn.flows.steps.session import Session
from cairn.memory.log.state import TaskState
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.items import key
from cairn.tasks.coverage.ledger_report import ledger_report
from cairn.tasks.coverage.served import judged_offline
from cairn.tasks.task_grounding import source_files
from cairn.tasks.tools.base import ToolOutput, WrittenFile
from cairn.tasks.verifier import CairnJudge

_NO_COST = CallCost()


def record_coverage(session: Session, iteration: int, executor: Executor) -> None:
    """After an iteration's calls: take in what they read, record the coverage (and the ledger rows
    it changed), and write and commit the report of a coverage goal (once per iteration). A resume
    of an iteration killed after either is recorded records neither again."""
    state = session.state
    if not state.sources or any(c.params.get("ledger") == iteration for c in state.pending_calls):
        return
    spec = spec_of(state)
    if state.covered != iteration:
        _record(session, iteration, spec, executor)
    coverage = session.state.coverage
    if spec is not None and coverage is not None:
        _write_report(session, iteration, spec, coverage)


def _record(session: Session, iteration: int, spec: CoverageGoal | None, executor: Executor) -> None:
    state = session.state
    kept = kept_ledger(session, spec)
    reading = None
    if spec is not None and kept.ledger is not None and asks(session.config.model, "ledger"):
        reading = LedgerReading(session, executor, iteration, spec, kept)
    if kept.ledger is not None:
        kept.ledger.section_reader = reading.section if reading else None
    touched = kept.take_in(state, session.reader)
    read, files = read_sources(state), source_files(state)
    exhausted = all(p in read for p in files)
    rows = kept.rows(touched, exhausted, state.ledger) if kept.ledger else []
    if reading is not None:
        rows = reading.rows(rows, exhausted)
    elif spec is not None and kept.ledger is not None and not isinstance(session.verifier, CairnJudge):
        lines = kept.ledger.lines
        rows = [judged_offline(spec, r, lines(key(r.item)), session.verifier, exhausted) for r in rows]
    coverage = _coverage(spec, state, len(files), sum(p in read for p in files), rows)
    before = state.coverage.read if state.coverage else 0
    new_ground = bool(rows) or coverage.read > before
    session.recorder.record(
        CoverageRecorded(iteration=iteration, coverage=coverage, rows=rows, new_ground=new_ground)
    )


def _coverage(
    spec: CoverageGoal | None, state: TaskState, sources: int, read: int, rows: list[LedgerRow]
) -> Coverage:
    """The coverage after this iteration, its counts moved by the rows it changed only."""
    if spec is None:
        return Coverage(sources=sources, read=read)
    before = state.coverage or Coverage()
    old = [state.ledger[row.item] for row in rows if row.item in state.ledger]
    items = before.items + len(rows) - len(old)
    done = before.done + sum(row.done for row in rows) - sum(row.done for row in old)
    return Coverage(sources=sources, read=read, kind=spec.kind, fields=spec.fields, items=items, done=done)


def _write_report(session: Session, iteration: int, spec: CoverageGoal, coverage: Coverage) -> None:
    """The report as the ledger stands, written and committed, recorded as Cairn's own write."""
    state = session.state
    text = ledger_report(state.goal, spec, list(state.ledger.values()), coverage)
    report = deliverable_name(state)
    target = session.artifacts / report
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    key = CallKey(task_id=session.task_id, iteration=iteration, index=len(state.plan) + 1, kind="tool")
    planned = PlannedCall(
        tool="write_file",
        params={"path": report, "ledger": iteration},
        rationale="The report of the ledger as this iteration left it, written by Cairn.",
    )
    line = f"wrote {report} ({len(text)} characters): {coverage.line()}"
    written = WrittenFile(path=report, content=text, purpose="ledger")
    output = ToolOutput(text=line, paths=[report], written=written)
    note = Compression(insights=line, learning=coverage.line(), relevance="high")
    record_call(session, key, planned, output, note, _NO_COST)


__all__ = ["record_coverage"]
