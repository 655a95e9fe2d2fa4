"""What each CLI command does, once its options are parsed. Prefect's room is imported inside the
commands that run a task, so the others answer without importing Prefect."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel
from rich.console import Console

from cairn.core import RunConfig, ToolsConfig, UsageError, displayable
from cairn.flows.cli.arguments import check_run, check_tools, check_workspace, one_of
from cairn.flows.cli.endings import ending
from cairn.flows.cli.files import search_hits
from cairn.flows.cli.guard import Guard
from cairn.flows.cli.result_view import print_hits, print_result, print_task, task_view
from cairn.flows.cli.server_watch import Server, server_for
from cairn.flows.console import emit, err, safe, say
from cairn.flows.loop.claim import TaskLock
from cairn.flows.loop.policy import AWAITING_REVIEW
from cairn.flows.loop.preflight import preflight
from cairn.flows.loop.reopen import check_untampered, ready_to_continue
from cairn.flows.loop.request import Checked, TaskRequest
from cairn.flows.loop.standing_rules import give_feedback, list_rules, retire_rule
from cairn.flows.loop.task_tools import ready_to_run
from cairn.flows.runtime import prepare
from cairn.flows.settings import cairn_home
from cairn.memory.index.indexer import reindex
from cairn.memory.index.sources import ensure_sources
from cairn.memory.log.history import HistoryError
from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import TaskRepo, Workspace
from cairn.memory.store.protocol import SearchFilter
from cairn.redact import redact
from cairn.tasks.deps import deps_for

if TYPE_CHECKING:
    from cairn.memory.store.protocol import MemoryStore


def run_command(
    config: RunConfig,
    goal: str,
    sources: list[Path],
    task_id: str | None,
    task_type: str | None,
    as_json: bool,
    related: list[str] | None = None,
    tools: ToolsConfig | None = None,
) -> None:
    with Guard(config.workspace).signals() as guard:  # SIGINT, SIGTERM: one line, out at once
        args = check_run(
            config, goal, sources, task_id, task_type, related or []
        )  # before anything is created
        config = preflight(config)  # an unknown model or a silent server: one line, nothing created
        check_tools(tools)  # Python tools import, MCP servers start: before anything is created
        # The goal becomes a flow-run parameter, the run's name and every prompt: a key pasted into it
        # must stop here, before Prefect or a model sees it.
        request = TaskRequest.new(
            redact(args.goal),
            config,
            task_id=args.task_id,
            sources=[str(source) for source in args.sources],
            task_type=args.task_type,
            related=args.related,
            tools=tools,
        )
        guard.task_id = request.task_id
        _claim_and_run(config, request.task_id, as_json, lambda state: request, guard)


def demo_command(config: RunConfig, as_json: bool) -> None:
    """The Alder Creek question over the example corpus, both shipped inside the package."""
    examples = Path(__file__).resolve().parents[2] / "examples"  # cairn/examples, in a wheel or a checkout
    question = (examples / "QUESTION").read_text(encoding="utf-8").strip()
    run_command(config, question, [examples / "corpus"], None, None, as_json)


def resume_command(config: RunConfig, task_id: str, as_json: bool) -> None:
    """Continue a task; refused in one line, its log untouched, when it cannot go on
    (`cairn.flows.loop.reopen`), its model cannot be called, its tools cannot work, it has uncertain
    calls nobody decided on, or another process runs it."""
    check_workspace(Path(config.workspace), write=True)
    Workspace(Path(config.workspace)).task(task_id)  # an unknown task: one line, before the claim

    def request_for(state: TaskState | None) -> TaskRequest:
        assert state is not None
        model = state.model if config.model == "cairn/offline" else config.model
        checked = preflight(config.model_copy(update={"model": model}))
        check_tools(state.tools)
        sources = tuple(state.sources.values())
        return TaskRequest(
            goal=state.goal, config=checked, task_id=task_id, sources=sources, task_type=state.task_type
        )

    with Guard(config.workspace, task_id).signals() as guard:
        _claim_and_run(config, task_id, as_json, request_for, guard, resuming=True)


def _claim_and_run(
    config: RunConfig,
    task_id: str,
    as_json: bool,
    request_for: Callable[[TaskState | None], TaskRequest],
    guard: Guard,
    resuming: bool = False,
) -> None:
    """Claim the task for this process (a second runner is refused in one line), check once that
    it can go on, then run it; the task's flow runs under this claim and trusts these checks
    (`Checked`), so each is made once."""
    workspace = Path(config.workspace)
    with TaskLock(workspace, task_id) as claim:
        state = None
        if task_id in Workspace(workspace).task_ids():  # naming a task that exists continues it
            state = ready_to_continue(Workspace(workspace).task(task_id), config.accept_tampered, say)
        request = request_for(state)
        where = prepare(workspace)
        server = server_for(cairn_home(), Path.cwd())  # what the guard watches while the task runs
        # Prefect only now: imported before `prepare` set PREFECT_API_URL, it would start a server
        # of its own, one that outlives a killed `cairn` (the crash-loop test).
        from cairn.flows.prefect.internals import has_cached_result

        cached = partial(has_cached_result, request.config.workspace)
        tools = ready_to_run(request.config, task_id, request.tools, cached)  # uncertain calls: one line
        request = request.model_copy(update={"tools": tools, "checked": Checked(claim=claim.token)})
        if resuming and state is not None:
            done = len(state.iterations)
            err.print(f"[bold]cairn[/] resuming [cyan]{task_id}[/] after {done} iterations · {where}")
        else:
            shown = safe(config.workspace)
            err.print(f"[bold]cairn[/] task [cyan]{task_id}[/] · {where} · workspace {shown}")
        _run(request, as_json, resuming, guard, server)


def _run(request: TaskRequest, as_json: bool, resuming: bool, guard: Guard, server: Server | None) -> None:
    from cairn.flows.prefect.launch import AwaitingReview, launch

    config = request.config
    result = guard.run(lambda: launch(request, resuming=resuming), server)  # in a thread: see guard.py
    if isinstance(result, AwaitingReview):
        _awaiting_review(result, config, as_json)
        return
    if (result.stop_reason or "").startswith(AWAITING_REVIEW):
        _review_at_the_command_line(result.task_id, result.iterations, config, as_json)
    error = ending(result, config.workspace)  # the one mapping to an exit code (README, "Exit codes")
    if as_json:
        emit(result.model_dump(mode="json") | {"exit_code": error.exit_code if error else 0})
    else:
        print_result(result)
    if error is not None:
        raise error


def _awaiting_review(waiting: object, config: RunConfig, as_json: bool) -> None:
    from cairn.flows.prefect.launch import AwaitingReview

    assert isinstance(waiting, AwaitingReview)
    if as_json:
        emit(waiting.model_dump(mode="json") | {"exit_code": 0})  # suspended on a server: a worker goes on
        return
    err.print(f"task [cyan]{waiting.task_id}[/] is waiting for your review (the run is suspended):")
    print(
        f"  open {waiting.url or waiting.flow_run_id} and submit the form; a worker continues it",
        file=sys.stderr,
    )
    print(
        f'  or: cairn feedback {waiting.task_id} "..." && cairn resume {waiting.task_id} '
        f"--workspace {config.workspace}",
        file=sys.stderr,
    )


def _review_at_the_command_line(task_id: str, iteration: int, config: RunConfig, as_json: bool) -> None:
    """No server held a form: the task stopped for the review; one line says how to go on."""
    from cairn.flows.prefect.launch import ReviewPending, review_at_the_command_line

    waiting = review_at_the_command_line(task_id, iteration, config.workspace)
    if as_json:
        emit(waiting.model_dump(mode="json") | {"exit_code": ReviewPending.exit_code})
    give, resume = waiting.next
    raise ReviewPending(
        f"task {task_id} waits for your review of iteration {iteration}: give feedback with "
        f"`{give}`, then continue with `{resume}`"
    )


def show_command(config: RunConfig, task_id: str, as_json: bool) -> None:

    repo = Workspace(check_workspace(Path(config.workspace), write=False)).task(task_id)
    try:
        replay = repo.read()
    except HistoryError as exc:  # damage in the middle of the log: `cairn verify` says where
        raise HistoryError(f"{exc}; run `cairn verify {task_id}`") from None
    view = task_view(repo, replay, tampering=repo.history.tampering())
    if as_json:
        emit(view.model_dump(mode="json"))
    else:
        print_task(view)


def search_command(
    config: RunConfig, query: str, task: str | None, mode: str, k: int, as_json: bool, **filters: object
) -> None:
    """`filters`: kind, subtype, min_confidence, source (see `cairn.flows.cli.files.search_hits`)."""

    one_of(mode, ("hybrid", "vector", "keyword"), "--mode")
    if not 1 <= k <= 1000:
        raise UsageError(f"-k must be between 1 and 1000, not {k}")
    confidence = filters.get("min_confidence")
    if isinstance(confidence, float) and not 0.0 <= confidence <= 1.0:
        raise UsageError(f"--min-confidence must be between 0 and 1, not {confidence}")
    check_workspace(Path(config.workspace), write=True)  # the index is opened for writing

    hits = search_hits(config, query, task, mode, k, **filters)  # type: ignore[arg-type]
    if as_json:
        emit({"query": query, "mode": mode, "hits": [h.model_dump(mode="json") for h in hits]})
        return

    print_hits(query, hits)


def feedback_command(config: RunConfig, task_id: str, message: str, as_json: bool) -> None:

    if not message.strip():
        raise UsageError("the feedback message is empty")
    Workspace(check_workspace(Path(config.workspace), write=True)).task(task_id)  # before the index opens
    result = give_feedback(config, task_id, redact(displayable(message)))
    if as_json:
        emit(result.model_dump(mode="json"))
        return
    rule = (
        f"; rule [green]{safe(result.rule)}[/] ({result.key})" if result.rule else "; no standing rule in it"
    )
    when = "its next iteration takes it in" if result.status == "running" else f"task is {result.status}"
    err.print(f"feedback recorded for [cyan]{task_id}[/] ({when}){rule}")


def rules_command(config: RunConfig, retire: str | None, as_json: bool) -> None:

    check_workspace(Path(config.workspace), write=True)  # the index is opened for writing
    if retire is not None:
        retired = retire_rule(config, retire)
        if as_json:
            emit({"retired": retired.model_dump(mode="json")})
        else:
            err.print(f"retired [cyan]{retired.key}[/]: {safe(retired.rule)} (in {len(retired.tasks)} tasks)")
        return
    found = list_rules(config)
    if as_json:
        emit({"rules": [r.model_dump(mode="json") for r in found]})
        return
    if not found:
        err.print("no rules yet: a rule comes from a goal or feedback that states one")
    for r in found:
        state = "active " if r.active else "retired"
        where = ", ".join(r.tasks) or "no task"
        Console().print(f"{state}  {r.key}  {safe(r.rule)}  [dim]({where})[/]", highlight=False)


def reindex_command(config: RunConfig, task_id: str, as_json: bool) -> None:

    repo = Workspace(check_workspace(Path(config.workspace), write=True)).task(task_id)
    replay = repo.read()  # junk in the middle: HistoryError naming the line
    check_untampered(repo, config.accept_tampered, "reindex")
    store = deps_for(config).store
    count = reindex(store, replay.envelopes, repo.artifacts)
    sources = reindex_sources(store, repo.state().sources)

    records = store.count(SearchFilter(tenants=[task_id]))
    if as_json:
        emit(
            {"task_id": task_id, "events": count, "records": records, "sources": sources}
            | {"torn_tail": replay.torn_tail}
        )
    else:
        err.print(
            f"reindexed [cyan]{task_id}[/]: {count} events → {records} records; {_sources_line(sources)}"
        )


def reindex_sources(store: MemoryStore, sources: Mapping[str, str]) -> dict[str, str]:
    """Index the task's `--source` folders in this store too (searches of the task reach them, and a
    store the task never ran on, as after a move to Weaviate, has none): name -> "indexed", or
    "missing" for a folder no longer there (its records stay as they were)."""

    present = {name: path for name, path in sources.items() if Path(path).is_dir()}
    ensure_sources(store, present)
    return {name: "indexed" if name in present else "missing" for name in sources}


def _sources_line(sources: Mapping[str, str]) -> str:
    if not sources:
        return "no sources"
    return ", ".join(f"source {name} {how}" for name, how in sources.items())


def verify_command(config: RunConfig, task_id: str, as_json: bool) -> None:
    """Check the task's hash chain; exit 1 if a line was changed, removed or reordered."""
    repo = Workspace(check_workspace(Path(config.workspace), write=False)).task(task_id)
    check = integrity(repo)
    if as_json:
        emit(check.model_dump(mode="json"))
    else:
        _print_integrity(check)
    if not check.ok:
        sys.exit(1)


class Integrity(BaseModel):
    """`cairn verify`'s answer. A torn or corrupt *last* line is what a crash while appending
    leaves (the next append cuts it): reported in `torn_tail`, not counted as tampering."""

    task_id: str
    ok: bool
    lines: int
    problems: list[str]
    torn_tail: str | None = None


def integrity(repo: TaskRepo) -> Integrity:
    problems = repo.history.tampering()
    lines = repo.history.verify().lines
    return Integrity(
        task_id=repo.task_id, ok=not problems, lines=lines, problems=problems, torn_tail=_torn_tail(repo)
    )


def _torn_tail(repo: TaskRepo) -> str | None:
    try:
        return repo.read().torn_tail
    except HistoryError:
        return None  # the damage is in the middle: the chain check names it


def _print_integrity(check: Integrity) -> None:
    out = Console(highlight=False)
    status = "[green]intact[/]" if check.ok else "[red]TAMPERED[/]"
    out.print(f"{check.task_id}: history {status} ({check.lines} lines)")
    for problem in check.problems:
        out.print(f"  [red]{safe(problem)}[/]")
    if check.torn_tail:
        out.print(f"  [yellow]{check.torn_tail} (a crash while appending; the next append cuts it)[/]")
