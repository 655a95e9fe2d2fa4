"""The run's guard as plain parts (issue 35, item 4): how a server looks from outside (real sockets),
and a process whose work never ends (a thread blocked for good, as a model call that hangs) that
stops at once on SIGTERM or SIGINT and within seconds of its server going away. The whole run is
`tests/e2e/test_stopping.py`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cairn.flows.cli.guard import GONE_AFTER_S, Guard
from cairn.flows.cli.server_watch import Server
from tests.conftest import BIN
from tests.model_server import ModelServer
from tests.unit.flows.cli_runs import cli_env

STOP_WITHIN_S = 10.0


class Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def api() -> Iterator[tuple[str, ThreadingHTTPServer]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api", server
    server.shutdown()
    server.server_close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_server_is_up_busy_or_gone(api: tuple[str, ThreadingHTTPServer]) -> None:
    url, _ = api
    assert Server(url, "yours").look() == "up"
    assert Server(f"http://127.0.0.1:{closed_port()}/api", "yours").look() == "gone"
    # TEST-NET-1 (RFC 5737) routes nowhere: unreachable, or no answer to the connection in time.
    assert Server("http://192.0.2.1:4200/api", "yours", timeout_s=0.5).look() == "gone"
    with socket.socket() as mute:  # takes the connection, never answers: a loaded server, not a dead one
        mute.bind(("127.0.0.1", 0))
        mute.listen()
        assert (
            Server(f"http://127.0.0.1:{mute.getsockname()[1]}/api", "yours", timeout_s=0.3).look() == "busy"
        )


def test_the_lines_name_the_task_the_server_and_how_to_go_on(tmp_path: Path) -> None:
    guard = Guard(str(tmp_path), "t")
    assert (
        guard.signal_line(signal.SIGINT)
        == "interrupted (SIGINT) before task t was created: nothing to resume"
    )
    (tmp_path / "tasks" / "t").mkdir(parents=True)
    (tmp_path / "tasks" / "t" / "history.jsonl").write_text("", encoding="utf-8")
    assert guard.signal_line(signal.SIGTERM) == (
        f"interrupted (SIGTERM): task t is saved; continue with: cairn resume t --workspace {tmp_path}"
    )
    resume = f"cairn resume t --workspace {tmp_path}"
    yours = guard.gone_line(Server("http://h:4200/api", "yours"))
    assert yours == (
        f"task t stopped: your Prefect server at http://h:4200/api went away; the task is saved: "
        f"start it again, then continue with `{resume}`"
    )
    cairns = guard.gone_line(Server("http://h:4200/api", "cairn"))
    assert "the Prefect server of `cairn server start` (http://h:4200/api) went away" in cairns
    assert cairns.endswith(f"`{resume}`, which finds a running server or starts a temporary one")


RUNNER = """
import sys, threading, time
from cairn.flows.cli.guard import Guard
from cairn.flows.cli.server_watch import Server

def forever() -> None:
    threading.Thread(target=time.sleep, args=(3600,)).start()  # not a daemon: Python would wait for it
    print("working", flush=True)
    time.sleep(3600)

url = sys.argv[2] if len(sys.argv) > 2 else None
with Guard(sys.argv[1], "t").signals() as guard:
    guard.run(forever, Server(url, "yours") if url else None)
"""


def runner(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    script = tmp_path / "runner.py"
    script.write_text(textwrap.dedent(RUNNER), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    if proc.stdout.readline() != "working\n":
        pytest.fail(f"the runner did not start: {proc.communicate(timeout=30)[1][-2000:]}")
    return proc


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_a_process_whose_work_never_ends(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    proc = runner(tmp_path)
    sent = time.monotonic()
    os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code and time.monotonic() - sent < STOP_WITHIN_S
    assert err == f"cairn: interrupted ({sig.name}) before task t was created: nothing to resume\n"


def test_a_server_that_goes_away_ends_the_run(tmp_path: Path, api: tuple[str, ThreadingHTTPServer]) -> None:
    url, server = api
    proc = runner(tmp_path, url)
    time.sleep(2 * Server(url, "yours").poll_s)  # it looked, and the server was up
    assert proc.poll() is None
    server.shutdown()
    server.server_close()
    gone = time.monotonic()
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - gone
    assert proc.returncode == 75, err
    assert GONE_AFTER_S <= took < STOP_WITHIN_S, took  # refused for the grace period, not at the first miss
    assert err.startswith(f"cairn: error: task t stopped: your Prefect server at {url} went away")


def test_sigterm_while_the_model_is_probed_stops_before_anything_is_created(tmp_path: Path) -> None:
    """Another state than a flow's: `cairn run` waiting on the model preflight's request."""
    ws = tmp_path / "ws"
    with ModelServer(stall_seconds=120) as server:
        server.mode = "stall"
        env = {**cli_env(tmp_path), "OPENAI_API_BASE": server.url, "OPENAI_API_KEY": "x"}
        env["CAIRN_MODEL_TIMEOUT"] = "300"
        args = ["run", "How big is the reservoir?", "--workspace", str(ws), "--model", "openai/small"]
        proc = subprocess.Popen([str(BIN / "cairn"), *args], env=env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not server.requests:  # the probe is on its way, and stays there
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and time.monotonic() - sent < STOP_WITHIN_S
    assert err == "cairn: interrupted (SIGTERM) before the task was created: nothing to resume\n"
    assert not (ws / "tasks").exists()


def test_the_work_runs_in_another_thread_and_its_result_or_error_comes_back(tmp_path: Path) -> None:
    guard = Guard(str(tmp_path), "t")
    assert guard.run(lambda: threading.current_thread().name, None) == "cairn-run"

    def times_out() -> None:
        raise TimeoutError("the model did not answer")  # the guard's own waits must not swallow it

    with pytest.raises(TimeoutError, match="did not answer"):
        guard.run(times_out, None)
