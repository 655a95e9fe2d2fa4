"""What `deployments/weaviate/start.sh` promises of the server it starts, checked on the session's
server (`weaviate_server`) and on a second one this module starts and stops: telemetry off, only
the listeners Weaviate cannot move off loopback, readiness, and a `stop` that stops only its own.
When the session was given a server (`WEAVIATE_URL`), the module starts one with the scripts
instead: these checks are about the scripts, never skipped."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import weaviate_server as live
from tests.weaviate_server import MARKER, LiveWeaviate

pytestmark = getattr(pytest.mark, MARKER)
ALWAYS = {
    "DISABLE_TELEMETRY": "true",
    "API_BASED_MODULES_DISABLED": "true",
    "GO_PROFILING_DISABLE": "true",
    "DEFAULT_VECTORIZER_MODULE": "none",
    "ENABLE_MODULES": "",
    "CLUSTER_BIND_ADDR": "127.0.0.1",
    "CLUSTER_IN_LOCALHOST": "true",
    "RAFT_BOOTSTRAP_EXPECT": "1",
}


@pytest.fixture(scope="module")
def started(
    weaviate_server: LiveWeaviate, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveWeaviate]:
    """A server start.sh started: the session's, or one of this module's own."""
    if weaviate_server.pid is not None:
        yield weaviate_server
        return
    binary, problem = live.build(lambda line: None)
    if binary is None:
        pytest.fail(problem, pytrace=False)
    run_dir = tmp_path_factory.mktemp("scripts-weaviate")
    yield live.start(binary, run_dir)
    live.stop(binary, run_dir)


def started_pid(server: LiveWeaviate) -> int:
    assert server.pid is not None
    return server.pid


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().partition("=")[::2] for item in raw if b"=" in item)


def listeners(pid: int) -> dict[int, str]:
    """The process's listening TCP sockets: port -> bound address."""
    inodes = {
        os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1]
        for fd in os.listdir(f"/proc/{pid}/fd")
        if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:[")
    }
    found = {}
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                address, port = fields[1].split(":")
                found[int(port, 16)] = _address(address)
    return found


def _address(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address)
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))  # each 32-bit word is host order
    return str(ipaddress.ip_address(words))


def test_telemetry_and_outside_calls_are_off(started: LiveWeaviate) -> None:
    env = environ(started_pid(started))
    assert {name: env.get(name) for name in ALWAYS} == ALWAYS


def test_only_grpc_and_the_cluster_data_port_leave_loopback(started: LiveWeaviate) -> None:
    """Weaviate 1.39.0 binds these two to every interface with no setting to move them."""
    pid = started_pid(started)
    bound = listeners(pid)
    env = environ(pid)
    wide = {port for port, address in bound.items() if not ipaddress.ip_address(address).is_loopback}
    assert wide == {started.grpc_port, int(env["CLUSTER_DATA_BIND_PORT"])}
    rest = int(started.url.rsplit(":", 1)[1])
    assert bound[rest] == "127.0.0.1" and len(bound) >= 5  # REST, gRPC, data, Raft, Raft RPC
    assert 6060 not in bound and 2112 not in bound  # no profiler, no metrics


def test_start_waits_for_ready_and_stop_stops_only_its_own(started: LiveWeaviate, tmp_path: Path) -> None:
    session_pid = started_pid(started)
    binary = Path(os.readlink(f"/proc/{session_pid}/exe"))
    second = live.start(binary, tmp_path / "second")
    with urllib.request.urlopen(f"{second.url}/v1/.well-known/ready", timeout=5) as ready:
        assert ready.status == 200
    assert second.pid and second.pid != session_pid
    live.stop(binary, tmp_path / "second")
    assert _gone(second.pid) and not _gone(session_pid)


def test_stop_leaves_a_process_that_took_a_stale_pid_alone(tmp_path: Path) -> None:
    """A pid file outlives its server; the pid may now be someone else's process."""
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / "weaviate.pid").write_text(str(sleeper.pid))
        done = subprocess.run(
            [str(live.SCRIPTS / "start.sh"), "stop", "--dir", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 0 and "no weaviate-server" in done.stderr
        assert sleeper.poll() is None and not (tmp_path / "weaviate.pid").exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def _gone(pid: int, wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.2)
    return False
