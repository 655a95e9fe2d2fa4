"""Context size and assembly latency over a scripted 50-iteration run.

The run goes through `cairn.flows.loop.iteration.run_iteration` itself (compression in batch mode) with a
scripted planner and realistic tool outputs:
this repository's source files, pytest logs whose checks fail and are fixed, and search results.
Compression and synthesis are answered by the offline provider's logic.

Figures:
- `context_to_raw_tokens`: tokens of the CONTEXT block assembled for iteration 51, over the tokens
  of every raw tool output of the 50 iterations (litellm's tokenizer, gpt-4o). Target <= 0.25.
- `assembly_p50_ms` / `assembly_p95_ms`: `Session.context()` with 10,000 memories in the store,
  each sample with a different last user message (so a different search). Target p95 <= 50 ms.

    python bench/context.py [--iterations 50] [--memories 10000] [--samples 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import litellm  # noqa: E402
from litellm.llms.custom_llm import CustomLLM  # noqa: E402
from litellm.types.utils import ModelResponse  # noqa: E402

from cairn.core import (  # noqa: E402
    CheckOutcome,
    Memory,
    PlannedCall,
    RunConfig,
    UserMessage,
)
from cairn.flows.loop.iteration import run_iteration  # noqa: E402
from cairn.flows.loop.request import TaskRequest  # noqa: E402
from cairn.flows.loop.start import start_task  # noqa: E402
from cairn.flows.steps.executor import InProcessExecutor, ToolResult, ToolRun  # noqa: E402
from cairn.flows.steps.session import Session  # noqa: E402
from cairn.memory.context.reasoning import context_budget  # noqa: E402
from cairn.tasks.compress import line_counter  # noqa: E402
from cairn.tasks.messages.prompts import parse_request  # noqa: E402
from cairn.tasks.messages.schemas import Candidate, Plan, PlanInput  # noqa: E402
from cairn.tasks.model.capabilities import context_window  # noqa: E402
from cairn.tasks.model.llm import ModelClient  # noqa: E402
from cairn.tasks.offline import respond  # noqa: E402
from cairn.tasks.tools.base import ToolContext, ToolOutput  # noqa: E402

TASK = "pay-fix"
GOAL = "Fix the refund computation so the payment tests pass. Never use requirements.txt; use pyproject.toml."
SOURCES = sorted(
    p
    for d in ("memory", "tasks", "flows")
    for p in (ROOT / "cairn" / d).rglob("*.py")
    if p.stat().st_size > 2000
)
TESTS = [
    f"tests/test_pay.py::test_{name}" for name in ("refund", "currency", "fees", "rounding", "partial", "ok")
]


class Scripted(CustomLLM):
    """Plans from a script; answers every other call kind like `cairn/offline`."""

    def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> ModelResponse:
        _, payload = parse_request(messages)
        content = (
            Plan(candidates=plan(payload)).model_dump_json()
            if isinstance(payload, PlanInput)
            else respond(messages)
        )
        return ModelResponse(
            model=model,
            choices=[{"index": 0, "message": {"role": "assistant", "content": content}}],
            usage={"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        )


def plan(payload: PlanInput) -> list[Candidate]:
    """Read a file and search memory every iteration; fix the code (odd iterations) and run the
    tests on it (even ones). Calls a real planner could make: the tools' own parameters, nothing
    repeated (a re-run of the tests follows a write), so the planner's screen keeps them all."""
    n = payload.iteration
    step = (
        Candidate(tool="write_file", params={"path": "src/pay.py", "content": fix(n)})
        if n % 2
        else Candidate(tool="run_tests", params={"target": "tests"})
    )
    return [
        Candidate(tool="read_file", params={"path": _source(n).relative_to(ROOT).as_posix()}),
        step,
        Candidate(tool="search_memory", params={"query": f"refund rounding currency {n}"}),
    ]


def fix(n: int) -> str:
    """Attempt `n` at the refund function (the tests' verdict comes from `failing`)."""
    return f"def refund(amount: float) -> float:\n    return round(amount * 0.99 + 0.1, {n % 3})  # try {n}\n"


def _source(n: int) -> Path:
    return SOURCES[n % len(SOURCES)]


def failing(n: int) -> set[str]:
    return {t for i, t in enumerate(TESTS[:-1]) if 3 + 6 * i <= n < 12 + 6 * i}


def outputs(call: PlannedCall, n: int, search: Any) -> ToolOutput:
    """The scripted output of iteration `n`'s call."""
    if call.tool == "read_file":
        return ToolOutput(text=_source(n).read_text(encoding="utf-8"), paths=[str(call.params["path"])])
    if call.tool == "run_tests":
        return pytest_log(n)
    if call.tool == "write_file":
        return ToolOutput(text=f"wrote src/pay.py ({len(str(call.params['content']))} characters)")
    return ToolOutput(text="\n".join(search(str(call.params["query"]), 8)) or "no memories match")


def pytest_log(n: int) -> ToolOutput:
    bad = failing(n)
    checks = [
        CheckOutcome(check_id=t, passed=t not in bad, detail="AssertionError: 9.9 != 10.0") for t in TESTS
    ]
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.7, pytest-8.3.3",
        f"collected {len(TESTS)} items",
        "",
    ]
    lines += [f"{t} {'FAILED' if t in bad else 'PASSED'}" for t in TESTS]
    for t in sorted(bad):
        lines += [
            "",
            f"____ {t.split('::')[1]} ____",
            "    def test_refund():",
            ">       assert refund(10) == 10.0",
            "E       AssertionError: 9.9 != 10.0",
            "E        +  where 9.9 = refund(10)",
            "",
            "src/pay.py:42: AssertionError",
        ]
    lines.append(f"==== {len(bad)} failed, {len(TESTS) - len(bad)} passed in 0.{n:02d}s ====")
    return ToolOutput(text="\n".join(lines), outcome="failure" if bad else "success", checks=checks)


class ScriptedTools(InProcessExecutor):
    """Model calls in process; tool outputs from the script (they search the real store)."""

    def __init__(self, config: RunConfig, session: Session) -> None:
        super().__init__(ModelClient(config.model, max_attempts=1))
        self.session = session
        self.raw: list[str] = []

    def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
        for key, call in runs:
            output = outputs(call, key.iteration, self.session.search_lines)
            self.raw.append(output.text)
            yield key, call, output


def run(config: RunConfig, iterations: int) -> tuple[Session, list[str]]:
    """The scripted run through `run_iteration`; returns the session and every raw tool output."""
    bootstrap = InProcessExecutor(ModelClient(config.model, max_attempts=1))
    # A general task: a coding one with nothing to read is written and tested without a planner,
    # and this bench measures what a planner's calls leave in the context.
    session = start_task(TaskRequest.new(GOAL, config, task_id=TASK, task_type="general_task"), bootstrap)
    tools = ScriptedTools(config, session)
    for n in range(1, iterations + 1):
        run_iteration(session, n, session.state.mode, False, tools)
    if not tools.raw:  # the figures would mean nothing (this is how the bench once rotted)
        raise SystemExit("bench/context.py: no tool call ran: the planner refused every scripted call")
    return session, tools.raw


def fill_store(session: Session, total: int) -> None:
    """Top the store up to `total` memories: chunks of source files in this task and in others."""
    have = session.deps.store.count()
    texts = [p.read_text(encoding="utf-8") for p in SOURCES]
    pieces = [t[i : i + 600] for t in texts for i in range(0, len(t), 600)]
    batch: list[Memory] = []
    for i in range(max(0, total - have)):
        tenant = TASK if i % 3 == 0 else f"other-task-{i % 40}"
        batch.append(
            Memory(
                key=f"bench:{i}",
                kind="document_chunk",
                content=f"{pieces[i % len(pieces)]} #{i}",
                tenant=tenant,
                file_path=f"src/file_{i % 500}.py",
            )
        )
        if len(batch) == 2000:
            session.deps.store.upsert(batch)
            batch = []
    if batch:
        session.deps.store.upsert(batch)


def latency(session: Session, samples: int) -> list[float]:
    questions = [
        "why does the refund round down",
        "which currency table is used",
        "fees on partial refunds",
        "where is rounding configured",
        "what did the last test run say",
    ]
    base = session.recorder.state
    session.context()  # warm: tokenizer loaded, line counts cached, vector matrix built
    times = []
    for i in range(samples):
        message = UserMessage(text=f"{questions[i % len(questions)]} (sample {i})", role="feedback")
        session.recorder.state = base.model_copy(update={"messages": [*base.messages, message]})
        started = time.perf_counter()
        session.context()
        times.append((time.perf_counter() - started) * 1000)
    session.recorder.state = base
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    litellm.custom_provider_map = [
        *litellm.custom_provider_map,
        {"provider": "script", "custom_handler": Scripted()},
    ]
    count = line_counter("gpt-4o")
    budget = context_budget(context_window("gpt-4o"))
    with tempfile.TemporaryDirectory() as tmp:
        config = RunConfig(
            workspace=tmp,
            model="script/gpt-4o",
            compress="batch",
            context_tokens=budget,
            max_iterations=args.iterations,
        )
        session, raw = run(config, args.iterations)
        context_tokens = count(session.context())
        raw_tokens = sum(count(text) for text in raw)
        fill_store(session, args.memories)
        times = latency(session, args.samples)
        memories = session.deps.store.count()
        session.deps.close()
    figures = {
        "iterations": args.iterations,
        "calls": len(raw),
        "history_budget_tokens": budget,
        "context_tokens": context_tokens,
        "raw_output_tokens": raw_tokens,
        "context_to_raw_tokens": round(context_tokens / raw_tokens, 4),
        "memories": memories,
        "assembly_p50_ms": round(statistics.median(times), 2),
        "assembly_p95_ms": round(statistics.quantiles(times, n=20)[18], 2),
    }
    if args.json:
        print(json.dumps(figures))
        return
    for name, value in figures.items():
        print(f"{name:>24}: {value}")


if __name__ == "__main__":
    main()
