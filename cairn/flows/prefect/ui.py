"""A task's UI pages: what it shows in the Prefect UI. Per iteration a markdown page (on its subflow
run), per task an evidence table, a progress bar and the result (`cairn.flows.loop.outcome`).

Prefect's API calls these artifacts, and the calls to it keep Prefect's names; Cairn calls them UI
pages, since a task's artifacts are the files in its `artifacts/` folder. The builders are pure
functions of the task state (tested without Prefect); `publish_*` are thin shells over Prefect's
artifact API. Keys use lowercase letters, digits and dashes only, as Prefect requires; a task id
already does.

>>> iteration_key("alder-creek-3f9a", 2), evidence_key("alder-creek-3f9a")
('alder-creek-3f9a-iteration-2', 'alder-creek-3f9a-evidence')
>>> progress_percent(TaskState(max_iterations=10, iterations=[IterationRecord(iteration=1)]))
10.0
"""

from __future__ import annotations

import re
from uuid import UUID

from cairn.core import IterationRecord, PlannedCall, Verdict, displayable, displayable_data, main_argument
from cairn.memory.log.state import TaskState

_KEY_UNSAFE = re.compile(r"[^a-z0-9-]+")


def _key(*parts: object) -> str:
    return _KEY_UNSAFE.sub("-", "-".join(str(p) for p in parts).lower()).strip("-")


def iteration_key(task_id: str, iteration: int) -> str:
    return _key(task_id, "iteration", iteration)


def evidence_key(task_id: str) -> str:
    return _key(task_id, "evidence")


def progress_key(task_id: str) -> str:
    return _key(task_id, "progress")


def result_key(task_id: str) -> str:
    return _key(task_id, "result")


def _cell(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _planned(call: PlannedCall) -> str:
    arg = main_argument(call.params)
    return f"- `{call.tool}({_cell(arg, 80)})` — {_cell(call.rationale) or 'no rationale'}"


def iteration_markdown(state: TaskState, record: IterationRecord, verdict: Verdict | None) -> str:
    """Plan, calls, insights, synthesis and verdict of one finished iteration."""
    plan = [c for c in state.calls if c.iteration == record.iteration]
    lines = [
        f"# Iteration {record.iteration} of task `{state.task_id}`",
        "",
        f"**Goal:** {_cell(state.goal, 400)}  ",
        f"**Mode:** {record.mode} · **Progress:** {record.progress_assessment}",
        "",
        "## Plan",
    ]
    lines += [
        _planned(PlannedCall(tool=c.tool, params=c.params, rationale=c.tool_selection_rationale))
        for c in plan
    ] or ["- (no calls)"]
    lines += ["", "## Calls", "", "| # | tool | argument | outcome | insights |", "|---|---|---|---|---|"]
    lines += [
        f"| {c.index} | {c.tool} | {_cell(main_argument(c.params), 60)} | {c.outcome} | "
        f"{_cell(c.insights or c.error or '')} |"
        for c in record.tool_calls
    ]
    learned = [f"- {_cell(c.learning, 300)}" for c in record.tool_calls if c.learning]
    lines += ["", "## Insights", *(learned or ["- (none)"]), "", "## Synthesis", record.synthesis or "(none)"]
    lines += ["", "## Verdict", _verdict(verdict, record.iteration)]
    return "\n".join(lines) + "\n"


def _verdict(verdict: Verdict | None, iteration: int) -> str:
    if verdict is None or verdict.iteration != iteration:
        return "Not validated after this iteration (no new evidence)."
    status = "complete" if verdict.complete else "not complete"
    missing = f" Missing: {', '.join(verdict.missing)}." if verdict.missing else ""
    return f"**{status}** (confidence {verdict.confidence:.2f}): {verdict.rationale}.{missing}"


EVIDENCE_ROWS = 200  # the evidence table shows the latest rows: its cost stays flat on a long task


def evidence_rows(state: TaskState) -> list[dict[str, str | float | int]]:
    """One row per piece of evidence, oldest first (the latest `EVIDENCE_ROWS` of them)."""
    return [
        {
            "iteration": ev.iteration,
            "type": ev.type,
            "source": ev.source,
            "confidence": round(ev.confidence, 3),
            "content": _cell(ev.content, 200),
        }
        for ev in state.evidence[-EVIDENCE_ROWS:]
    ]


def progress_percent(state: TaskState) -> float:
    """Share of the validator's requirements met (of a coverage goal, of its sources read and items
    settled); iterations over the cap until a first verdict."""
    verdict = state.verdict
    if verdict is not None and verdict.complete:
        return 100.0
    coverage = state.coverage
    if coverage is not None and coverage.kind and coverage.sources:
        settled = coverage.done / coverage.items if coverage.items else 0.0
        return round(min(99.0, 50.0 * coverage.read / coverage.sources + 50.0 * settled), 1)
    if verdict is not None and (verdict.satisfied or verdict.missing):
        met = len(verdict.satisfied) / (len(verdict.satisfied) + len(verdict.missing))
        return round(min(99.0, 100.0 * met), 1)
    return round(min(99.0, 100.0 * len(state.iterations) / max(1, state.max_iterations)), 1)


# --- Publishing (Prefect) -----------------------------------------------------------------------


class TaskPages:
    """The UI pages of one task in one process.

    - each iteration's page on that iteration's subflow run (`iteration_run` says which run it
      was), published after validation so the verdict is in it;
    - the evidence table under one key, a new version only when the evidence changed, never empty;
    - the progress bar on the parent, created once and then updated;
    - the result (`cairn.flows.loop.outcome`) on the parent when the task ends.
    """

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self._progress: UUID | None = None
        self._runs: dict[int, UUID] = {}

    def iteration_run(self, iteration: int, flow_run_id: UUID | None) -> None:
        if flow_run_id is not None:
            self._runs[iteration] = flow_run_id

    def publish_iteration(self, state: TaskState, record: IterationRecord) -> None:
        from prefect.artifacts import MarkdownArtifact, TableArtifact

        run = self._runs.get(record.iteration)  # None: this process did not run it (a resume)
        MarkdownArtifact(
            markdown=displayable(iteration_markdown(state, record, state.verdict)),  # valid text for the API
            key=iteration_key(self.task_id, record.iteration),
            description=f"iteration {record.iteration}: plan, calls, insights, synthesis, verdict",
            flow_run_id=run,
        ).create()
        rows = evidence_rows(state)
        if rows and any(ev.iteration == record.iteration for ev in state.evidence):
            TableArtifact(  # a new version only when this iteration added evidence: no identical cards
                table=[{k: displayable_data(v) for k, v in row.items()} for row in rows],
                key=evidence_key(self.task_id),
                description=f"evidence of task {self.task_id} after iteration {record.iteration}",
                flow_run_id=run,
            ).create()
        self.publish_progress(state)

    def publish_progress(self, state: TaskState) -> None:
        from prefect.artifacts import create_progress_artifact, update_progress_artifact

        percent = progress_percent(state)
        text = f"{len(state.iterations)} of at most {state.max_iterations} iterations; {state.status}"
        if state.coverage is not None:
            text += f"; {state.coverage.line()}"
        if self._progress is None:
            key = progress_key(self.task_id)
            created = create_progress_artifact(percent, key=key, description=text)
            assert isinstance(created, UUID)  # a sync caller gets the id, not a coroutine
            self._progress = created
        else:
            update_progress_artifact(self._progress, percent, description=text)

    def publish_result(self, markdown: str) -> None:
        """The result page, on the current (parent) flow run."""
        from prefect.artifacts import create_markdown_artifact

        create_markdown_artifact(
            markdown=displayable(markdown),
            key=result_key(self.task_id),
            description=f"result of task {self.task_id}: answer, verdict, files, totals",
        )


TaskArtifacts = TaskPages  # its 0.2 name (`cairn.flows.artifacts.TaskArtifacts`), for 0.2 callers
