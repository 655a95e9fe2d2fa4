"""The rooms one iteration passes through, recorded from a real run (issue 34).

Run as a program (`python -m tests.e2e.room_path WORKSPACE SOURCE [STRATEGY]`): a task of that
strategy (`GOALS`: a question by default) over the offline model and one small folder, through
Prefect's `run_task` flow, with a profiler (`sys.setprofile`, and `threading.setprofile` for the
threads Prefect runs tool calls in) watching each iteration's subflow run. The question's first
iteration reads the file (one tool call, no model call), the second asks the model for the answer
and records it (one tool call, `answer`). Each Cairn function it enters is placed
in its room (`cairn.flows.loop`, `cairn.tasks.model`, ...); it prints, as JSON, each iteration's
path (each call that crosses into another room, with its depth) and the re-entries: calls into a
room already lower on the same call stack, as when the compression step pulled its results
through a generator of the loop's, which pulled them from Prefect's room. The test
(`tests/e2e/test_room_path.py`) allows the named callbacks only.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from cairn.core import TaskType

# Where a room is made of sub-rooms, a module's room is its package; a top-level module of
# `cairn.flows` or `cairn.tasks` is a room of its own kind (the process's edges; what a step does).
ROOMS = ("cairn.flows.", "cairn.tasks.", "cairn.memory.")
START = "cairn.flows.prefect.durable.bfs_iteration"
# The offline model stands in for a model's server (another process in a real run): what it does
# inside is not the iteration's path.
MODEL = "the model"
SERVER = "cairn.tasks.offline.litellm_provider."


def room_of(module: str, package: bool) -> str | None:
    """`cairn.flows.loop.iteration` -> `cairn.flows.loop`; `cairn.tasks.calls` -> `cairn.tasks`;
    a package's own module (its `__init__`) is in the package's room."""
    if not module.startswith("cairn."):
        return None
    parts = module.split(".")
    if any(module.startswith(prefix) for prefix in ROOMS):
        return ".".join(parts[:3]) if len(parts) > 3 or package else ".".join(parts[:2])
    return "cairn"


@dataclass
class Step:
    """One call into another room: where from, where to, which function, how deep."""

    caller: str
    room: str
    function: str
    depth: int
    worker: bool  # in a thread Prefect runs a submitted call in


@dataclass
class Recorder:
    paths: list[list[Step]] = field(default_factory=list)  # one per iteration
    reentries: list[dict[str, Any]] = field(default_factory=list)
    on: bool = False
    stacks: dict[int, list[tuple[FrameType, str, str]]] = field(default_factory=dict)

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event not in ("call", "return"):
            return
        room = room_of(str(frame.f_globals.get("__name__", "")), "__path__" in frame.f_globals)
        if room is None:
            return
        name = f"{frame.f_globals['__name__']}.{frame.f_code.co_qualname}"
        stack = self.stacks.setdefault(threading.get_ident(), [])
        if name.startswith(SERVER) or (stack and stack[-1][1] == MODEL):
            room = MODEL
        if event == "return":
            while stack and stack[-1][0] is not frame:
                stack.pop()  # a frame unwound by an exception
            if stack:
                stack.pop()
            if name == START:
                self.on = False
            return
        if name == START:
            self.on = True
            self.paths.append([])
        caller = stack[-1][1] if stack else "(thread)"
        caller_function = stack[-1][2] if stack else ""
        stack.append((frame, room, name))
        if not self.on or room == caller or (caller == MODEL and room == MODEL):
            return
        self.paths[-1].append(
            Step(caller, room, name, len(stack), threading.current_thread() is not threading.main_thread())
        )
        below = [r for _, r, _ in stack[:-1]]
        if room in below:
            self.reentries.append({"from": caller_function, "into": name, "stack": _rooms([*below, room])})


def _rooms(stack: list[str]) -> list[str]:
    """The stack's rooms, each run of one room once."""
    return [room for n, room in enumerate(stack) if n == 0 or stack[n - 1] != room]


# One task per strategy (`cairn.flows.strategies`): its goal and task type.
GOALS: dict[str, tuple[str, TaskType]] = {
    "question": ("How much usable water does the Alder Creek reservoir hold?", "simple_question"),
    "coverage": ("For every reservoir, list its usable volume.", "research_task"),
    "coding": ("Write double.py as the spec in the sources says, with its tests.", "coding_task"),
}


def run(workspace: Path, source: Path, strategy: str = "question") -> dict[str, Any]:
    from cairn.core import RunConfig
    from cairn.flows.prefect.flow import run_task

    recorder = Recorder()
    config = RunConfig(workspace=str(workspace), max_iterations=2)
    goal, task_type = GOALS[strategy]
    threading.setprofile(recorder.profile)
    sys.setprofile(recorder.profile)
    try:
        result = run_task(goal, config=config, task_id=strategy, sources=[str(source)], task_type=task_type)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return {
        "iterations": result.iterations,
        "paths": [[step.__dict__ for step in path] for path in recorder.paths],
        "reentries": recorder.reentries,
    }


SPINE = (
    "cairn.flows.prefect",
    "cairn.flows.loop",
    "cairn.flows.strategies",
    "cairn.flows.steps",
    "cairn.tasks",
    "cairn.tasks.model",
    MODEL,
)
RECORDER = "cairn.memory.index.recorder.TaskRecorder.record"
# Reading a field, naming a key, a dataclass made.
NOISE = ("Session.state", "Session.task_id", "Session.artifacts", "CallKey.__str__", "<locals>.__init__")


def outline(path: list[dict[str, Any]]) -> list[str]:
    """The iteration's spine, for a reader: each call between the loop's rooms, Prefect's, the
    call layer (`cairn.tasks`), the model client and the model, and each event recorded; a run of
    the same crossing is shown once."""
    base = min(step["depth"] for step in path if not step["worker"])
    lines: list[str] = []
    anchor = 0  # a worker thread's calls show under the main thread's call that submitted them
    for step in path:
        spine = step["caller"] in SPINE and step["room"] in SPINE
        if (not spine and step["function"] != RECORDER) or step["function"].endswith(NOISE):
            continue
        function = (
            step["function"].removeprefix(step["room"] + ".") if step["room"] != MODEL else "completion"
        )
        if not step["worker"]:
            anchor = step["depth"] - base + 1
        depth = anchor + step["depth"] - 1 if step["worker"] else step["depth"] - base
        indent = "  " * depth + ("[worker thread] " if step["worker"] else "")
        line = f"{indent}{_short(step['caller'])} -> {_short(step['room'])}: {function}"
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _short(room: str) -> str:
    return room.removeprefix("cairn.")


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), Path(sys.argv[2]), *sys.argv[3:4])))
