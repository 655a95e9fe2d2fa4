"""Bring your own tools, end to end: real MCP servers from PyPI, a Python tool, a kill -9.

`mcp-server-time` and `mcp-server-git` (on a repository the test creates) run as subprocesses of
the CLI through the `mcp` SDK; the Python tools are a module the test writes beside its tool
file. The model's side is a cassette written for the test (`tests/cassettes/make_tools_cassette.py`);
everything else is real: the CLI in a subprocess, the flow, its subflows and task runs on the
session's Prefect server, the history, the evidence, the kill.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cairn.core import Event, ToolCallRecorded, ToolCallStarted, ToolsConfigured, UncertainCallResolved
from cairn.memory.log.workspace import Workspace
from tests.cassettes import make_tools_cassette as script
from tests.conftest import BIN, ROOT, listing

pytestmark = pytest.mark.e2e
PY = sys.executable
COMMIT = script.COMMIT
TOOLS_MODULE = '''
from pathlib import Path

from cairn.tasks.tools import tool

NOTES = Path(__file__).with_name("notes.txt")


@tool
def append_note(text: str) -> str:
    """Append a line to the project's notes (a change: it runs at most once).

    Args:
        text: the line to append
    """
    with NOTES.open("a", encoding="utf-8") as handle:
        handle.write(text + "\\n")
    return f"noted: {text}"


@tool(read_only=True)
def word_count(text: str) -> int:
    """Count the words of a text.

    Args:
        text: the text to count
    """
    return len(text.split())
'''


@dataclass(frozen=True)
class Setup:
    root: Path
    repo: Path

    @property
    def tools_file(self) -> Path:
        return self.root / "tools.toml"

    @property
    def notes(self) -> list[str]:
        path = self.root / "notes.txt"
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    def options(self) -> list[str]:
        git = f"git={PY} -m mcp_server_git --repository {self.repo}"
        return ["--tools", str(self.tools_file), "--mcp", git]


def make_setup(root: Path) -> Setup:
    """A git repository with one commit, a Python tool module and a tool file naming it and the
    time server (the git server comes from `--mcp`)."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    (repo / "notes.md").write_text("# Reservoir\n", encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=Test"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", COMMIT], check=True)
    (root / "notes_tools.py").write_text(TOOLS_MODULE, encoding="utf-8")
    (root / "tools.toml").write_text(
        "[tools]\n"
        'python = ["notes_tools:append_note", "notes_tools:word_count"]\n\n'
        "[tools.mcp.time]\n"
        f"command = {json.dumps(PY)}\n"
        'args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]\n',
        encoding="utf-8",
    )
    return Setup(root=root, repo=repo)


def env_for(prefect_server: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    return {**env, "PREFECT_API_URL": prefect_server, **extra}


def cairn(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "cairn"), *args], capture_output=True, text=True, timeout=300, env=env)


@dataclass(frozen=True)
class ToolsRun:
    setup: Setup
    workspace: Path
    result: dict[str, Any]
    events: list[Event]

    def call(self, tool: str) -> Any:
        return next(e.call for e in self.events if isinstance(e, ToolCallRecorded) and e.call.tool == tool)


@pytest.fixture(scope="module")
def tools_run(prefect_server: str, tmp_path_factory: pytest.TempPathFactory) -> ToolsRun:
    setup = make_setup(tmp_path_factory.mktemp("tools"))
    ws = setup.root / "ws"
    cassette = script.write(setup.root / "cassette.jsonl", script.full_script(setup.repo))
    model = f"replay:{cassette}?match=kind"
    args = ["run", script.GOAL, "--model", model, "--workspace", str(ws), "--task-id", "tools-run"]
    proc = cairn(
        [*args, *setup.options(), "--compress", "each", "--max-iterations", "4", "--json"],
        env_for(prefect_server),
    )
    # The answer is the tools' outputs, but the offline verifier proves neither part (a time in a
    # JSON record, a commit's message): given unverified, the task ends after it (exit 8).
    assert proc.returncode == 8, proc.stderr[-3000:]
    events = Workspace(ws).task("tools-run").read().events
    return ToolsRun(setup=setup, workspace=ws, result=json.loads(proc.stdout), events=events)


def test_tools_list_shows_the_servers_tools_with_schemas_and_effects(
    prefect_server: str, tmp_path: Path
) -> None:
    setup = make_setup(tmp_path)
    proc = cairn(
        ["tools", "list", "--json", "--workspace", str(tmp_path / "ws"), *setup.options()],
        env_for(prefect_server),
    )
    assert proc.returncode == 0, proc.stderr
    tools = {t["name"]: t for t in json.loads(proc.stdout)["tools"]}
    assert {"time.get_current_time", "time.convert_time", "git.git_log", "git.git_commit"} <= tools.keys()
    assert {"read_file", "write_file", "append_note", "word_count"} <= tools.keys()
    assert tools["time.get_current_time"]["input_schema"]["properties"]["timezone"]["type"] == "string"
    assert tools["git.git_log"]["read_only"] and tools["git.git_log"]["server"] == "git"
    assert not tools["git.git_commit"]["read_only"]  # readOnlyHint false: side effects
    assert tools["git.git_reset"]["destructive"] and not tools["git.git_add"]["destructive"]
    assert not tools["append_note"]["read_only"] and tools["word_count"]["read_only"]
    assert tools["word_count"]["params"] == {"text": "string, required: the text to count"}


def test_tools_call_runs_one_tool_outside_a_task(prefect_server: str, tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    base = ["--workspace", str(tmp_path / "ws"), *setup.options(), "--json"]
    proc = cairn(
        ["tools", "call", "git.git_log", json.dumps({"repo_path": str(setup.repo)}), *base],
        env_for(prefect_server),
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["outcome"] == "success" and COMMIT in out["text"]
    counted = cairn(
        ["tools", "call", "word_count", '{"text": "one two three"}', *base], env_for(prefect_server)
    )
    assert json.loads(counted.stdout)["text"] == "3"


def test_a_task_calls_an_mcp_tool_of_each_server_and_a_python_tool(tools_run: ToolsRun) -> None:
    assert tools_run.result["status"] == "incomplete", tools_run.result
    assert str(tools_run.result["stop_reason"]).startswith("unverified"), tools_run.result
    configured = [e for e in tools_run.events if isinstance(e, ToolsConfigured)]
    assert [s.name for s in configured[0].config.mcp] == ["time", "git"]
    assert "21:00" in tools_run.call("time.convert_time").raw_output
    (answer,) = tools_run.workspace.rglob("answer.md")
    assert COMMIT in answer.read_text(encoding="utf-8")
    assert COMMIT in tools_run.call("git.git_log").raw_output
    assert tools_run.call("append_note").outcome == "success"
    assert tools_run.setup.notes == [script.NOTE]  # the Python tool ran, once


def test_the_calls_outputs_are_evidence(tools_run: ToolsRun) -> None:
    state = Workspace(tools_run.workspace).task("tools-run").state()
    for tool, needle in (("time.convert_time", "Asia/Tokyo"), ("git.git_log", COMMIT)):
        call = tools_run.call(tool)
        found = [e for e in state.evidence if e.source == call.call_id]
        assert len(found) == 1 and needle in found[0].content and found[0].metadata.tool == tool


def test_a_side_effecting_call_is_recorded_as_started_before_it_runs(tools_run: ToolsRun) -> None:
    started = [i for i, e in enumerate(tools_run.events) if isinstance(e, ToolCallStarted)]
    recorded = {e.call.tool: i for i, e in enumerate(tools_run.events) if isinstance(e, ToolCallRecorded)}
    tools = {e.tool for e in tools_run.events if isinstance(e, ToolCallStarted)}
    assert tools == {"append_note", "write_file"}  # MCP tools here are read-only: no start record
    note_started = next(i for i in started if tools_run.events[i].tool == "append_note")  # type: ignore[union-attr]
    assert note_started < recorded["append_note"]


def test_the_calls_are_prefect_task_runs_named_for_server_tool_and_argument(tools_run: ToolsRun) -> None:
    runs = asyncio.run(_task_runs("tools-run"))
    by_name = {r.name: r for r in runs}
    time_run = by_name["mcp:time.convert_time-Europe/London"]
    assert time_run.state_name == "Completed" and {"tool:time.convert_time", "mcp:time"} <= set(time_run.tags)
    git_runs = [r for r in runs if r.name.startswith("mcp:git.git_log-")]
    assert len(git_runs) == 1 and git_runs[0].state_name == "Completed" and "mcp:git" in git_runs[0].tags
    assert by_name[f"append_note-{script.NOTE}"].state_name == "Completed"


def test_a_kill_between_start_and_record_is_not_rerun_on_resume(prefect_server: str, tmp_path: Path) -> None:
    setup = make_setup(tmp_path)
    ws, task = tmp_path / "ws", "killed-run"
    first = script.write(tmp_path / "first.jsonl", script.killed_first_part())
    args = ["run", script.GOAL, "--model", f"replay:{first}?match=kind", "--workspace", str(ws)]
    command = [
        PY,
        "-m",
        "tests.e2e.faults",
        "--kill-in-tool",
        "append_note",
        "--",
        *args,
        "--task-id",
        task,
        *setup.options(),
        "--compress",
        "each",
    ]
    killed = subprocess.run(
        command, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env_for(prefect_server)
    )
    assert killed.returncode == -9, killed.stderr[-3000:]
    assert setup.notes == [script.NOTE]  # its effect happened; its result was never recorded
    state = Workspace(ws).task(task).state()
    assert [s.tool for s in state.uncertain_calls] == ["append_note"]

    rest = script.write(tmp_path / "rest.jsonl", script.resumed_part(setup.repo))
    env = env_for(prefect_server, CAIRN_MODEL=f"replay:{rest}?match=kind", CAIRN_COMPRESS="each")
    before = len(Workspace(ws).task(task).read().events)
    asked = cairn(["resume", task, "--workspace", str(ws)], env)
    assert asked.returncode == 6, asked.stderr[-3000:]
    line = asked.stderr.strip().splitlines()[-1]
    assert "append_note" in line and "--on-uncertain skip" in line and "--on-uncertain rerun" in line
    assert len(Workspace(ws).task(task).read().events) == before  # nothing ran, nothing recorded

    skipped = cairn(["resume", task, "--workspace", str(ws), "--on-uncertain", "skip", "--json"], env)
    assert skipped.returncode == 8, skipped.stderr[-3000:]  # answered, unverified (as above)
    assert str(json.loads(skipped.stdout)["stop_reason"]).startswith("unverified")
    assert setup.notes == [script.NOTE]  # never run again
    events = Workspace(ws).task(task).read().events
    note = next(e.call for e in events if isinstance(e, ToolCallRecorded) and e.call.tool == "append_note")
    assert note.outcome == "error" and "not run again" in (note.error or "")
    assert [e.decision for e in events if isinstance(e, UncertainCallResolved)] == ["skip"]


async def _task_runs(task_id: str) -> list[Any]:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterTags

    async with get_client() as client:
        tagged = TaskRunFilter(tags=TaskRunFilterTags(all_=[f"task:{task_id}"]))
        return await client.read_task_runs(task_run_filter=tagged, **listing("task_runs"))  # type: ignore[arg-type]


def test_a_bad_configuration_or_a_server_that_exits_at_once_is_one_line(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    exits = f"bad={PY} -c 'import sys; sys.exit(\"no repository given\")'"
    (tmp_path / "bad.toml").write_text('[tools]\npython = ["nowhere:fn"]\n', encoding="utf-8")
    cases = [
        (
            ["--mcp", exits],
            1,
            "MCP server 'bad' did not start: it exited before answering (no repository given)",
        ),
        (["--tools", str(tmp_path / "bad.toml")], 2, "Python tool nowhere:fn: cannot import it"),
        (["--mcp", "time"], 2, "--mcp 'time': write it as NAME=COMMAND"),
        (["--allow-tools", "gti.*"], 2, "--allow-tools: 'gti.*' matches no tool"),
        (["--on-uncertain", "maybe"], 2, "--on-uncertain: Input should be 'ask', 'skip' or 'rerun'"),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAIRN_")}
    for options, code, message in cases:
        proc = cairn(["run", "What time is it?", "--workspace", str(ws), *options], env)
        lines = proc.stderr.splitlines()
        assert proc.returncode == code and len(lines) == 1, (options, proc.stderr)
        assert lines[0].startswith(f"cairn: error: {message}"), lines
    assert not (ws / "tasks").exists()  # nothing was created
