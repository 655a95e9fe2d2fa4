"""What becomes of a tool call's result once compressed (`cairn.flows.steps.compression`): a
`ToolCall` recorded with the file it wrote (committed) and the evidence it yields. The record keeps
the raw output truncated to `RAW_CHARS` beside the compression; the full text goes to a workspace
file when it is longer.
"""

from __future__ import annotations

import time
from pathlib import Path

from cairn.core import (
    CallCost,
    CallKey,
    Compression,
    EvidenceRecorded,
    FileRecorded,
    PlannedCall,
    ToolCall,
    ToolCallRecorded,
)
from cairn.flows.steps.session import Session
from cairn.redact import redact
from cairn.tasks.compress import RAW_CHARS, truncate
from cairn.tasks.evidence import evidence_for, register_file
from cairn.tasks.tools.base import ToolOutput


def record_call(
    session: Session,
    key: CallKey,
    planned: PlannedCall,
    output: ToolOutput,
    compression: Compression,
    cost: CallCost,
) -> ToolCall:
    """Record a finished call, the file it wrote (committed), and the evidence it yields."""
    repo = session.recorder.repo
    call_id = f"call-{key.iteration}-{key.index}"
    secrets = session.recorder.secrets
    output_path = _keep_full_output(repo.outputs, call_id, output.text, secrets)
    call = tool_call(call_id, key, planned, output, compression, cost, output_path)
    file = code = None
    if output.written is not None:
        repo.commit(
            [repo.artifacts / output.written.path], f"{planned.tool} {output.written.path} ({call_id})"
        )
        previous = session.state.files.get(output.written.path)
        file, code = register_file(call_id, output.written, previous, time.time())
    evidence = evidence_for(call, file, code, output.written.content if output.written else "")
    # One write: a kill between the call and its file would leave a finished call (a resume skips
    # it) whose file the task never learns of.
    session.recorder.record(
        ToolCallRecorded(call=call),
        *([FileRecorded(file=file, code=code)] if file is not None else []),
        *([EvidenceRecorded(evidence=evidence)] if evidence else []),
    )
    return call


def tool_call(
    call_id: str,
    key: CallKey,
    planned: PlannedCall,
    output: ToolOutput,
    compression: Compression,
    compression_cost: CallCost,
    output_path: str | None,
) -> ToolCall:
    """The record of a finished call: what was asked, what came back (the raw output truncated), its
    compression, and what the call and its compression cost."""
    raw, _ = truncate(output.text)
    return ToolCall(
        call_id=call_id,
        iteration=key.iteration,
        index=key.index,
        tool=planned.tool,
        params=planned.params,
        raw_output=raw,
        output_path=output_path,
        outcome=output.outcome,
        execution_time=output.seconds,
        cost=CallCost(seconds=output.seconds),
        compression_cost=compression_cost,
        tool_selection_rationale=planned.rationale,
        insights=compression.insights,
        learning=compression.learning,
        relevance=compression.relevance,
        next_suggested_actions=compression.next_suggested_actions,
        error=output.error,
        checks=output.checks,
        paths=output.paths,
        exercised=output.exercised,
    )


def _keep_full_output(outputs: Path, call_id: str, text: str, secrets: tuple[str, ...] = ()) -> str | None:
    if len(text) <= RAW_CHARS:
        return None
    outputs.mkdir(parents=True, exist_ok=True)
    path = outputs / f"{call_id}.txt"
    path.write_text(redact(text, secrets), encoding="utf-8", errors="replace")  # never keep a secret on disk
    return f"outputs/{call_id}.txt"
