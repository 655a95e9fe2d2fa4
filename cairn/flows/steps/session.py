"""One task's live session inside a flow run: its recorder, tools and the steps between them.

The iteration flow reads as the algorithm; the bookkeeping of each step lives here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from cairn.core import Memory, RunConfig, ToolsConfig
from cairn.flows.settings import cairn_home
from cairn.flows.steps.deliverable import deliverable_name
from cairn.memory.context.reasoning import context_budget
from cairn.memory.context.relevant import relevant_context
from cairn.memory.context.values import TDLambda, ValueTable
from cairn.memory.index.recorder import TaskRecorder
from cairn.memory.index.sources import ensure_sources
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import TaskRepo
from cairn.memory.store.protocol import SearchFilter, SearchQuery
from cairn.tasks.calibration.store import load_calibration
from cairn.tasks.compress import line_counter
from cairn.tasks.deps import Deps, deps_for
from cairn.tasks.model.capabilities import OFFLINE_PREFIX, context_window, replay_of
from cairn.tasks.opening import words_budget
from cairn.tasks.task_grounding import FullOutput, full_output_reader
from cairn.tasks.tools.base import ToolContext
from cairn.tasks.toolset import Toolset, toolset_for
from cairn.tasks.verifier import CairnJudge, Verifier


@dataclass
class Session:
    """A task's services in one process: built once per session (a Prefect iteration opens its
    own), so a step that asks for the tools, the output reader or the model's window twice gets
    the same object."""

    config: RunConfig
    deps: Deps
    recorder: TaskRecorder
    verifier: Verifier = field(default_factory=CairnJudge)  # who judges each answer's parts
    _tools: tuple[ToolsConfig, Toolset] | None = field(default=None, init=False, repr=False)

    @property
    def state(self) -> TaskState:
        return self.recorder.state

    @property
    def task_id(self) -> str:
        return self.recorder.repo.task_id

    @property
    def artifacts(self) -> Path:
        """The task's workspace: what its tools write and its deliverable."""
        return self.recorder.repo.artifacts

    @cached_property
    def reader(self) -> FullOutput:
        """A call's whole output, from the task's `outputs/` folder."""
        return full_output_reader(self.recorder.repo.root)

    @cached_property
    def window(self) -> int:
        """The model's context window, in tokens."""
        return context_window(self.config.model)

    @property
    def words(self) -> int:
        """How many words of sources one request may carry (`cairn.tasks.opening.words_budget`)."""
        return words_budget(self.window)

    def toolset(self) -> Toolset:
        """The task's tools, from the configuration its history holds (again only when that changed)."""
        wanted = self.state.tools or ToolsConfig()
        if self._tools is None or self._tools[0] != wanted:
            self._tools = (wanted, toolset_for(wanted))
        return self._tools[1]

    def tool_context(self) -> ToolContext:
        live: dict[str, object] = {"workspace": self.deps.workspace.root, "search": self.search_lines}
        live["task_state"] = lambda: self.recorder.state
        return task_context(self.recorder.repo, self.state).model_copy(update=live)

    def search_lines(self, query: str, k: int) -> list[str]:
        sources = ensure_sources(self.deps.store, self.state.sources)  # indexed once, on first use
        tenants = [self.task_id, "shared", *self.state.related, *sources]
        hits = self.deps.store.search(SearchQuery(text=query, k=k, filter=SearchFilter(tenants=tenants)))
        related = set(self.state.related)
        return [f"{_label(h.memory.tenant, related)}{_line(h.memory)}" for h in hits]

    def context(self) -> str:
        """The CONTEXT block; the history budget is RunConfig.context_tokens or 25% of the model's window."""
        budget = self.config.context_tokens or context_budget(self.window)
        counter = line_counter(self.config.model)
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


def task_context(repo: TaskRepo, state: TaskState) -> ToolContext:
    """Where the task's tools act, without the live services of a session (the CLI looks, with
    it, whether an interrupted write took effect: `cairn.flows.loop.uncertain`)."""
    return ToolContext(
        task_id=repo.task_id,
        artifacts=repo.artifacts,
        sources={name: Path(path) for name, path in state.sources.items()},
        committed=lambda rel: repo.committed(repo.artifacts / rel),
        deliverable=deliverable_name(state),
        tools=state.tools or ToolsConfig(),
    )


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
    return Session(config=config, deps=deps, recorder=recorder, verifier=cairn_judge(config.model))


def cairn_judge(model: str) -> CairnJudge:
    """Cairn's own judge for `model`, with the calibration `cairn calibrate` stored for it."""
    found = load_calibration(model, cairn_home())
    return CairnJudge(model, calibrated=found is not None, proven=found.proven if found else None)


def judge_line(model: str) -> str:
    """Who judges a task's answers, as `cairn show`, `--json` and the result page say it."""
    if model.startswith(OFFLINE_PREFIX) or replay_of(model) is not None:
        return "Cairn's own judge (the fitted verifier and the structure of the lines read)"
    judge = cairn_judge(model)
    if not judge.calibrated:
        return f"{model}, {judge.uncalibrated}: its word alone proves nothing"
    if judge.threshold is None:
        return f"{model}, calibrated: no threshold reached precision's bound, its word alone proves nothing"
    return f"{model}, calibrated: its word proves at P(yes) >= {judge.threshold:.3f}"
