"""One task's live session inside a flow run: its recorder, tools and the steps between them.

The iteration flow reads as the algorithm; the bookkeeping of each step lives here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from memory.events import EvidenceRecorded, FileRecorded, PlanRecorded, ToolCallRecorded
from memory.models import CallCost, Compression, PlannedCall, ToolCall
from memory.recorder import TaskRecorder
from memory.relevant import relevant_context
from memory.state import TaskState
from memory.store import SearchFilter, SearchQuery
from tasks import compress as comp
from tasks import plan as planning
from tasks._prefect import CallKey
from tasks.deps import Deps, RunConfig, deps_for
from tasks.evidence import evidence_for, register_file
from tasks.llm import LLMResult
from tasks.schemas import CompressOutput, Plan
from tasks.steps import call_model
from tasks.tools.base import ToolContext, ToolOutput
from tasks.tools.registry import tool_specs


@dataclass
class Session:
    config: RunConfig
    deps: Deps
    recorder: TaskRecorder

    @property
    def state(self) -> TaskState:
        return self.recorder.state

    @property
    def task_id(self) -> str:
        return self.recorder.repo.task_id

    def tool_context(self) -> ToolContext:
        return ToolContext(
            task_id=self.task_id,
            artifacts=self.recorder.repo.artifacts,
            sources={name: Path(path) for name, path in self.state.sources.items()},
            workspace=self.deps.workspace.root,
            search=self.search_lines,
        )

    def search_lines(self, query: str, k: int) -> list[str]:
        tenants = [self.task_id, "shared", *self.state.related]
        hits = self.deps.store.search(SearchQuery(text=query, k=k, filter=SearchFilter(tenants=tenants)))
        return [f"[{h.memory.kind}{_where(h.memory.file_path)}] {h.memory.content[:300]}" for h in hits]

    def context(self) -> str:
        budget = self.config.context_tokens or 2000
        return relevant_context(self.state, self.deps.store, budget_tokens=budget)


def _where(path: str | None) -> str:
    return f" {path}" if path else ""


def open_session(config: RunConfig, task_id: str) -> Session:
    deps = deps_for(config)
    recorder = TaskRecorder(deps.workspace.task(task_id), deps.store)
    return Session(config=config, deps=deps, recorder=recorder)


def plan_batch(session: Session, iteration: int, context: str, recovery: bool = False) -> list[PlannedCall]:
    """Ask the planner for candidates, merge them into the frontier and pop the beam."""
    state = session.state
    if state.plan:  # resumed: the batch was chosen before the interruption
        return state.plan
    missing = state.verdict.missing if state.verdict else []
    payload = planning.plan_input(state, tool_specs(state.task_type), context, missing, recovery=recovery)
    key = CallKey(task_id=session.task_id, iteration=iteration, index=0, kind="plan")
    result: LLMResult = call_model.with_options(task_run_name=f"plan-{iteration}")(key, "plan", payload, session.config)
    done = planning.done_signatures(state)
    proposed = result.output.candidates if result.ok and isinstance(result.output, Plan) else []
    candidates = planning.from_candidates(proposed, missing, done)
    frontier = planning.merge_frontier(state.frontier, candidates, done, missing)
    _, beam = planning.MODES[state.mode]
    batch, rest = planning.pop_best(frontier, min(beam, session.config.beam + (state.mode == "deep") * 2), done)
    session.recorder.record(PlanRecorded(iteration=iteration, candidates=candidates, batch=batch, frontier=rest))
    return batch


def compress_call(session: Session, key: CallKey, planned: PlannedCall, output: ToolOutput) -> tuple[Compression, CallCost]:
    fallback = comp.mechanical(planned, output)
    if planned.tool in session.config.skip_compress and session.state.mode == "fast":
        return fallback, CallCost()
    payload = comp.compress_input(session.state.goal, planned, output)
    ckey = key.model_copy(update={"kind": "compress"})
    name = f"compress-{key.iteration}-{key.index}"
    result: LLMResult = call_model.with_options(task_run_name=name)(ckey, "compress", payload, session.config)
    out = result.output if result.ok and isinstance(result.output, CompressOutput) else None
    return comp.from_output(out, fallback), result.cost


def record_call(
    session: Session, key: CallKey, planned: PlannedCall, output: ToolOutput, compression: Compression,
    cost: CallCost, seconds: float,
) -> ToolCall:
    """Record a finished call, the file it wrote (committed), and the evidence it yields."""
    repo = session.recorder.repo
    call_id = f"call-{key.iteration}-{key.index}"
    output_path = _keep_full_output(repo.outputs, call_id, output.text)
    call = comp.tool_call(call_id, key.iteration, key.index, planned, output, compression,
                          seconds=seconds, compression_cost=cost, output_path=output_path)
    file = code = None
    if output.written is not None:
        repo.commit([repo.artifacts / output.written.path], f"{planned.tool} {output.written.path} ({call_id})")
        previous = session.state.files.get(output.written.path)
        file, code = register_file(call_id, output.written, previous, time.time())
    session.recorder.record(ToolCallRecorded(call=call))
    if file is not None:
        session.recorder.record(FileRecorded(file=file, code=code))
    evidence = evidence_for(call, file, code, output.written.content if output.written else "")
    if evidence:
        session.recorder.record(EvidenceRecorded(evidence=evidence))
    return call


def _keep_full_output(outputs: Path, call_id: str, text: str) -> str | None:
    if len(text) <= comp.RAW_CHARS:
        return None
    outputs.mkdir(parents=True, exist_ok=True)
    path = outputs / f"{call_id}.txt"
    path.write_text(text, encoding="utf-8", errors="replace")
    return f"outputs/{call_id}.txt"
