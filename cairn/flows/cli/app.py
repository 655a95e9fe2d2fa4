"""`cairn`: the command line. `--json` prints exactly one JSON object on stdout.

Commands raise errors; `main`, the console script, is the one place that turns them into a line
on stderr and an exit code (`cairn.core.errors`). Nothing below this module imports Typer.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

try:  # Typer 0.2x vendors click; earlier versions use click itself
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as click_errors  # type: ignore[no-redef]

from cairn.core import CairnError, ToolsConfig
from cairn.flows.cli.calibrate_command import calibrate_command
from cairn.flows.cli.commands import (
    demo_command,
    feedback_command,
    reindex_command,
    resume_command,
    rules_command,
    run_command,
    search_command,
    show_command,
    verify_command,
)
from cairn.flows.cli.files import files_command
from cairn.flows.cli.server_commands import (
    migrate_command,
    serve_command,
    server_command,
    ui_command,
    worker_command,
)
from cairn.flows.cli.tools_commands import call_command, list_command, tools_from_options
from cairn.flows.console import printable, save_traceback
from cairn.flows.runtime import protect_secrets
from cairn.flows.settings import Settings, cairn_home, tool_list
from cairn.redact import redact
from cairn.tasks.deps import close_all
from cairn.tasks.model.failures import one_line


class CairnGroup(TyperGroup):
    """The command group whose `invoke` is the CLI's one error handler: a known error (a
    `CairnError`) is one line on stderr and its exit code; anything else is one line plus the
    path of a file holding the traceback (exit 70). `main` makes a usage error one line too."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Not standalone: click's usage errors come back here instead of a multi-line box.
        try:
            code = super().main(*args, **{**kwargs, "standalone_mode": False})
        except click_errors.UsageError as exc:
            context = getattr(exc, "ctx", None)
            if type(exc).__name__ == "NoArgsIsHelpError":  # a group given no command: its help
                typer.echo(exc.format_message())
                sys.exit(exc.exit_code)
            where = f" (see `{context.command_path} --help`)" if context is not None else ""
            _die(f"{exc.format_message()}{where}", exc.exit_code, exit_now=True)
        except click_errors.ClickException as exc:
            _die(exc.format_message(), exc.exit_code, exit_now=True)
        except typer.Abort:
            _die("aborted", 1, exit_now=True)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:  # Typer's vendored click Context
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # Typer's own: help, usage errors, exit codes
        except CairnError as exc:
            _die(str(exc), exc.exit_code, label=exc.label)
        except KeyboardInterrupt:
            _die("interrupted", 130)
        except Exception as exc:
            _die(f"internal error: {one_line(exc)} (traceback in {save_traceback(exc)})", 70)


app = typer.Typer(
    cls=CairnGroup,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Durable long-horizon agent tasks on Prefect.",
)
WorkspaceOpt = Annotated[
    Path | None, typer.Option("--workspace", "-w", help="Where Cairn keeps tasks (CAIRN_WORKSPACE)")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object")]
MaxUsdOpt = Annotated[
    float | None, typer.Option("--max-usd", help="Budget for the task's model calls (CAIRN_MAX_USD)")
]
MaxTokensOpt = Annotated[
    int | None,
    typer.Option("--max-tokens", help="Token budget for the task's model calls (CAIRN_MAX_TOKENS)"),
]
ToolsFileOpt = Annotated[
    Path | None, typer.Option("--tools", help="Tool configuration file (default: the workspace's cairn.toml)")
]
McpOpt = Annotated[
    list[str] | None, typer.Option("--mcp", help="An MCP server: NAME=COMMAND [ARGS] (repeatable)")
]
AllowOpt = Annotated[
    str | None, typer.Option("--allow-tools", help="Only these tools, comma list of names or globs (git.*)")
]
UncertainOpt = Annotated[
    str | None,
    typer.Option("--on-uncertain", help="ask | skip | rerun: an interrupted call with side effects"),
]


def settings(workspace: Path | None) -> Settings:
    """The settings, read once; every command comes here first, so this is where the process
    learns its secrets (and starts redacting its logs) before anything is written."""

    protect_secrets()
    base = Settings()  # a CAIRN_ variable pydantic refuses is a `UsageError` naming it
    return base.model_copy(update={"workspace": str(workspace)}) if workspace else base


@app.command()
def run(
    goal: Annotated[str, typer.Argument(help="What the agent should achieve")],
    source: Annotated[
        list[Path] | None, typer.Option("--source", "-s", help="Read-only material (repeatable)")
    ] = None,
    workspace: WorkspaceOpt = None,
    task_id: Annotated[str | None, typer.Option("--task-id")] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Any litellm model, replay:PATH, or cairn/offline")
    ] = None,
    max_iterations: Annotated[int | None, typer.Option("--max-iterations")] = None,
    task_type: Annotated[str | None, typer.Option("--task-type")] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Write every model response to a cassette")
    ] = None,
    compress: Annotated[str | None, typer.Option("--compress", help="each | batch (CAIRN_COMPRESS)")] = None,
    skip_compress: Annotated[
        str | None, typer.Option("--skip-compress", help="Tools compressed without a model, comma list")
    ] = None,
    related: Annotated[
        list[str] | None,
        typer.Option("--related", help="An earlier task whose memories to search (repeatable)"),
    ] = None,
    review: Annotated[
        str | None,
        typer.Option(
            "--review", help="never | stuck | every: when the run waits for your review (CAIRN_REVIEW)"
        ),
    ] = None,
    max_usd: MaxUsdOpt = None,
    max_tokens: MaxTokensOpt = None,
    tools_file: ToolsFileOpt = None,
    mcp: McpOpt = None,
    allow_tools: AllowOpt = None,
    on_uncertain: UncertainOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run a task until its validator says it is complete or the loop policy stops it."""

    conf = settings(workspace).run_config(
        model=model,
        max_iterations=max_iterations,
        record=str(record.resolve()) if record else None,
        compress=compress,
        skip_compress=tool_list(skip_compress),
        review=review,
        max_usd=max_usd,
        max_tokens=max_tokens,
        on_uncertain=on_uncertain,
    )
    tools = tools_from_options(conf, tools_file, mcp or [], allow_tools)
    run_command(conf, goal, source or [], task_id, task_type, as_json, related or [], tools)


@app.command()
def demo(
    workspace: WorkspaceOpt = None,
    model: Annotated[str | None, typer.Option("--model", help="Any litellm model")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the demo task: the Alder Creek question over the corpus shipped with Cairn (works offline)."""

    demo_command(settings(workspace).run_config(model=model), as_json)


AcceptTamperedOpt = Annotated[
    bool,
    typer.Option("--accept-tampered", help="Go on although an earlier line of the history was changed"),
]


@app.command()
def resume(
    task_id: str,
    workspace: WorkspaceOpt = None,
    max_usd: MaxUsdOpt = None,
    max_tokens: MaxTokensOpt = None,
    accept_tampered: AcceptTamperedOpt = False,
    on_uncertain: UncertainOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Continue a stopped, failed or killed task from its first unfinished call (with a new budget)."""

    conf = settings(workspace).run_config(
        max_usd=max_usd,
        max_tokens=max_tokens,
        accept_tampered=accept_tampered,
        on_uncertain=on_uncertain,
    )
    resume_command(conf, task_id, as_json)


@app.command()
def show(task_id: str, workspace: WorkspaceOpt = None, as_json: JsonOpt = False) -> None:
    """Iterations, calls with their insights, evidence and the verdict of a task."""

    show_command(settings(workspace).run_config(), task_id, as_json)


@app.command()
def search(
    query: str,
    task: Annotated[
        str | None, typer.Option("--task", help="Only this task's memories (and shared ones)")
    ] = None,
    mode: Annotated[str, typer.Option("--mode", help="hybrid | vector | keyword")] = "hybrid",
    k: Annotated[int, typer.Option("-k")] = 10,
    kind: Annotated[str | None, typer.Option("--kind", help="evidence, document_chunk, fact, ...")] = None,
    subtype: Annotated[
        str | None, typer.Option("--type", help="evidence type, or file | function | class | code | section")
    ] = None,
    min_confidence: Annotated[float | None, typer.Option("--min-confidence")] = None,
    source: Annotated[str | None, typer.Option("--source", help="call/validation id or prefix")] = None,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search the memory index: a task's own, related, source and shared memories, or everything."""

    search_command(
        settings(workspace).run_config(),
        query,
        task,
        mode,
        k,
        as_json,
        kind=kind,
        subtype=subtype,
        min_confidence=min_confidence,
        source=source,
    )


@app.command()
def files(
    task_id: str,
    file_type: Annotated[
        str | None, typer.Option("--type", help="code | documentation | data | config")
    ] = None,
    language: Annotated[str | None, typer.Option("--language")] = None,
    name: Annotated[str | None, typer.Option("--name", help="glob on the path or file name")] = None,
    content: Annotated[str | None, typer.Option("--content", help="words the file contains")] = None,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A task's file registry, with each Python file's functions and classes."""

    files_command(settings(workspace).run_config(), task_id, file_type, language, name, content, as_json)


@app.command()
def reindex(
    task_id: str,
    workspace: WorkspaceOpt = None,
    accept_tampered: AcceptTamperedOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Rebuild a task's memory index from its history.jsonl."""

    reindex_command(settings(workspace).run_config(accept_tampered=accept_tampered), task_id, as_json)


@app.command()
def feedback(
    task_id: str,
    message: Annotated[str, typer.Argument(help="What the agent should know or do differently")],
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Tell a task something while it runs: its next iteration takes it in, and any rule it states
    joins every prompt from then on."""

    feedback_command(settings(workspace).run_config(), task_id, message, as_json)


@app.command()
def rules(
    retire: Annotated[str | None, typer.Option("--retire", help="Retire the rule with this key")] = None,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the workspace's rules (constraints from user messages, shared by its tasks), or retire one."""

    rules_command(settings(workspace).run_config(), retire, as_json)


@app.command()
def verify(task_id: str, workspace: WorkspaceOpt = None, as_json: JsonOpt = False) -> None:
    """Check a task's history.jsonl: every line parses and chains to the one before it.
    Exit code 0 if intact, 1 if a line was changed, removed or reordered."""

    verify_command(settings(workspace).run_config(), task_id, as_json)


@app.command()
def calibrate(
    model: Annotated[
        str | None, typer.Option("--model", help="Any litellm model, replay:PATH, or cairn/offline")
    ] = None,
    questions: Annotated[
        Path | None, typer.Option("--questions", help="Labelled items, JSONL (default: the shipped set)")
    ] = None,
    png: Annotated[
        Path | None, typer.Option("--png", help="Where to draw the precision-recall curve (PNG)")
    ] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Write every model response to a cassette")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Measure how far a model's yes/no on a quoted line can be trusted, and store its thresholds
    under CAIRN_HOME/calibration/."""

    conf = settings(None).run_config(model=model, record=str(record.resolve()) if record else None)
    calibrate_command(conf, questions, png, cairn_home(), as_json)


server_app = typer.Typer(no_args_is_help=True, help="A local Prefect server for UI and schedules.")
app.add_typer(server_app, name="server")


@server_app.command("start")
def server_start(
    port: Annotated[int, typer.Option("--port")] = 4200,
    host: Annotated[str, typer.Option("--host")] = "127.0.0.1",
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            "--postgres",
            envvar="CAIRN_PREFECT_DATABASE_URL",
            help="PostgreSQL URL (postgresql+asyncpg://...)",
        ),
    ] = None,
    no_worker: Annotated[
        bool, typer.Option("--no-worker", help="Start no worker (Retry and review forms then wait)")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Start the server in the background (SQLite under ~/.cairn unless --database-url) and a worker
    for Cairn's work pool, so Retry in the UI continues a task; print the UI URL."""

    server_command(
        "start", port=port, host=host, database_url=database_url, as_json=as_json, worker=not no_worker
    )


@server_app.command("stop")
def server_stop(as_json: JsonOpt = False) -> None:
    """Stop the server `cairn server start` started, and its worker."""

    server_command("stop", as_json=as_json)


@server_app.command("status")
def server_status(as_json: JsonOpt = False) -> None:
    """Whether the server runs, where, and its UI URL."""

    server_command("status", as_json=as_json)


tools_app = typer.Typer(no_args_is_help=True, help="The tools a task can use: built-ins, Python, MCP.")
app.add_typer(tools_app, name="tools")


@tools_app.command("list")
def tools_list(
    tools_file: ToolsFileOpt = None,
    mcp: McpOpt = None,
    allow_tools: AllowOpt = None,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The tools a task would have, with their parameters and whether they have side effects."""

    config = settings(workspace).run_config()
    list_command(tools_from_options(config, tools_file, mcp or [], allow_tools) or ToolsConfig(), as_json)


@tools_app.command("call")
def tools_call(
    name: Annotated[str, typer.Argument(help="The tool, e.g. read_file or time.get_current_time")],
    arguments: Annotated[str, typer.Argument(help="Its arguments as a JSON object")] = "{}",
    tools_file: ToolsFileOpt = None,
    mcp: McpOpt = None,
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Call one tool outside any task (file tools act on the current directory)."""

    config = settings(workspace).run_config()
    tools = tools_from_options(config, tools_file, mcp or [], None) or ToolsConfig()
    call_command(config, tools, name, arguments, as_json)


worker_app = typer.Typer(no_args_is_help=True, help="A process worker that runs deployments on this machine.")
app.add_typer(worker_app, name="worker")
PoolOpt = Annotated[str, typer.Option("--pool", help="Work pool name (created as a process pool if missing)")]


@worker_app.command("start")
def worker_start(
    pool: PoolOpt = "cairn-local",
    limit: Annotated[int | None, typer.Option("--limit", help="At most this many runs at once")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Start `prefect worker start --pool NAME --type process` in the background; print its pid."""

    worker_command("start", pool=pool, limit=limit, as_json=as_json)


@worker_app.command("stop")
def worker_stop(pool: PoolOpt = "cairn-local", as_json: JsonOpt = False) -> None:
    """Stop the worker `cairn worker start` started for the pool (and the runs it is executing)."""

    worker_command("stop", pool=pool, as_json=as_json)


@app.command()
def serve(
    goal: Annotated[str, typer.Argument(help="What each scheduled run should achieve")],
    source: Annotated[list[Path] | None, typer.Option("--source", "-s", help="Read-only material")] = None,
    cron: Annotated[str | None, typer.Option("--cron", help="A cron schedule, e.g. '0 6 * * *'")] = None,
    interval: Annotated[float | None, typer.Option("--interval", help="Seconds between runs")] = None,
    name: Annotated[str | None, typer.Option("--name", help="Deployment name")] = None,
    model: Annotated[str | None, typer.Option("--model")] = None,
    max_iterations: Annotated[int | None, typer.Option("--max-iterations")] = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """Run GOAL as a new task on a schedule, from this machine, until stopped (needs `cairn server start`)."""

    sources = [str(path.resolve()) for path in source or []]
    config = settings(workspace).run_config()
    serve_command(config, goal, sources, cron, interval, name, model, max_iterations)


@app.command()
def ui(
    task_id: str,
    open_browser: Annotated[bool, typer.Option("--open", help="Open it in a browser")] = False,
    workspace: WorkspaceOpt = None,
) -> None:
    """Print the Prefect UI page of a task's latest flow run."""

    ui_command(settings(workspace).run_config(), task_id, open_browser)


@app.command()
def migrate(workspace: WorkspaceOpt = None, as_json: JsonOpt = False) -> None:
    """Once after upgrading from 0.3 or earlier: rewrite the workspace's pickled results as data and
    point the server's deployments of Cairn's flows at today's module names."""

    migrate_command(settings(workspace).run_config(), as_json)


def main() -> None:
    """The console script (`cairn`)."""

    try:
        app()
    finally:
        close_all()


def _die(message: str, code: int, exit_now: bool = False, label: str = "error") -> NoReturn:
    first = " ".join(message.split()) or "failed"
    head = f"cairn: {label}: " if label else "cairn: "
    typer.echo(f"{head}{printable(redact(first))}", err=True)
    if exit_now:
        sys.exit(code)
    raise typer.Exit(code)
