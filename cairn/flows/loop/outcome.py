"""The result page: what a finished task shows on its parent flow run in the Prefect UI.

The answer or report text (long ones cut, saying where the rest is), the verdict with its
rationale, the requirements met and missing, the files written, and the run's totals. Everything
here is a pure function of the task state and a few facts read beside it (the report's text, the
history's first and last timestamps), so it is tested without Prefect; `TaskPages` publishes it.

>>> totals(TaskState(iterations=[IterationRecord(iteration=1)]), started=0.0, finished=90.0).duration
'1m 30s'
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from cairn.core import IterationRecord, Verdict
from cairn.flows.steps.session import judge_line
from cairn.memory.log.state import TaskState
from cairn.tasks.actions import described

REPORT_CHARS = 4000  # what the result page shows of the report; the file holds the rest
_ = IterationRecord  # named in the doctest


class RunTotals(BaseModel):
    """What the task took: iterations, calls, tokens, money and wall time."""

    iterations: int
    tool_calls: int
    model_calls: int
    tokens: int
    usd: float
    seconds: float
    basis: str  # which model calls the figures cover

    @property
    def duration(self) -> str:
        minutes, seconds = divmod(round(self.seconds), 60)
        return f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"


def totals(state: TaskState, started: float, finished: float) -> RunTotals:
    """Totals from the task state: every model call the history records (all runs of the task)."""
    cost = state.model_cost
    return RunTotals(
        iterations=len(state.iterations),
        tool_calls=len(state.calls),
        model_calls=len(state.model_calls),
        tokens=cost.tokens,
        usd=round(cost.usd, 6),
        seconds=max(0.0, finished - started),
        basis="every model call in the task's history",
    )


def report_excerpt(path: Path | None, limit: int = REPORT_CHARS) -> str | None:
    """The report's text, cut at `limit` characters with a line saying where the rest is."""
    if path is None or not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit("\n", 1)[0] if "\n" in text[:limit] else text[:limit]
    note = f"*… truncated: {len(cut):,} of {len(text):,} characters shown; the full text is in `{path}`.*"
    return f"{cut}\n\n{note}"


def _verdict_lines(verdict: Verdict | None) -> list[str]:
    if verdict is None:
        return ["Not validated (no evidence was produced)."]
    status = "**complete**" if verdict.complete else "**not complete**"
    lines = [f"{status} (confidence {verdict.confidence:.2f}, suite `{verdict.suite or 'default'}`)", ""]
    lines += [f"> {verdict.rationale}", "", "Requirements met:"]
    lines += [f"- ✅ {r}" for r in verdict.satisfied] or ["- (none)"]
    lines += ["", "Requirements missing:"]
    lines += [f"- ❌ {r}" for r in verdict.missing] or ["- (none)"]
    if any(p.quotes or p.value for p in verdict.parts):
        lines += ["", "Proof, part by part (the lines read that state each answer):"]
        for part in verdict.parts:
            said = part.value if part.answered else f"not proven: {part.why}"
            lines += [f"- **{part.part}** {said}", *(f"  - `{q.shown()}`" for q in part.quotes)]
    if verdict.unmet:
        lines += ["", "Checks not met (the answer is unverified):"]
        lines += [f"- {line}" for line in verdict.unmet]
    return lines


def result_markdown(state: TaskState, run: RunTotals, report: str | None, artifacts: Path) -> str:
    """The result page: answer, verdict, files, totals."""
    lines = [
        f"# Result of task `{state.task_id}`: {state.status}",
        "",
        f"**Goal:** {state.goal}",
        "",
        f"**Stopped because:** {state.stop_reason or 'still running'}",
        "",
        f"**Judged by:** {judge_line(state.model)}",
        "",
        "## Answer" if state.task_type == "simple_question" else "## Report",
        "",
        f"From `{state.report_path}`:" if state.report_path else "No answer or report file was written.",
        "",
    ]
    if report:
        lines += [report, ""]
    lines += ["## Verdict", "", *_verdict_lines(state.verdict), ""]
    if state.checked_actions:  # an action goal: each call of its plan, made or refused, and why
        lines += ["## Calls", "", *(f"- {described(check)}" for check in state.checked_actions), ""]
    lines += ["## Files written", ""]
    lines += [f"- `{artifacts / path}`" for path in sorted(state.files)] or ["- (none)"]
    lines += [
        "",
        "## Totals",
        "",
        "| iterations | tool calls | model calls | tokens | cost (USD) | duration |",
        "|---|---|---|---|---|---|",
        f"| {run.iterations} | {run.tool_calls} | {run.model_calls} | {run.tokens:,} | "
        f"{run.usd:.4f} | {run.duration} |",
        "",
        f"Model calls, tokens and cost count {run.basis}.",
    ]
    return "\n".join(lines) + "\n"
