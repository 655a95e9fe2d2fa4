"""Test-wide set-up: quiet, offline dependencies; one Prefect server per session, on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.weaviate_server import LiveWeaviate

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# No real model request may leave a test unless the test opts in.
for _var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY"):
    os.environ.pop(_var, None)

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(url: str, timeout: float = 90.0) -> None:
    from cairn.flows.server.server import wait_until_healthy

    wait_until_healthy(url, timeout)


WEAVIATE_BINARY = pytest.StashKey[Path]()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Before any test runs: the Debian packages the selected tests drive are there (installed now
    when we are root), and so is a built Weaviate when live Weaviate tests are selected; or the run
    stops with one line saying how to get what is missing (`tests/system.py`,
    `tests/weaviate_server.py`)."""
    from tests.system import NEEDS, ensure

    if session.config.option.collectonly:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")

    def say(line: str) -> None:
        if reporter:
            reporter.write_line(line)

    wanted = [n for n in NEEDS if any(item.get_closest_marker(n.marker) for item in session.items)]
    for need in wanted:
        problem = ensure(need, say)
        if problem:
            pytest.exit(problem, returncode=pytest.ExitCode.USAGE_ERROR)
    _build_weaviate(session, say)


def _build_weaviate(session: pytest.Session, say: Callable[[str], None]) -> None:
    """Build (or find cached) the pinned Weaviate when a selected test needs it and no
    `WEAVIATE_URL` names one: minutes on a fresh machine, so before the first test, not inside it."""
    from tests import weaviate_server as live

    if live.given() or not any(item.get_closest_marker(live.MARKER) for item in session.items):
        return
    binary, problem = live.build(say)
    if binary is None:
        pytest.exit(problem, returncode=pytest.ExitCode.USAGE_ERROR)
    session.config.stash[WEAVIATE_BINARY] = binary


@pytest.fixture(autouse=True, scope="session")
def no_real_model_requests() -> Iterator[None]:
    """Refuse real network model requests; tests use cairn/offline, mock_response or cassettes."""
    from cairn.tasks.model.network_guard import block_network_models

    undo = block_network_models()
    yield
    undo()


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `prefect server start` on 127.0.0.1 (SQLite), shared by the whole session."""
    home = tmp_path_factory.mktemp("prefect-home")
    port = free_port()
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "2",
    }  # test_schedule: runs appear at once
    env.pop("PREFECT_API_URL", None)
    log = open(home / "server.log", "wb")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(
        [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/api"
    try:
        wait_healthy(url)
        from prefect.settings import PREFECT_API_URL, temporary_settings

        with temporary_settings(updates={PREFECT_API_URL: url}):
            yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def weaviate_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveWeaviate]:
    """A real Weaviate for the whole session: `WEAVIATE_URL`'s, or the pinned release started now on
    free loopback ports (`deployments/weaviate/start.sh`) and stopped at the end."""
    from tests import weaviate_server as live

    given = live.given()
    if given:
        yield given
        return
    binary = request.config.stash.get(WEAVIATE_BINARY, None)
    if binary is None:  # a test that uses the server without the marker: build now
        binary, problem = live.build(lambda line: None)
        if binary is None:
            pytest.fail(problem, pytrace=False)
    run_dir = tmp_path_factory.mktemp("weaviate")
    server = live.start(binary, run_dir)
    try:
        yield server
    finally:
        live.stop(binary, run_dir)


@pytest.fixture
def cli_env(prefect_server: str, tmp_path: Path) -> dict[str, str]:
    """Environment for `cairn` subprocesses: the session's server, a private workspace."""
    return {**os.environ, "PREFECT_API_URL": prefect_server, "CAIRN_WORKSPACE": str(tmp_path / "ws")}


QUESTION_FILE = ROOT / "examples" / "QUESTION"
CORPUS = ROOT / "examples" / "corpus"


def cairn(args: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the `cairn` console script as a user would."""
    command = [str(BIN / "cairn"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="session")
def reference_run(prefect_server: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One uninterrupted offline run of the demo question on the session server: (workspace, task id).
    The resume tests compare against it; the UI test reads its runs and artifacts back."""
    ws = tmp_path_factory.mktemp("reference-ws")
    env = {**os.environ, "PREFECT_API_URL": prefect_server}
    question = QUESTION_FILE.read_text(encoding="utf-8").strip()
    args = ["run", question, "--source", str(CORPUS), "--workspace", str(ws), "--task-id", "reference-run"]
    proc = cairn([*args, "--json"], env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return ws, "reference-run"


def listing(kind: str) -> dict[str, object]:
    """Arguments for the Prefect client's `read_flow_runs`/`read_task_runs`: it sends `sort` and
    `limit` as null unless given, and this server version refuses nulls (HTTP 422)."""
    from prefect.client.schemas.sorting import FlowRunSort, TaskRunSort

    return {"sort": {"flow_runs": FlowRunSort.ID_DESC, "task_runs": TaskRunSort.ID_DESC}[kind], "limit": 200}
