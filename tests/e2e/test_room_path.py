"""One iteration's path through the rooms has no U-turn but the named callbacks (issue 34), for
each strategy (issue 41): its own strategy chooses every iteration's calls, and enters no step
twice but those it says why (`AGAIN`).

Real offline runs through Prefect's task flow (`tests/e2e/room_path.py`, in their own process,
against the session's Prefect server), two iterations each: a question over a one-file corpus (a
read, then the model asked for the answer), a coverage goal over the same file, a coding goal
over a spec that spells out its files. Each call that enters a room already lower on its call
stack is a re-entry; the only ones allowed are the Executor seam (Prefect running the loop's
iteration or a step's call, from its own room) and the history's listener (the story told on the
run's Logs tab as each event is recorded). `pytest -s` prints the path (docs/design.md, "One
iteration's path").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.room_path import GOALS, MODEL, outline

pytestmark = pytest.mark.e2e

# The re-entries allowed, by the function entered: why each is a callback, not a U-turn.
CALLBACKS = {
    "cairn.flows.loop.iteration.run_iteration": "the Executor seam: Prefect's subflow runs an iteration",
    "cairn.flows.prefect.durable.PrefectExecutor.": "the Executor seam: Prefect runs a step's call",
    "cairn.flows.prefect.story.NarratingRecorder.recorded": "the history's listener: the run's story",
}
STRATEGIES = "cairn.flows.strategies"
# Steps a strategy may enter twice in one iteration, and why.
AGAIN = {
    "cairn.flows.steps.plan.missing_checks": "the unmet checks, read by the answer and by the planner",
    "cairn.flows.steps.plan.opening": "a coverage goal reads on, or opens like any task",
    "cairn.flows.steps.deliver.delivery": "the answer asked again when the planner has nothing new",
    "cairn.flows.steps.plan.choose": "a coding step's files merged again after the planner proposed none",
}
SPEC = (
    "# double\n\n## double.py\n\n```python\ndef double(n):\n    return 2 * n\n```\n\n"
    "## test_double.py\n\n```python\nfrom double import double\n\n\ndef test_double():\n"
    "    assert double(2) == 4\n```\n"
)
# What a step uses, built once per iteration by its session (`cairn.flows.steps.session.Session`).
SERVICES = (
    "cairn.tasks.toolset.toolset_for",
    "cairn.tasks.task_grounding.full_output_reader",
    "cairn.tasks.model.capabilities.context_window",
)
LOOP_ROOMS = ("cairn.flows.loop", "cairn.flows.strategies", "cairn.flows.steps")
FACT = "The Alder Creek reservoir holds 1,260,000 cubic metres of usable water at full supply level.\n"


@pytest.mark.parametrize("strategy", list(GOALS))
def test_one_iteration_never_returns_to_a_room_it_left_but_through_the_named_callbacks(
    prefect_server: str, tmp_path: Path, strategy: str
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    if strategy == "coding":  # the offline model writes only what a spec spells out
        (corpus / "spec.md").write_text(SPEC, encoding="utf-8")
    else:
        (corpus / "reservoir.md").write_text(f"# Alder Creek reservoir\n\n{FACT}", encoding="utf-8")
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "CAIRN_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.e2e.room_path", str(tmp_path / "ws"), str(corpus), strategy],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout)
    for n, path in enumerate(found["paths"], start=1):
        print(f"\n{strategy}, iteration {n}:\n" + "\n".join(outline(path)))
    chosen = [f"cairn.flows.strategies.{strategy}_work.{strategy.title()}.next_calls"]
    for path in found["paths"]:  # the task's own strategy chooses every iteration's calls
        assert chosen == [s["function"] for s in path if s["function"].endswith(".next_calls")]
        assert _twice(path) == {}
        built = _built(path)  # the tools at least: the loop hands them to the calls
        assert "cairn.tasks.toolset.toolset_for" in built and set(built.values()) == {1}, built
    if strategy == "question":  # one tool call each: read the file, then answer
        assert found["iterations"] == 2 and len(found["paths"]) == 2
        for path in found["paths"]:
            assert sum(step["function"] == "cairn.tasks.calls.run_tool_call" for step in path) == 1
        assert any(step["room"] == MODEL for step in found["paths"][1])  # the answer asked of the model
    u_turns = [
        f"{entry['from']} -> {entry['into']} ({' > '.join(entry['stack'])})"
        for entry in found["reentries"]
        if not entry["into"].startswith(tuple(CALLBACKS))
    ]
    assert u_turns == []
    assert {entry["into"] for entry in found["reentries"]}  # the seam itself is seen: the check is live


def _built(path: list[dict[str, object]]) -> dict[str, int]:
    """How often the loop's rooms built each service the session holds, in one iteration."""
    counts: dict[str, int] = {}
    for step in path:
        if str(step["caller"]).startswith(LOOP_ROOMS) and step["function"] in SERVICES:
            counts[str(step["function"])] = counts.get(str(step["function"]), 0) + 1
    return counts


def _twice(path: list[dict[str, object]]) -> dict[str, int]:
    """The steps a strategy entered more than once in one iteration, but those it says why."""
    entered: dict[str, int] = {}
    for step in path:
        if step["caller"] == STRATEGIES and str(step["room"]).startswith("cairn.flows.steps"):
            entered[str(step["function"])] = entered.get(str(step["function"]), 0) + 1
    return {name: n for name, n in entered.items() if n > 1 and name not in AGAIN}
