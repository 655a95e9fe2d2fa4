"""Careless and hostile arguments: one line on stderr, a documented exit code, nothing created.

The CLI runs in process (Typer's runner: the same group, handler and exit codes as the console
script, in milliseconds), and in a subprocess where only the real script can tell (a read-only
mount, the worst case of all: a task id that names a file). `PREFECT_API_URL` points at a port
where nothing listens: a command that got as far as Prefect would say more than one line. Nothing
may appear on disk either, neither in the workspace nor beside it. How fast a refusal is, is
measured by `bench/bad_arguments.py`, not here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT
from tests.unit.flows.cli_runs import cli, cli_here, one_line, tree
from tests.unit.flows.readonly import read_only

CASSETTE = ROOT / "tests" / "cassettes" / "coding_task.jsonl"


@pytest.mark.parametrize("task_id", ["/ABSOLUTE/important", "../../escape"])
def test_a_task_id_that_is_a_path_is_refused_and_writes_nothing(tmp_path: Path, task_id: str) -> None:
    """`--task-id /some/dir/important` once truncated `/some/dir/important.lock`."""
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    victim = tmp_path / "important"
    victim.write_text("the user's file", encoding="utf-8")
    task_id = task_id.replace("/ABSOLUTE/important", str(victim))
    before = tree(tmp_path)
    proc = cli(["run", "hello", "--task-id", task_id, "--workspace", str(deep / "ws")], tmp_path)
    one_line(proc, 2, "invalid task id")
    assert tree(tmp_path) == before
    assert victim.read_text(encoding="utf-8") == "the user's file"


def bad_runs(tmp: Path) -> dict[str, tuple[list[str], list[str]]]:
    """name -> (arguments after `run GOAL`, words the one line must hold)."""
    first = CASSETTE.read_bytes().splitlines(keepends=True)[0]
    (tmp / "bad-byte.jsonl").write_bytes(first + b'{"position": 1, \xff\xfe}\n')
    (tmp / "a-file").write_text("x", encoding="utf-8")
    odd = Path(os.fsdecode(bytes(tmp) + b"/src-\xe9"))
    odd.mkdir()
    return {
        "negative iterations": (["--max-iterations", "-5"], ["--max-iterations", "-5"]),
        "zero iterations": (["--max-iterations", "0"], ["--max-iterations"]),
        "not a number": (["--max-iterations", "many"], ["--max-iterations", "integer"]),
        "unknown task type": (["--task-type", "nonsense"], ["--task-type", "nonsense", "research_task"]),
        "missing source": (["--source", str(tmp / "nowhere")], ["--source", "no such directory"]),
        "source is a file": (["--source", str(tmp / "a-file")], ["--source", "not a directory"]),
        "source path not UTF-8": (["--source", str(odd)], ["--source", "src-\\xe9", "not valid UTF-8"]),
        "missing cassette": (["--model", f"replay:{tmp}/gone.jsonl"], ["gone.jsonl", "not found"]),
        "cassette with a bad byte": (
            ["--model", f"replay:{tmp}/bad-byte.jsonl"],
            ["bad-byte.jsonl:2", "0xff"],
        ),
        "record into a directory": (["--record", str(tmp)], ["--record", "directory"]),
        "unknown related task": (["--related", "no-such-task"], ["--related", "no-such-task"]),
        "bad compress": (["--compress", "sometimes"], ["--compress"]),
        "bad review": (["--review", "always"], ["--review", "'never', 'stuck' or 'every'", "always"]),
        "unknown option": (["--bogus"], ["No such option", "--bogus", "cairn run --help"]),
        "missing tools file": (["--tools", str(tmp / "none.toml")], ["tools file not found", "none.toml"]),
        "tools file not TOML": (["--tools", str(tmp / "a-file")], ["a-file", "invalid TOML"]),
        "mcp without a command": (["--mcp", "time"], ["--mcp", "NAME=COMMAND"]),
        "mcp server that cannot start": (["--mcp", "x=/no/such/server"], ["MCP server 'x'", "did not start"]),
        "allow-list matching nothing": (["--allow-tools", "nosuch"], ["--allow-tools", "nosuch"]),
        "bad on-uncertain": (
            ["--on-uncertain", "maybe"],
            ["--on-uncertain", "'ask', 'skip' or 'rerun'", "maybe"],
        ),
    }


@pytest.mark.parametrize(
    "case",
    [
        "negative iterations",
        "zero iterations",
        "not a number",
        "unknown task type",
        "missing source",
        "source is a file",
        "source path not UTF-8",
        "missing cassette",
        "cassette with a bad byte",
        "record into a directory",
        "unknown related task",
        "bad compress",
        "bad review",
        "unknown option",
        "missing tools file",
        "tools file not TOML",
        "mcp without a command",
        "mcp server that cannot start",
        "allow-list matching nothing",
        "bad on-uncertain",
    ],
)
def test_a_bad_run_argument_is_one_line_and_creates_nothing(tmp_path: Path, case: str) -> None:
    args, words = bad_runs(tmp_path)[case]
    ws = tmp_path / "ws"
    before = tree(tmp_path)
    proc = cli_here(["run", "How big?", "--source", str(CORPUS), "--workspace", str(ws), *args], tmp_path)
    one_line(proc, 1 if "cannot start" in case else 2, *words)
    assert tree(tmp_path) == before, "a refused run created files"


def test_an_empty_goal_and_a_missing_goal_are_one_line(tmp_path: Path) -> None:
    one_line(cli_here(["run", "  ", "--workspace", str(tmp_path / "ws")], tmp_path), 2, "goal is empty")
    one_line(cli(["run"], tmp_path), 2, "Missing argument", "cairn run --help")
    one_line(cli_here(["frobnicate"], tmp_path), 2, "No such command")
    assert not (tmp_path / "ws").exists()


def test_a_bad_setting_in_the_environment_is_one_line_naming_it(tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    env = {"CAIRN_MAX_ITERATIONS": "-5"}
    one_line(cli_here(["run", "hi", "-w", ws], tmp_path, **env), 2, "CAIRN_MAX_ITERATIONS")
    one_line(cli_here(["search", "hi", "-w", ws], tmp_path, CAIRN_STORE="mongo"), 2, "CAIRN_STORE")


@pytest.mark.parametrize(
    "args",
    [
        ["run", "hello"],
        ["search", "reservoir"],
        ["feedback", "some-task", "use metres"],
        ["show", "some-task"],
        ["resume", "some-task"],
        ["reindex", "some-task"],
        ["rules"],
    ],
)
def test_a_workspace_that_is_a_file_is_one_line(tmp_path: Path, args: list[str]) -> None:
    ws = tmp_path / "ws"
    ws.write_text("not a directory", encoding="utf-8")
    one_line(cli_here([*args, "--workspace", str(ws)], tmp_path), 2, "workspace is not a directory", str(ws))
    assert ws.read_text(encoding="utf-8") == "not a directory"


@pytest.mark.parametrize("args", [["run", "hello"], ["search", "reservoir"], ["feedback", "some-task", "hi"]])
def test_a_read_only_workspace_is_one_line(tmp_path: Path, args: list[str]) -> None:
    ws = tmp_path / "ws"
    (ws / "tasks").mkdir(parents=True)
    with read_only(ws) as prefix:
        proc = cli([*args, "--workspace", str(ws)], tmp_path, prefix=prefix)
    one_line(proc, 2, "read-only", str(ws))
    assert tree(ws) == ["tasks"]


def test_search_options_out_of_range_are_one_line(tmp_path: Path) -> None:
    ws = str(tmp_path / "ws")
    one_line(cli_here(["search", "x", "--mode", "fuzzy", "-w", ws], tmp_path), 2, "--mode")
    one_line(cli_here(["search", "x", "-k", "0", "-w", ws], tmp_path), 2, "-k")
    one_line(cli_here(["search", "x", "--min-confidence", "7", "-w", ws], tmp_path), 2, "--min-confidence")


@pytest.mark.parametrize(
    ("arguments", "code", "words"),
    [
        (["read_file", "not json"], 2, ["not JSON"]),
        (["read_file", "[1, 2]"], 2, ["JSON object"]),
        (["no_such_tool"], 2, ["no tool 'no_such_tool'"]),
        (["\x1b[2Jevil"], 2, ["\\x1b[2Jevil"]),  # escaped: the terminal is not cleared
        (["read_file", '{"path": "/etc/passwd"}'], 1, ["read_file failure", "absolute paths"]),
        (["read_file", '{"path": "../../secret"}'], 1, ["read_file failure", "'..'"]),
        (["read_file", '{"path": "\\u001b[2Jx"}'], 1, ["control character", "\\x1b[2Jx"]),
        (["read_file", '{"path": "\\udce9"}'], 1, ["not valid unicode"]),
        (["read_file", '{"path": 5}'], 1, ["read_file error", "bad arguments"]),
        (["read_file", '{"path": "absent.md"}'], 1, ["read_file failure", "absent.md"]),
        (["write_file", '{"path": "a\\u0000b", "content": "x"}'], 1, ["control character"]),
    ],
)
def test_tools_call_with_bad_or_hostile_input_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arguments: list[str], code: int, words: list[str]
) -> None:
    """`cairn tools call` acts on the current directory: whatever it is given, one line on stderr,
    a non-zero exit, and nothing written there or beside it."""
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    before = tree(tmp_path)
    proc = cli_here(["tools", "call", *arguments, "--workspace", str(tmp_path / "ws")], tmp_path)
    one_line(proc, code, *words)
    assert not proc.stdout
    assert tree(tmp_path) == before


@pytest.mark.parametrize("task_id", ["../../escape", "no-such-task"])
def test_feedback_to_a_bad_or_missing_task_is_one_line_and_creates_nothing(
    tmp_path: Path, task_id: str
) -> None:
    """Feedback once opened (created) the workspace's index before it looked at the task id."""
    ws = tmp_path / "ws"
    (ws / "tasks").mkdir(parents=True)
    proc = cli_here(["feedback", task_id, "use metres", "--workspace", str(ws)], tmp_path)
    one_line(proc, 2, repr(task_id))
    assert tree(ws) == ["tasks"]


def test_ui_is_one_line_for_a_bad_task_id_and_for_a_server_it_cannot_reach(tmp_path: Path) -> None:
    """`cairn ui` checks the task before Prefect; a server that does not answer was exit 70."""
    ws = tmp_path / "ws"
    (ws / "tasks" / "t1").mkdir(parents=True)
    (ws / "tasks" / "t1" / "history.jsonl").write_bytes(b"")
    one_line(cli(["ui", "../x", "--workspace", str(ws)], tmp_path), 2, "invalid task id")
    one_line(cli(["ui", "t1", "--workspace", str(ws)], tmp_path), 1, "cannot reach the Prefect server")
