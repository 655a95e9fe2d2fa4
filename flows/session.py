"""One task's live session inside a flow run: its recorder, tools and the steps between them.

The iteration flow reads as the algorithm; the bookkeeping of each step lives here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from cairn.flows.executor import Executor, ToolResult
from cairn.memory.events import EvidenceRecorded, FileRecorded, PlanRecorded, ToolCallRecorded
from cairn.memory.models import CallCost, Compression, Memory, PlannedCall, ToolCall
from cairn.memory.reasoning import context_budget
from cairn.memory.recorder import TaskRecorder
from cairn.memory.redact import redact
from cairn.memory.relevant import relevant_context, rules_block
from cairn.memory.sources import ensure_sources
from cairn.memory.state import TaskState
from cairn.memory.store import SearchFilter, SearchQuery
from cairn.memory.values import TDLambda, ValueTable
from cairn.tasks import compress as comp
from cairn.tasks import plan as planning
from cairn.tasks.call_key import CallKey
from cairn.tasks.deps import Deps, RunConfig, deps_for
from cairn.tasks.evidence import evidence_for, register_file
from cairn.tasks.llm import LLMResult, context_window
from cairn.tasks.schemas import CompressBatchInput, CompressInput, Plan
from cairn.tasks.tools.base import ToolContext, ToolOutput
from cairn.tasks.tools.registry import tool_specs


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
            task_state=lambda: self.recorder.state,
        )

    def search_lines(self, query: str, k: int) -> list[str]:
        sources = ensure_sources(self.deps.store, self.state.sources)  # indexed once, on first use
        tenants = [self.task_id, "shared", *self.state.related, *sources]
        hits = self.deps.store.search(SearchQuery(text=query, k=k, filter=SearchFilter(tenants=tenants)))
        related = set(self.state.related)
        return [f"{_label(h.memory.tenant, related)}{_line(h.memory)}" for h in hits]

    def context(self) -> str:
        """The CONTEXT block; the history budget is RunConfig.context_tokens or 25% of the model's window."""
        budget = self.config.context_tokens or context_budget(context_window(self.config.model))
        counter = comp.line_counter(self.config.model)
        ensure_sources(self.deps.store, self.state.sources)  # the snippets search the sources' index
        learner = learner_for(self.deps, self.state)
        return relevant_context(
            self.state, self.deps.store, budget_tokens=budget, count=counter, learner=learner
        )


_LEARNERS: dict[tuple[str, str], TDLambda] = {}


@lru_cache(maxsize=8)
def _value_table(db_path: str) -> ValueTable:
    return ValueTable(db_path)


def learner_for(deps: Deps, state: TaskState) -> TDLambda:
    """The task's TD(lambda) episode in this process; its goal is the task type, so what one
    research task learns about a memory ranks it for the next research task. Traces of a process
    that died are lost: the episode then updates from what its resumed part used."""
    key = (str(deps.workspace.db_path), state.task_id)
    if key not in _LEARNERS:
        _LEARNERS[key] = TDLambda(_value_table(str(deps.workspace.db_path)), goal=state.task_type)
    return _LEARNERS[key]


def _label(tenant: str, related: set[str]) -> str:
    """Hits from a related task say so: the agent must not take them for its own work."""
    return f"[related:{tenant}] " if tenant in related else ""


def _line(memory: Memory) -> str:
    return f"[{memory.kind}{_where(memory.file_path)}] {memory.content[:300]}"


def _where(path: str | None) -> str:
    return f" {path}" if path else ""


def open_session(config: RunConfig, task_id: str) -> Session:
    deps = deps_for(config)
    recorder = TaskRecorder(deps.workspace.task(task_id), deps.store)
    return Session(config=config, deps=deps, recorder=recorder)


def plan_batch(
    session: Session, executor: Executor, iteration: int, context: str, recovery: bool = False
) -> list[PlannedCall]:
    """Ask the planner for candidates, merge them into the frontier and pop the beam."""
    state = session.state
    if state.plan:  # resumed: the batch was chosen before the interruption
        return state.plan
    missing = state.verdict.missing if state.verdict else []
    payload = planning.plan_input(state, tool_specs(state.task_type), context, missing, recovery=recovery)
    key = CallKey(task_id=session.task_id, iteration=iteration, index=0, kind="plan")
    result = executor.ask(key, "plan", payload, f"plan-{iteration}")
    done = planning.done_signatures(state)
    proposed = result.output.candidates if result.ok and isinstance(result.output, Plan) else []
    candidates = planning.from_candidates(proposed, missing, done)
    frontier = planning.merge_frontier(state.frontier, candidates, done, missing)
    _, beam = planning.MODES[state.mode]
    batch, rest = planning.pop_best(
        frontier, min(beam, session.config.beam + (state.mode == "deep") * 2), done
    )
    session.recorder.record(
        PlanRecorded(iteration=iteration, candidates=candidates, batch=batch, frontier=rest)
    )
    return batch


def compress_call(
    session: Session, executor: Executor, key: CallKey, planned: PlannedCall, output: ToolOutput
) -> tuple[Compression, CallCost]:
    """One call's compression, in the cycle that produced it (mechanical for the skip list)."""
    if not comp.needs_model(planned.tool, session.config.skip_compress, session.state.mode):
        return comp.mechanical(planned, output), CallCost()
    context = rules_block(session.state, session.deps.store)
    return comp.compress_one(session.state.goal, planned, output, context, _ask_one(executor, key))


def compress_results(
    session: Session, executor: Executor, finished: Iterable[ToolResult]
) -> Iterator[tuple[CallKey, PlannedCall, ToolOutput, Compression, CallCost]]:
    """Compress results as the iteration's compression step: `each` one by one as they arrive,
    `batch` all of them in one model call once the last tool has finished."""
    if session.config.compress == "each":
        for key, planned, output in finished:
            yield key, planned, output, *compress_call(session, executor, key, planned, output)
        return
    items = list(finished)
    state = session.state
    modelled = [i for i in items if comp.needs_model(i[1].tool, session.config.skip_compress, state.mode)]
    done: dict[int, tuple[Compression, CallCost]] = {}
    if modelled:
        context = rules_block(state, session.deps.store)
        pairs = [(planned, output) for _, planned, output in modelled]
        first = modelled[0][0]
        ask_batch = _ask_batch(executor, first, [key.index for key, _, _ in modelled])
        many = comp.compress_many(
            state.goal,
            pairs,
            context,
            ask_batch,
            lambda n, payload: _ask_one(executor, modelled[n][0])(payload),
        )
        done = {key.index: result for (key, _, _), result in zip(modelled, many, strict=True)}
    for key, planned, output in items:
        compression, cost = done.get(key.index) or (comp.mechanical(planned, output), CallCost())
        yield key, planned, output, compression, cost


def _ask_one(executor: Executor, key: CallKey) -> Callable[[CompressInput], LLMResult[Any]]:
    def ask(payload: CompressInput) -> LLMResult[Any]:
        ckey = key.model_copy(update={"kind": "compress"})
        return executor.ask(ckey, "compress", payload, f"compress-{key.iteration}-{key.index}")

    return ask


def _ask_batch(
    executor: Executor, key: CallKey, indices: list[int]
) -> Callable[[CompressBatchInput], LLMResult[Any]]:
    # The batch's cache key names its calls: a resumed iteration batches only the unfinished ones,
    # and must not be handed the cached answer for a different set.
    kind = "compress_batch:" + ",".join(str(i) for i in indices)
    bkey = key.model_copy(update={"index": 0, "kind": kind})

    def ask(payload: CompressBatchInput) -> LLMResult[Any]:
        return executor.ask(bkey, "compress_batch", payload, f"compress-batch-{key.iteration}")

    return ask


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
    call = comp.tool_call(
        call_id,
        key.iteration,
        key.index,
        planned,
        output,
        compression,
        seconds=output.seconds,
        compression_cost=cost,
        output_path=output_path,
    )
    file = code = None
    if output.written is not None:
        repo.commit(
            [repo.artifacts / output.written.path], f"{planned.tool} {output.written.path} ({call_id})"
        )
        previous = session.state.files.get(output.written.path)
        file, code = register_file(call_id, output.written, previous, time.time())
    session.recorder.record(ToolCallRecorded(call=call))
    if file is not None:
        session.recorder.record(FileRecorded(file=file, code=code))
    evidence = evidence_for(call, file, code, output.written.content if output.written else "")
    if evidence:
        session.recorder.record(EvidenceRecorded(evidence=evidence))
    return call


def _keep_full_output(outputs: Path, call_id: str, text: str, secrets: tuple[str, ...] = ()) -> str | None:
    if len(text) <= comp.RAW_CHARS:
        return None
    outputs.mkdir(parents=True, exist_ok=True)
    path = outputs / f"{call_id}.txt"
    path.write_text(redact(text, secrets), encoding="utf-8", errors="replace")  # never keep a secret on disk
    return f"outputs/{call_id}.txt"
