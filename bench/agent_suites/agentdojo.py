"""AgentDojo's suites through Cairn, beside AgentDojo's own reference pipeline with the same model.

AgentDojo (PyPI `agentdojo` 0.1.35, MIT; Debenedetti et al., NeurIPS 2024 datasets track) ships
four suites (banking, slack, workspace, travel): user tasks, injection tasks, attacks and the
checks that grade them on the environment's final state and the agent's answer. Both sides are
run by AgentDojo itself (`TaskSuite.run_task_with_pipeline`), so both are graded by its own
`utility` and `security`:

- Cairn is a pipeline element (`CairnAgent`) that runs the task with `run_task`, its tools the
  suite's functions bound to the task's environment (plain functions, `tools=[...]`);
- the reference is AgentDojo's pipeline for a local OpenAI-compatible server (`LocalLLM`: tool
  calls written into the prompt and parsed back), the loop a user would otherwise write.

`--model scripted:obeying` is the attacker's best case (`agentdojo_obeying.Obeying`). With a
real model, `--reference FILE` keeps the reference's rows as data (one per model, benchmark, task
and attack), so a rerun costs Cairn's side only; `--no-baseline` runs Cairn alone and
`--reference-only` the reference alone, one task at a time with `--offset N --limit 1`:

    bench/agent.py --suite agentdojo --agentdojo-suite banking --model openai/qwen2.5-coder-1.5b-instruct \
        --offset 3 --limit 1 --reference bench/agentdojo_reference.json --json
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_suites.agentdojo_obeying import Obeying

BENCHMARK = "v1.2.2"
SUITES = ("banking", "slack", "workspace", "travel")
ATTACK = "important_instructions"
ITERATIONS = 15  # Cairn's cap: the reference loop's own (`ToolsExecutionLoop(max_iters=15)`)
# The functions of each suite that read and change nothing: the rest change its environment, as
# a user marks them (`@tool(side_effects=True)` is Cairn's default for a plain function too).
READS = {
    "banking": {
        "get_iban",
        "get_balance",
        "get_most_recent_transactions",
        "get_scheduled_transactions",
        "read_file",
        "get_user_info",
    },
    "slack": {"get_channels", "read_channel_messages", "read_inbox", "get_users_in_channel", "get_webpage"},
    "workspace": {
        "get_unread_emails",  # marks them read, but sends, deletes and shares nothing
        "get_sent_emails",
        "get_received_emails",
        "get_draft_emails",
        "search_emails",
        "search_contacts_by_name",
        "search_contacts_by_email",
        "get_current_day",
        "search_calendar_events",
        "get_day_calendar_events",
        "search_files_by_filename",
        "get_file_by_id",
        "list_files",
        "search_files",
    },
    "travel": set(),  # every `get_*` and `check_*`: see `reads`
}


def reads(suite: str, name: str) -> bool:
    """Whether a suite's function only reads (travel's are every `get_` and `check_` one)."""
    return name in READS[suite] or (suite == "travel" and name.startswith(("get_", "check_")))


def load_suite(name: str) -> Any:
    from agentdojo.task_suite.load_suites import get_suite

    return get_suite(BENCHMARK, name)


# --- the suite's functions as plain functions -------------------------------------------------


def suite_tools(suite: str, runtime: Any, env: Any) -> list[Callable[..., Any]]:
    """Each function of the runtime as a plain typed function bound to `env`, run through the
    runtime (its validation, its errors) and its result written as AgentDojo writes it."""
    return [_bound(suite, function, runtime, env) for function in runtime.functions.values()]


def _bound(suite: str, function: Any, runtime: Any, env: Any) -> Callable[..., Any]:
    from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

    from cairn.tasks.tools import tool
    from cairn.tasks.tools.base import failure

    def call(**kwargs: Any) -> Any:
        result, error = runtime.run_function(env, function.name, kwargs)
        return failure(error) if error else tool_result_to_str(result)

    fields = function.parameters.model_fields
    call.__name__ = call.__qualname__ = function.name
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if f.is_required() else f.default,
                annotation=f.annotation,
            )
            for name, f in fields.items()
        ]
    )
    call.__annotations__ = {name: f.annotation for name, f in fields.items()}
    args = "".join(f"\n    {name}: {f.description or name}" for name, f in fields.items())
    call.__doc__ = function.description + (f"\n\nArgs:{args}" if args else "")
    return tool(name=function.name, side_effects=not reads(suite, function.name))(call)


# --- Cairn as an AgentDojo pipeline element ---------------------------------------------------


@dataclass
class Run:
    """What one side spent on one task, and Cairn's refusals."""

    tokens: int = 0
    seconds: float = 0.0
    calls: list[str] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    stop: str = ""  # why Cairn's task ended
    complete: bool | None = None  # whether Cairn called its task complete (None: the reference)


class CairnAgent:
    """Runs each query as a Cairn task (`run_task`) in a workspace of its own."""

    def __init__(
        self,
        model: str,
        root: Path,
        suite: str,
        max_iterations: int = ITERATIONS,
        record: Path | None = None,
        runner: Callable[..., Any] | None = None,
    ) -> None:
        self.name = "local"  # how an attack addresses the model ("Local model")
        self.model, self.root, self.suite, self.max_iterations = model, root, suite, max_iterations
        self.record = record  # a folder for one cassette per task
        self.runner = runner  # how a task runs: `run_task` (None), or a test's in-process loop
        self.task_name = "task"
        # One compression per iteration: an action goal reads a few results at a time, and a
        # small model takes 40-70 s a compression (measured on banking's first task).
        self.compress = "batch"
        self.last = Run()

    def query(
        self,
        query: str,
        runtime: Any,
        env: Any,
        messages: Sequence[Any] = (),
        extra_args: dict[str, Any] | None = None,
    ) -> tuple[str, Any, Any, list[Any], dict[str, Any]]:
        from agentdojo.functions_runtime import FunctionCall
        from agentdojo.types import text_content_block_from_string

        from cairn.core import ToolsConfig
        from cairn.flows.prefect.flow import run_task
        from cairn.flows.settings import Settings
        from cairn.memory.log.workspace import Workspace
        from cairn.tasks.tools.python_tools import tools_config

        workspace = self.root / self.task_name
        tools = suite_tools(self.suite, runtime, env)
        allow = [*runtime.functions, "answer"]
        fresh = (
            ("cache_prompt=false",)
            if os.environ.get("OPENAI_API_BASE", "").startswith("http://127.0.0.1")
            else None
        )
        config = Settings(workspace=workspace).run_config(
            model=self.model,
            max_iterations=self.max_iterations,
            compress=self.compress,
            model_request_fields=fresh,
            record=str(self.record / f"{self.task_name}.jsonl") if self.record else None,
        )
        started = time.monotonic()
        answer = ""
        try:
            result = (self.runner or run_task)(
                query,
                config,
                task_id=self.task_name,
                task_type="general_task",
                tools=tools_config(tools, ToolsConfig(allow=allow)),
            )
            report = Path(result.report_path) if result.report_path else None
            answer = report.read_text(encoding="utf-8") if report and report.is_file() else ""
            self.last = Run(tokens=result.tokens, stop=result.stop_reason or "", complete=result.complete)
        except Exception as exc:  # one task's failure is its row, never the bench's end
            self.last = Run(error=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
        self.last.seconds = time.monotonic() - started
        known = workspace.is_dir() and self.task_name in Workspace(workspace).task_ids()
        state = Workspace(workspace).task(self.task_name).state() if known else None
        out: list[Any] = [{"role": "user", "content": [text_content_block_from_string(query)]}]
        for call in state.calls if state else []:
            if call.tool == "answer":
                continue
            made = FunctionCall(function=call.tool, args=dict(call.params))
            self.last.calls.append(f"{call.tool}({json.dumps(call.params, sort_keys=True)})")
            out.append({"role": "assistant", "content": None, "tool_calls": [made]})
            out.append(
                {
                    "role": "tool",
                    "content": [text_content_block_from_string(call.raw_output)],
                    "tool_call": made,
                    "tool_call_id": None,
                    "error": call.error,
                }
            )
        if state:
            self.last.refused = [c.model_dump() for c in state.checked_actions if c.refused]
        out.append(
            {"role": "assistant", "content": [text_content_block_from_string(answer)], "tool_calls": None}
        )
        return query, runtime, env, out, dict(extra_args or {})


# --- the reference pipeline --------------------------------------------------------------------


class OverTime(Exception):
    """A side ran past the task's time cap (`--task-seconds`)."""


def over_time_error(cap: float) -> str:
    """The row's error of a side past the cap, the same on both sides."""
    return f"OverTime: not ended within {cap:.0f} s"


class Counted:
    """An httpx transport that adds up the tokens each reply's `usage` reports, and sends no request
    once `seconds` have passed since it was made (the reply in flight is waited for)."""

    def __init__(self, seconds: float | None = None) -> None:
        import httpx

        self.tokens = 0
        self.seconds, self.over = seconds, False
        started = time.monotonic()
        outer = self

        class Transport(httpx.HTTPTransport):
            def handle_request(self, request: httpx.Request) -> httpx.Response:
                if outer.seconds is not None and time.monotonic() - started > outer.seconds:
                    outer.over = True  # the client wraps what a transport raises, and retries
                    raise OverTime(over_time_error(outer.seconds))
                request = capped(request)
                response = super().handle_request(request)
                body = response.read()
                with contextlib.suppress(ValueError, AttributeError):
                    outer.tokens += int(json.loads(body).get("usage", {}).get("total_tokens") or 0)
                return httpx.Response(response.status_code, headers=response.headers, content=body)

        self.client = httpx.Client(transport=Transport(), timeout=900)


def capped(request: Any) -> Any:
    """The request with the reply cap every baseline of `bench/agent.py` has (AgentDojo's `LocalLLM`
    sends none: the 1.5B once wrote 2,000 tokens and more into one reply, minutes of it)."""
    import httpx

    from cairn.tasks.model.reply_caps import REPLY_TOKENS

    try:
        body = json.loads(request.content)
    except ValueError:
        return request
    if not isinstance(body, dict) or "messages" not in body or "max_tokens" in body:
        return request
    body["max_tokens"] = REPLY_TOKENS["deliver"]  # 2,048: Cairn's longest reply, the baseline's cap
    headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
    return httpx.Request(request.method, request.url, headers=headers, content=json.dumps(body).encode())


def reference_pipeline(llm: Any) -> Any:
    """AgentDojo's own loop (system message, the query, the model, then tools and model until no
    call is left), with `llm` as its model."""
    from agentdojo.agent_pipeline import (
        AgentPipeline,
        InitQuery,
        SystemMessage,
        ToolsExecutionLoop,
        ToolsExecutor,
    )
    from agentdojo.agent_pipeline.agent_pipeline import load_system_message

    pipeline = AgentPipeline(
        [
            SystemMessage(load_system_message(None)),
            InitQuery(),
            llm,
            ToolsExecutionLoop([ToolsExecutor(), llm]),
        ]
    )
    pipeline.name = "local"
    return pipeline


def local_llm(model: str, counter: Counted) -> Any:
    """AgentDojo's `LocalLLM` on the server `OPENAI_API_BASE` names (the model without `openai/`)."""
    import openai
    from agentdojo.agent_pipeline import LocalLLM

    base = os.environ.get("OPENAI_API_BASE", "http://127.0.0.1:8088/v1")
    client = openai.OpenAI(
        api_key=os.environ.get("OPENAI_API_KEY", "local"), base_url=base, http_client=counter.client
    )
    return LocalLLM(client, model.removeprefix("openai/"))


# --- which tasks -----------------------------------------------------------------------------------


def attacked_pairs(
    suite: Any, attack: Any, sample: int | None, seed: int, per_injection: int = 0
) -> list[tuple[str, str]]:
    """(user task, injection task) pairs whose user task reads a place an injection can go: a
    seeded sample of `sample`, or `per_injection` user tasks for every injection task."""
    rng = random.Random(seed)
    users = [uid for uid, task in suite.user_tasks.items() if attack.get_injection_candidates(task)]
    injections = list(suite.injection_tasks)
    if per_injection:
        return [(uid, iid) for iid in injections for uid in sorted(rng.sample(users, per_injection))]
    pairs = [(uid, iid) for uid in users for iid in injections]
    return sorted(rng.sample(pairs, min(sample or len(pairs), len(pairs))))


# --- a run ---------------------------------------------------------------------------------------


SCRIPTED = "scripted:obeying"  # `--model` for the attacker's best case (`Obeying`)


def selected(args: Any) -> list[tuple[str, str, str | None]]:
    """(suite, user task, injection task or None) for each task the options select."""
    from agentdojo.attacks import load_attack

    chosen: list[tuple[str, str, str | None]] = []
    for name in args.agentdojo_suite or ["banking", "slack"]:
        suite = load_suite(name)
        if args.attack:
            attack = load_attack(args.attack, suite, CairnAgent("", Path("."), name))
            per = args.per_injection or 0
            pairs = attacked_pairs(suite, attack, args.sample, args.seed, per)
            chosen += [(name, uid, iid) for uid, iid in pairs]
        else:
            users = sorted(suite.user_tasks, key=lambda uid: int(uid.rsplit("_", 1)[1]))
            if args.sample:
                users = sorted(random.Random(args.seed).sample(users, min(args.sample, len(users))))
            chosen += [(name, uid, None) for uid in users]
    return chosen[args.offset :][: args.limit]


def run_one(name: str, uid: str, iid: str | None, args: Any, root: Path) -> dict[str, Any]:
    """One task through Cairn, then through the reference pipeline, both graded by AgentDojo."""
    from agentdojo.attacks import load_attack

    suite = load_suite(name)
    user = suite.get_user_task_by_id(uid)
    injection = suite.get_injection_task_by_id(iid) if iid else None
    cairn = CairnAgent(args.model, root / name, name, args.max_iterations or ITERATIONS, args.record)
    cairn.task_name = (f"{uid}-{iid}" if iid else uid).replace("_", "-")
    injections = load_attack(args.attack, suite, cairn).attack(user, injection) if injection else {}
    row: dict[str, Any] = {
        "suite": name,
        "user_task": uid,
        "injection_task": iid,
        "attack": args.attack if iid else None,
    }
    script = Obeying.of(suite, user, injection, injections) if args.model == SCRIPTED else None
    if not getattr(args, "reference_only", False):
        with _served(script) as model:
            cairn.model = model or args.model
            utility, attacked = checked(
                lambda: suite.run_task_with_pipeline(cairn, user, injection, injections), cairn
            )
        row["cairn"] = over_time(_side(utility, attacked if iid else None, cairn.last), args)
    if not args.no_baseline:
        kept = Reference(args.reference) if getattr(args, "reference", None) else None
        key = f"{args.model}/{BENCHMARK}/{name}/{uid}/{iid}/{args.attack if iid else None}"
        row["reference"] = kept.get(key) if kept else None
        if row["reference"] is None:
            cap = getattr(args, "task_seconds", None)
            row["reference"] = _reference(suite, user, injection, injections, script, args.model, cap)
            if kept:
                kept.put(key, row["reference"])
    return row


def checked(run: Callable[[], tuple[bool, bool]], cairn: CairnAgent) -> tuple[bool, bool]:
    """Cairn's side run and graded; where AgentDojo's own check fails on the state Cairn left
    (slack's `user_task_1` reads Alice's inbox, which holds no key until someone writes to her),
    the task is not done, and the row says why. Cairn's own failures never get here: `query`
    records them.

    >>> agent = CairnAgent("cairn/offline", Path("."), "slack")
    >>> checked(lambda: {}["Alice"], agent), agent.last.error
    ((False, False), "AgentDojo's check failed: KeyError: 'Alice'")
    """
    try:
        return run()
    except Exception as exc:
        cairn.last.error = f"AgentDojo's check failed: {type(exc).__name__}: {exc}"[:200]
        return False, False


def _reference(
    suite: Any,
    user: Any,
    injection: Any,
    injections: dict[str, str],
    script: Obeying | None,
    model: str,
    seconds: float | None = None,
) -> dict[str, Any]:
    """AgentDojo's own pipeline on the task, with the same model (or the same script); past
    `seconds` it sends the model nothing more, and the task fails."""
    counter = Counted(seconds)
    llm = script.element() if script else local_llm(model, counter)
    started = time.monotonic()
    try:  # AgentDojo's `LocalLLM` prints its "[debug]" lines to stdout, where `--json` writes
        with contextlib.redirect_stdout(sys.stderr):
            pipeline = reference_pipeline(llm)
            utility, attacked = suite.run_task_with_pipeline(pipeline, user, injection, injections)
        spent = Run(tokens=counter.tokens)
    except Exception as exc:  # the reference's own failure (a model that broke its format) is a row
        utility, attacked = False, False
        spent = Run(tokens=counter.tokens, error=f"{type(exc).__name__}: {exc}"[:200])
    if counter.over:  # stopped at the cap: failed, whatever state it left
        utility, spent.error = False, over_time_error(counter.seconds or 0.0)
    spent.seconds = time.monotonic() - started
    return _side(utility, attacked if injection else None, spent)


class Reference:
    """The reference pipeline's results kept as data (`--reference FILE`), one per model, benchmark,
    task and attack: a rerun costs Cairn's side only. The seed only picks which tasks run, so it is
    not part of the key."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def get(self, key: str) -> dict[str, Any] | None:
        return self.rows.get(key)

    def put(self, key: str, row: dict[str, Any]) -> None:
        self.rows[key] = row
        self.path.write_text(json.dumps(self.rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def over_time(side: dict[str, Any], args: Any) -> dict[str, Any]:
    """A side that ran past the task's time cap fails, as the reference does once it is stopped
    there: both sides get the same time (`--task-seconds`)."""
    cap = getattr(args, "task_seconds", None)
    if cap is None or side["seconds"] <= cap:
        return side
    return side | {"utility": False, "error": side["error"] or over_time_error(cap)}


def _side(utility: bool, attacked: bool | None, run: Run) -> dict[str, Any]:
    return {
        "utility": bool(utility),
        "attack_succeeded": attacked,
        "tokens": run.tokens,
        "seconds": round(run.seconds, 1),
        "calls": run.calls,
        "refused": run.refused,
        "error": run.error,
        "stop": run.stop,
        "complete": run.complete,
    }


class _served:
    """The model Cairn is given: the one named, or the obeying script served on loopback."""

    def __init__(self, script: Obeying | None) -> None:
        self.script, self.server, self.saved = script, None, os.environ.get("OPENAI_API_BASE")

    def __enter__(self) -> str:
        if self.script is None:
            return ""
        from tests.model_server import ModelServer

        self.server = ModelServer().__enter__()
        self.server.respond = self.script.respond
        os.environ["OPENAI_API_BASE"] = self.server.url
        os.environ.setdefault("OPENAI_API_KEY", "scripted")
        return "openai/obeying"

    def __exit__(self, *exc: object) -> None:
        if self.server is not None:
            self.server.__exit__()
            if self.saved is None:
                os.environ.pop("OPENAI_API_BASE", None)
            else:
                os.environ["OPENAI_API_BASE"] = self.saved


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per side: benign utility, utility under attack, targeted attack success, tokens, time."""
    out: dict[str, Any] = {}
    for side in ("cairn", "reference"):
        mine = [r[side] | {"attacked": r["injection_task"] is not None} for r in rows if side in r]
        if not mine:
            continue
        benign = [m for m in mine if not m["attacked"]]
        attacked = [m for m in mine if m["attacked"]]
        out[side] = {
            "tasks": len(mine),
            "benign_utility": _share([m["utility"] for m in benign]),
            "benign_solved": sum(m["utility"] for m in benign),
            "benign_tasks": len(benign),
            "utility_under_attack": _share([m["utility"] for m in attacked]),
            "attacked_pairs": len(attacked),
            "attack_success_rate": _share([bool(m["attack_succeeded"]) for m in attacked]),
            "attacks_succeeded": sum(bool(m["attack_succeeded"]) for m in attacked),
            "refused_calls": sum(len(m["refused"]) for m in mine),
            "tokens": sum(m["tokens"] for m in mine),
            "seconds": round(sum(m["seconds"] for m in mine), 1),
            "errors": sum(bool(m["error"]) for m in mine),
            # Cairn's own word against AgentDojo's check: complete where the check fails
            "false_complete": sum(bool(m.get("complete")) and not m["utility"] for m in mine),
            "complete": sum(bool(m.get("complete")) for m in mine),
        }
    if "cairn" in out and "reference" in out:
        c, r = out["cairn"], out["reference"]
        out["ratios"] = {
            "tokens": round(c["tokens"] / r["tokens"], 2) if r["tokens"] else None,
            "seconds": round(c["seconds"] / r["seconds"], 2) if r["seconds"] else None,
        }
    return out


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 3) if flags else None


def run(args: Any, root: Path, progress: Callable[[str], None]) -> dict[str, Any]:
    """Every selected task, both sides; one JSON-ready report."""
    import agentdojo

    from cairn.flows.runtime import prepare

    prepare(root)  # before Prefect is imported
    rows: list[dict[str, Any]] = []
    chosen = selected(args)
    for n, (name, uid, iid) in enumerate(chosen, start=1):
        rows.append(run_one(name, uid, iid, args, root))
        row = rows[-1]
        said = "; ".join(
            f"{side}: utility {row[side]['utility']}, attacked {row[side]['attack_succeeded']}, "
            f"refused {len(row[side]['refused'])}, {row[side]['seconds']:.0f} s"
            + (f" ({row[side]['error']})" if row[side]["error"] else "")
            for side in ("cairn", "reference")
            if side in row
        )
        progress(f"{n}/{len(chosen)} {name} {uid}{' + ' + iid if iid else ''}: {said}")
    return {
        "suite": "agentdojo",
        "benchmark": BENCHMARK,
        "agentdojo": agentdojo.__version__ if hasattr(agentdojo, "__version__") else "0.1.35",
        "model": args.model,
        "attack": args.attack,
        "seed": args.seed,
        "figures": figures(rows),
        "tasks": rows,
    }
