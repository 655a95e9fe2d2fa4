"""One iteration's path through the rooms has no U-turn but the named callbacks (issue 34).

A real offline run through Prefect's task flow (`tests/e2e/room_path.py`, in its own process,
against the session's Prefect server): a one-file corpus, two iterations of one tool call each,
the second asking the model for the answer. Each call that enters a room already lower on its call
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
from tests.e2e.room_path import MODEL, outline

pytestmark = pytest.mark.e2e

# The re-entries allowed, by the function entered: why each is a callback, not a U-turn.
CALLBACKS = {
    "cairn.flows.loop.iteration.run_iteration": "the Executor seam: Prefect's subflow runs an iteration",
    "cairn.flows.prefect.durable.PrefectExecutor.": "the Executor seam: Prefect runs a step's call",
    "cairn.flows.prefect.story.NarratingRecorder.recorded": "the history's listener: the run's story",
}
FACT = "The Alder Creek reservoir holds 1,260,000 cubic metres of usable water at full supply level.\n"


def test_one_iteration_never_returns_to_a_room_it_left_but_through_the_named_callbacks(
    prefect_server: str, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "reservoir.md").write_text(f"# Alder Creek reservoir\n\n{FACT}", encoding="utf-8")
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "CAIRN_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.e2e.room_path", str(tmp_path / "ws"), str(corpus)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout)
    assert found["iterations"] == 2 and len(found["paths"]) == 2
    for path in found["paths"]:  # one tool call each: read the file, then answer
        assert sum(step["function"] == "cairn.tasks.calls.run_tool_call" for step in path) == 1
    assert any(step["room"] == MODEL for step in found["paths"][1])  # the answer asked of the model
    print("\n".join(outline(found["paths"][1])))
    u_turns = [
        f"{entry['from']} -> {entry['into']} ({' > '.join(entry['stack'])})"
        for entry in found["reentries"]
        if not entry["into"].startswith(tuple(CALLBACKS))
    ]
    assert u_turns == []
    assert {entry["into"] for entry in found["reentries"]}  # the seam itself is seen: the check is live
