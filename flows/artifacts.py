"""What a task shows in the Prefect UI: per iteration a markdown artifact, per task an evidence
table and a progress bar.

The builders are pure functions of the task state (tested without Prefect); `publish_*` are thin
shells over Prefect's artifact API. Keys use lowercase letters, digits and dashes only, as Prefect
requires; a task id already does.

>>> iteration_key("alder-creek-3f9a", 2), evidence_key("alder-creek-3f9a")
('alder-creek-3f9a-iteration-2', 'alder-creek-3f9a-evidence')
>>> progress_percent(TaskState(max_iterations=10, iterations=[IterationRecord(iteration=1)]))
10.0
"""

from __future__ import annotations

import re
from uuid import UUID

from cairn.memory.models import IterationRecord, PlannedCall, Verdict, main_argument
from cairn.memory.state import TaskState

_KEY_UNSAFE = re.compile(r"[^a-z0-9-]+")


def _key(*parts: object) -> str:
    return _KEY_UNSAFE.sub("-", "-".join(str(p) for p in parts).lower()).strip("-")


def iteration_key(task_id: str, iteration: int) -> str:
    return _key(task_id, "iteration", iteration)


def evidence_key(task_id: str) -> str:
    return _key(task_id, "evidence")


def progress_key(task_id: str) -> str:
    return _key(task_id, "progress")


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


def evidence_rows(state: TaskState) -> list[dict[str, str | float | int]]:
    """One row per piece of evidence, oldest first."""
    return [
        {
            "iteration": ev.iteration,
            "type": ev.type,
            "source": ev.source,
            "confidence": round(ev.confidence, 3),
            "content": _cell(ev.content, 200),
        }
        for ev in state.evidence
    ]


def progress_percent(state: TaskState) -> float:
    """Share of the validator's requirements met; iterations over the cap until a first verdict."""
    verdict = state.verdict
    if verdict is not None and verdict.complete:
        return 100.0
    if verdict is not None and (verdict.satisfied or verdict.missing):
        met = len(verdict.satisfied) / (len(verdict.satisfied) + len(verdict.missing))
        return round(min(99.0, 100.0 * met), 1)
    return round(min(99.0, 100.0 * len(state.iterations) / max(1, state.max_iterations)), 1)


# --- Publishing (Prefect) -----------------------------------------------------------------------


class TaskArtifacts:
    """The artifacts of one task in one process: the progress artifact is created once, then updated."""

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self._progress: UUID | None = None

    def publish_iteration(self, state: TaskState, record: IterationRecord) -> None:
        from prefect.artifacts import create_markdown_artifact, create_table_artifact

        create_markdown_artifact(
            markdown=iteration_markdown(state, record, state.verdict),
            key=iteration_key(self.task_id, record.iteration),
            description=f"iteration {record.iteration}: plan, calls, insights, synthesis, verdict",
        )
        create_table_artifact(
            table=evidence_rows(state),
            key=evidence_key(self.task_id),
            description=f"evidence of task {self.task_id}",
        )
        self.publish_progress(state)

    def publish_progress(self, state: TaskState) -> None:
        from prefect.artifacts import create_progress_artifact, update_progress_artifact

        percent = progress_percent(state)
        text = f"{len(state.iterations)} of at most {state.max_iterations} iterations; {state.status}"
        if self._progress is None:
            key = progress_key(self.task_id)
            created = create_progress_artifact(percent, key=key, description=text)
            assert isinstance(created, UUID)  # a sync caller gets the id, not a coroutine
            self._progress = created
        else:
            update_progress_artifact(self._progress, percent, description=text)
