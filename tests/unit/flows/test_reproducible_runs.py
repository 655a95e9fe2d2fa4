"""Two offline runs of one task record one history, whichever of a batch's calls finishes first.

A question over a conversation too long to read whole opens with one batch: a `find_lines` for the
question's words and a `search_memory` for the question. A call sees what was recorded before its
batch, never a sibling's result; before, each result was recorded (and indexed) as it came back
while its siblings still ran, so the search found the `find_lines` note or not depending on which
finished first, and two runs of one LoCoMo question differed. Here one run finishes the batch's
calls in call order, the other in reverse: their histories must be the same, timestamps aside.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cairn.core import RunConfig
from cairn.flows.steps.executor import InProcessExecutor, ToolResult, ToolRun
from cairn.tasks.calls import run_tool_call
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.tools.base import ToolContext
from tests.unit.scripted import run_whole_task

QUESTION = "When did Caroline go to the LGBTQ support group?"
ANSWER = "Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
# What differs between two runs by necessity: clocks (and the hash chain over them).
VOLATILE = frozenset(
    {"ts", "prev", "hash", "timestamp", "modified_at", "created_at", "execution_time", "seconds"}
)
TOPICS = ("painting", "camping", "the library", "a pottery class", "running", "the beach", "music", "school")


class LastFirst(InProcessExecutor):
    """Runs a batch's calls in reverse: the last call has finished before the first starts."""

    def run_tools(self, runs: Sequence[ToolRun], ctx: ToolContext) -> Iterator[ToolResult]:
        outputs = {key.index: run_tool_call(ctx, call) for key, call in reversed(runs)}
        for key, call in runs:
            yield key, call, outputs[key.index]


def conversation(folder: Path) -> Path:
    """A LoCoMo-like transcript (a heading per dated session, a `Speaker: words` line per turn),
    too long for the opening to read whole."""
    lines = ["# Conversation between Caroline and Melanie"]
    for n in range(1, 31):
        lines += ["", f"## Session {n} — 1:{n:02d} pm on {n % 28 + 1} May, 2023", ""]
        for turn in range(12):
            speaker, topic = ("Caroline", "Melanie")[turn % 2], TOPICS[(n + turn) % len(TOPICS)]
            lines.append(f"{speaker}: Session {n}, turn {turn}: we talked about {topic} and the weekend.")
        if n == 3:
            lines.append(ANSWER)
    folder.mkdir(parents=True)
    (folder / "conversation.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def history(workspace: Path, executor: type[InProcessExecutor], source: Path) -> list[Any]:
    """The task's history, run offline to its end by `executor`, without what is volatile."""
    config = RunConfig(workspace=str(workspace), max_iterations=4)
    client = ModelClient(config.model, retry_wait=0)
    run_whole_task(config, "q", QUESTION, [source], executor(client), "simple_question")
    text = (workspace / "tasks" / "q" / "history.jsonl").read_text(encoding="utf-8")
    return [_stable(json.loads(line)) for line in text.replace(str(workspace), "WS").splitlines()]


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    return [_stable(v) for v in value] if isinstance(value, list) else value


def test_a_batchs_calls_see_the_same_memory_whichever_finishes_first(tmp_path: Path) -> None:
    source = conversation(tmp_path / "sources" / "conv")
    in_order = history(tmp_path / "in-order", InProcessExecutor, source)
    last_first = history(tmp_path / "last-first", LastFirst, source)

    opening = next(e["event"]["batch"] for e in in_order if e["event"]["type"] == "plan_recorded")
    assert [call["tool"] for call in opening] == ["find_lines", "search_memory"]
    searched = [e["event"]["call"] for e in in_order if e["event"]["type"] == "tool_call"][1]
    assert searched["tool"] == "search_memory" and "[iteration]" not in searched["raw_output"]
    assert [e["event"]["type"] for e in last_first] == [e["event"]["type"] for e in in_order]
    assert last_first == in_order
