"""End to end on the session's Prefect server: a one-function coding task whose code passes its
tests without a docstring asks the model for the docstring, and completes; killed after that call,
it resumes without asking again.

The model's side is the local Qwen2.5-Coder-1.5B's replies in one `cairn run --record` of `GOAL`
(`tests/cassettes/docstring_task.jsonl`, see tests/cassettes/README.md), replayed and matched by
request: the replay fails if Cairn asks anything the recorded run did not. Everything else is
real: the CLI in a subprocess, the flow, the writes, pytest run by `run_tests`, the GX suite.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from cairn.memory.log.state import TaskState
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.docstrings import with_docstring
from tests.conftest import ROOT, cairn

pytestmark = pytest.mark.e2e
CASSETTE = ROOT / "tests" / "cassettes" / "docstring_task.jsonl"
GOAL = (
    "Write a Python function `slugify(title: str) -> str` in slug.py that lowercases the title and "
    "joins its words with hyphens, with pytest tests in test_slug.py."
)
# As recorded: no task-type call, one model call per tool result at most, no review to wait for.
OPTIONS = ["--task-type", "coding_task", "--compress", "each", "--review", "never", "--max-iterations", "8"]
DOCUMENTATION = "documentation (doc file or docstring share >= 0.5)"
TASK = "slug"
DOCSTRING_KEY = f"{TASK}/4/0/docstring"  # iteration 4: after the write (1, 2) and the passing tests (3)


@pytest.fixture
def env(prefect_server: str) -> dict[str, str]:
    found = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    return found | {"PREFECT_API_URL": prefect_server}


def run_args(ws: Path) -> list[str]:
    return ["run", GOAL, "--model", f"replay:{CASSETTE}", "--workspace", str(ws), "--task-id", TASK, *OPTIONS]


def test_passing_code_without_a_docstring_gets_one_asked_for_and_the_task_completes(
    env: dict[str, str], tmp_path: Path
) -> None:
    proc = cairn([*run_args(tmp_path), "--json"], env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["status"] == "complete"
    state = Workspace(tmp_path).task(TASK).state()
    (asked,) = [c for c in state.model_calls if c.kind == "docstring"]
    assert asked.key == DOCSTRING_KEY and asked.ok and asked.cost.completion_tokens > 0
    # The tests passed with documentation unmet; the docstring's write came next, then the tests again.
    verdicts = [v for v in state.verdicts if v.iteration < asked.iteration]
    assert verdicts[-1].missing == [DOCUMENTATION]
    assert_documented_as_it_was(state, asked.iteration)
    last_run = [c for c in state.calls if c.tool == "run_tests"][-1]
    assert last_run.iteration > asked.iteration and last_run.outcome == "success"


def assert_documented_as_it_was(state: TaskState, iteration: int) -> None:
    """slug.py's last write, in `iteration`, is the one before it with a docstring in `slugify`."""
    writes = [c for c in state.calls if c.tool == "write_file" and c.params.get("path") == "slug.py"]
    before, after = (str(w.params["content"]) for w in writes[-2:])
    assert writes[-1].iteration == iteration
    node = next(n for n in ast.parse(after).body if isinstance(n, ast.FunctionDef) and n.name == "slugify")
    docstring = ast.get_docstring(node)
    assert docstring and with_docstring(before, "slugify", docstring) == after  # the code otherwise as it was


def test_killed_after_the_docstring_was_written_it_resumes_without_asking_again(
    env: dict[str, str], tmp_path: Path
) -> None:
    counter = tmp_path / "calls.txt"
    # The fifth tool result is iteration 4's write of the docstring: killed before it is recorded.
    killed = with_faults(["--count", str(counter), "--kill-after-results", "5"], run_args(tmp_path), env)
    assert killed.returncode != 0 and (tmp_path / "tasks" / TASK).is_dir(), killed.stderr[-3000:]
    assert DOCSTRING_KEY in counter.read_text(encoding="utf-8").split()  # asked before the kill
    resumed = with_faults(
        ["--count", str(counter)], ["resume", TASK, "--workspace", str(tmp_path), "--json"], env
    )
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert json.loads(resumed.stdout)["status"] == "complete"
    executed = Counter(counter.read_text(encoding="utf-8").split())
    assert executed[DOCSTRING_KEY] == 1  # not asked again: the resumed iteration found it in the cache
    state = Workspace(tmp_path).task(TASK).state()
    assert [c.key for c in state.model_calls if c.kind == "docstring"] == [DOCSTRING_KEY]
    assert_documented_as_it_was(state, 4)


def with_faults(faults: list[str], args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "tests.e2e.faults", *faults, "--", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
