"""File names from outside: bytes that are not UTF-8, and control characters a terminal obeys.

One offline run over the example corpus plus two files whose names look relevant to the goal (so
the agent lists and reads them): `...-days-\\xe9.md`, which is not UTF-8, and `...-level-\\x1b[2J.md`,
whose name would clear the screen. Before, the first crashed the run in event hashing and every
resume after it; the second reached the terminal raw through `cairn show`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cairn.core import PlannedCall, ToolCallRecorded, ToolsConfig, UserMessage, displayable, from_displayable
from cairn.flows.loop.iteration import run_iteration
from cairn.flows.loop.request import TaskRequest
from cairn.flows.loop.start import start_task
from cairn.flows.prefect.durable import run_name
from cairn.flows.steps.executor import InProcessExecutor
from cairn.flows.steps.session import open_session
from cairn.memory.index.sources import index_source
from cairn.memory.log.history import HistoryLog, envelope_line
from cairn.memory.log.workspace import Workspace
from cairn.memory.store.protocol import SearchFilter, SearchQuery
from cairn.tasks.deps import deps_for
from cairn.tasks.messages.schemas import Candidate, DeliverOutput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.toolset import toolset_for
from tests.conftest import CORPUS
from tests.unit.flows.cli_runs import cli_here
from tests.unit.offline_run import QUESTION, config_for, run_offline
from tests.unit.scripted import ScriptedModel, register

TASK = "odd-names"
NOT_UTF8 = b"alder-creek-reservoir-capacity-days-\xe9.md"
ESCAPE = "alder-creek-reservoir-level-\x1b[2J.md"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("odd") / "corpus"
    shutil.copytree(CORPUS, source)
    text = b"# Alder Creek reservoir\n\nThe Alder Creek reservoir holds 1,260,000 cubic metres.\n"
    (Path(os.fsdecode(bytes(source))) / os.fsdecode(NOT_UTF8)).write_bytes(text)
    (source / ESCAPE).write_bytes(text.replace(b"holds", b"is full and holds"))
    return source


@pytest.fixture(scope="module")
def run(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline model's whole task: it is shown the files and reads the odd ones."""
    ws = tmp_path_factory.mktemp("odd-ws")
    result = run_offline(config_for(ws), TASK, [source])
    assert result.status == "complete", result
    return ws


@pytest.fixture(scope="module")
def listed(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The opening iteration (every file read whole), then one whose plan lists the source with
    the real `list_directory` tool, so the exact name is in a tool's output, and from there in
    the log."""
    ws = tmp_path_factory.mktemp("listed-ws")
    config = config_for(ws, model="script/model")
    listing = Candidate(tool="list_directory", params={"path": "source:corpus"}, rationale="see the files")
    not_ready = DeliverOutput()  # the model does not answer yet: the plan runs
    undo = register(
        ScriptedModel(lambda payload: [listing] if payload.iteration == 2 else [], lambda _: not_ready)
    )
    try:
        executor = InProcessExecutor(ModelClient(config.model, max_attempts=1))
        start_task(
            TaskRequest.new(QUESTION, config, task_id=TASK, sources=[str(source)], task_type="research_task"),
            executor,
        )
        for n in (1, 2):
            run_iteration(open_session(config, TASK), n, "fast", False, executor)
    finally:
        undo()
    return ws


def calls(ws: Path) -> list[ToolCallRecorded]:
    return [e for e in Workspace(ws).task(TASK).read().events if isinstance(e, ToolCallRecorded)]


def test_the_name_that_is_not_utf8_is_kept_exactly_in_the_log(listed: Path) -> None:
    log = Workspace(listed).task(TASK).history
    raw = log.path.read_bytes()
    assert b"\\udce9" in raw  # a JSON escape: every line is valid UTF-8 JSON
    for line in raw.splitlines():
        json.loads(line.decode("utf-8"))
    outputs = [c.call.raw_output for c in calls(listed) if c.call.tool == "list_directory"]
    names = {
        os.fsencode(line.split("\t")[0].rpartition("/")[2]) for text in outputs for line in text.splitlines()
    }
    assert NOT_UTF8 in names  # the very bytes on disk
    assert log.verify().ok


def test_the_agent_read_it_by_the_name_it_was_shown(run: Path) -> None:
    shown = displayable(os.fsdecode(NOT_UTF8))
    reads = [c.call for c in calls(run) if c.call.tool == "read_file" and shown in str(c.call.params["path"])]
    assert reads and all(call.outcome == "success" for call in reads), reads
    assert os.fsencode(from_displayable(shown)) == NOT_UTF8


def test_search_finds_it_and_reindex_rebuilds_the_same_records(run: Path, tmp_path: Path) -> None:
    store = deps_for(config_for(run)).store
    shown = "source:corpus/" + displayable(os.fsdecode(NOT_UTF8))
    state = Workspace(run).task(TASK).state()
    for _ in range(2):  # indexed once, and found unchanged the second time (not dropped as gone)
        assert index_source(store, Path(state.sources["corpus"])) == 0
        registry = store.list(SearchFilter(file_path=shown, subtypes=["file"]))
        assert [m.file_path for m in registry] == [shown]
    query = SearchQuery(text="capacity days", mode="keyword", k=50, filter=SearchFilter())
    before = {h.memory.key for h in store.search(query)}
    assert any("\\xe9" in key for key in before), before
    done = cli_here(["reindex", TASK, "-w", str(run)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert {h.memory.key for h in store.search(query)} == before


def test_show_escapes_what_a_terminal_would_obey(run: Path, tmp_path: Path) -> None:
    shown = cli_here(["show", TASK, "-w", str(run)], tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\\x1b[2J" in shown.stdout
    assert "\\xe9" in shown.stdout


def test_show_json_keeps_the_exact_name(listed: Path, tmp_path: Path) -> None:
    as_json = cli_here(["show", TASK, "-w", str(listed), "--json"], tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    assert "\\udce9" in as_json.stdout  # a JSON escape, which reads back to the very name
    assert os.fsdecode(NOT_UTF8) in json.dumps(json.loads(as_json.stdout), ensure_ascii=False)


def test_a_log_line_round_trips_any_lone_surrogate(tmp_path: Path) -> None:
    log = HistoryLog(tmp_path / "h.jsonl")
    texts = ["caf\udce9", "\ud800 lone high", "tab\tand \x1b[2J and \\udce9 literal"]
    for text in texts:
        log.append(UserMessage(text=text))
    assert [e.text for e in log.events() if isinstance(e, UserMessage)] == texts
    assert log.verify().ok
    first = log.read().envelopes[0]
    assert envelope_line(first).decode("utf-8").endswith("\n")


def test_run_names_sent_to_prefect_are_valid_text() -> None:
    call = PlannedCall(tool="read_file", params={"path": "source:c/a-\udce9-\x1b[2J.md"})
    name = run_name(toolset_for(ToolsConfig()), call)
    assert name == "read_file-source:c/a-\\xe9-\\x1b[2J.md"
    name.encode("utf-8")
