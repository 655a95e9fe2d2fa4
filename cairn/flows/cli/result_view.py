"""How a task looks to a person (`cairn show`, the end of `cairn run`) and as one JSON object."""

from __future__ import annotations

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from cairn.core import (
    ActionChecked,
    Coverage,
    Evidence,
    IterationRecord,
    ModelCall,
    PartCheck,
    SourceSkip,
    StrategyName,
    ToolCall,
    Verdict,
)
from cairn.flows.cli.model_usage import usage_table
from cairn.flows.console import safe
from cairn.flows.steps.piecewise import progress
from cairn.flows.steps.session import judge_line
from cairn.flows.strategies import BY_NAME, strategy_name
from cairn.memory.log.history import Replay
from cairn.memory.log.state import Constraint, HotIssue, replay
from cairn.memory.log.workspace import TaskRepo
from cairn.memory.store.protocol import SearchHit
from cairn.tasks.actions import described
from cairn.tasks.task_grounding import full_output_reader

out = Console()


class TaskView(BaseModel):
    task_id: str
    goal: str
    task_type: str
    strategy: StrategyName  # how its work is done: question, coverage, coding or general
    status: str
    stop_reason: str | None
    report_path: str | None
    iterations: list[IterationRecord]
    pending_calls: list[ToolCall]
    evidence: list[Evidence]
    files: list[str]
    constraints: list[Constraint]
    hot_issues: list[HotIssue]
    verdict: Verdict | None
    coverage: Coverage | None = None  # how far it got: sources read; a coverage goal's items
    skipped_sources: dict[str, SourceSkip] = {}  # source files not read (binary, too large), and why
    pieces: str | None = None  # a goal of several functions: how many its examples verified
    judge: str = ""  # who judges its answers, and how far the model's word is trusted (calibration)
    model_calls: list[ModelCall] = []
    actions: list[ActionChecked] = []  # an action goal's calls, made or refused, with their values' sources
    history_warning: str | None = None  # a torn last line (a crash while appending)
    history_problems: list[str] = []  # lines changed, removed or reordered (`cairn verify`)


def task_view(repo: TaskRepo, log: Replay, tampering: list[str] | None = None) -> TaskView:
    state = replay(log.events)
    return TaskView(
        task_id=state.task_id,
        goal=state.goal,
        task_type=state.task_type,
        strategy=strategy_name(state),
        status=state.status,
        stop_reason=state.stop_reason,
        report_path=state.report_path,
        iterations=state.iterations,
        pending_calls=state.pending_calls,
        evidence=state.evidence,
        files=sorted(state.files),
        constraints=state.constraints,
        hot_issues=state.hot_issues,
        verdict=state.verdict,
        coverage=state.coverage,
        skipped_sources=state.skipped_sources,
        pieces=progress(state, full_output_reader(repo.root)),
        judge=judge_line(state.model),
        model_calls=state.model_calls,
        actions=state.checked_actions,
        history_warning=log.torn_tail,
        history_problems=tampering or [],
    )


def print_task(view: TaskView) -> None:
    out.print(f"[bold]{view.task_id}[/] · {view.task_type} · {view.strategy} · [bold]{view.status}[/]")
    out.print(f"goal: {safe(view.goal)}")
    out.print(f"strategy: {view.strategy}, complete when {BY_NAME[view.strategy].complete_when}")
    out.print(f"judge: {safe(view.judge)}")
    if view.history_problems:
        more = f" (and {len(view.history_problems) - 1} more)" if len(view.history_problems) > 1 else ""
        out.print(
            f"[bold red]warning: the history was changed: {safe(view.history_problems[0])}{more}; "
            f"what follows may not be what happened (`cairn verify {view.task_id}`)[/]"
        )
    if view.history_warning:
        out.print(f"[yellow]history: {safe(view.history_warning)} (kept everything before it)[/]")
    for it in view.iterations:
        out.print(
            _calls_table(f"iteration {it.iteration} ({it.mode}) · {it.progress_assessment}", it.tool_calls)
        )
        out.print(f"  synthesis: {safe(it.synthesis)}")
    if view.pending_calls:
        out.print(_calls_table("unfinished iteration", view.pending_calls))
    out.print(_evidence_table(view.evidence))
    for c in view.constraints:
        out.print(f"rule: {safe(c.rule)} {'(retired)' if not c.active else ''}")
    for h in view.hot_issues:
        out.print(f"hot issue: {safe(h.content)} {'(resolved)' if not h.active else '[red](active)[/]'}")
    for check in view.actions:
        out.print(f"{'[red]' if check.refused else ''}action: {safe(described(check))}", highlight=False)
    if view.model_calls:
        out.print(usage_table(view.model_calls))
    if view.coverage:
        out.print(f"coverage: {safe(view.coverage.line())}")
    if view.skipped_sources:
        out.print(f"skipped: {safe(skipped_line(view.skipped_sources))}", highlight=False)
    if view.pieces:
        out.print(f"pieces: {safe(view.pieces)}")
    if view.verdict:
        print_verdict(view.verdict)
    if view.stop_reason:
        out.print(f"stopped: {safe(view.stop_reason)}")
    if view.report_path:
        out.print(f"report: {safe(view.report_path)}")


def skipped_line(skipped: dict[str, SourceSkip], named: int = 5) -> str:
    """The source files a task did not read, counted by why, the first few of each named.

    >>> skipped_line({"source:r/a.pdf": "binary", "source:r/b.png": "binary", "source:r/d.json": "too large"})
    '2 binary source files (r/a.pdf, r/b.png); 1 too large (r/d.json)'
    """
    groups: list[str] = []
    for why in ("binary", "too large"):
        paths = [path.removeprefix("source:") for path, reason in skipped.items() if reason == why]
        if paths:
            shown = ", ".join(paths[:named]) + (", ..." if len(paths) > named else "")
            what = f"binary source file{'s' * (len(paths) != 1)}" if why == "binary" else why
            groups.append(f"{len(paths)} {what} ({shown})")
    return "; ".join(groups)


def _calls_table(title: str, calls: list[ToolCall]) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    for col in ("call", "tool", "outcome", "relevance", "insights", "learning"):
        table.add_column(col, overflow="fold")
    for c in calls:
        cells = (c.call_id, c.one_line().split(" -> ")[0], c.outcome, c.relevance, c.insights, c.learning)
        table.add_row(*(safe(cell) for cell in cells))
    return table


def _evidence_table(evidence: list[Evidence]) -> Table:
    table = Table(title="evidence", title_justify="left")
    for col in ("type", "confidence", "source", "content"):
        table.add_column(col, overflow="fold")
    for e in evidence:
        table.add_row(e.type, f"{e.confidence:.2f}", safe(e.source), safe(e.content))
    return table


def print_verdict(verdict: Verdict) -> None:
    mark = "[green]complete[/]" if verdict.complete else "[yellow]incomplete[/]"
    out.print(f"verdict: {mark} (confidence {verdict.confidence:.2f}) — {safe(verdict.rationale)}")
    if any(p.quotes or p.value for p in verdict.parts):
        out.print(_proof_table(verdict.parts))
    for line in verdict.unmet:
        out.print(f"  [yellow]unmet:[/] {safe(line)}")


def _proof_table(parts: list[PartCheck]) -> Table:
    """Each question, the answer proven for it, and the lines read that state it."""
    table = Table(title="proof", title_justify="left", show_lines=True)
    for col in ("part", "answer", "quoted lines"):
        table.add_column(col, overflow="fold")
    for part in parts:
        said = part.value if part.answered else f"[yellow]not proven[/]: {safe(part.why)}"
        quotes = "\n".join(safe(q.shown()) for q in part.quotes)
        table.add_row(safe(part.part), safe(said) if part.answered else said, quotes)
    return table


def print_result(result: BaseModel) -> None:
    data = result.model_dump()
    out.print(f"[bold]{data['task_id']}[/]: {data['status']} after {data['iterations']} iterations")
    if data.get("coverage"):
        out.print(f"coverage: {safe(Coverage.model_validate(data['coverage']).line())}")
    if data.get("verdict"):
        print_verdict(Verdict.model_validate(data["verdict"]))
    if data.get("stop_reason") and not data.get("complete"):
        out.print(f"stopped: {safe(data['stop_reason'])}")
    out.print(f"report: {safe(data['report_path'] or '(none)')}")
    failed = f" ({data.get('failed_model_calls')} failed)" if data.get("failed_model_calls") else ""
    spent = f"{data.get('tokens', 0):,} tokens, ${data.get('usd', 0.0):.4f}"
    out.print(f"model: {data.get('model_calls', 0)} calls{failed}, {spent}")
    out.print(f"runs: Prefect flow run cairn-{data['task_id']} · details: cairn show {data['task_id']}")


def print_hits(query: str, hits: list[SearchHit]) -> None:
    table = Table(title=f"search: {safe(query)}", title_justify="left")
    for col in ("score", "kind", "tenant", "where", "content"):
        table.add_column(col, overflow="fold")
    for h in hits:
        m = h.memory
        where = m.file_path or m.source or ""
        table.add_row(f"{h.score:.3f}", m.kind, safe(m.tenant), safe(where), safe(m.content[:200]))
    out.print(table)
