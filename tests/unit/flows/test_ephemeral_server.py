"""The temporary Prefect server's two promises, without Prefect: its process dies with the `cairn`
process that started it, however that one dies, and it is never started where Prefect's own
settings name a server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cairn.flows.server.ephemeral import configured_api_url

# A stand-in for `cairn run`: starts a long sleep the way prepare() starts the server, says its pid.
PARENT = """
import subprocess, sys, time
from cairn.flows.server.ephemeral import dying_with_this_process
child = subprocess.Popen(dying_with_this_process(["/bin/sleep", "300"]))
print(child.pid, flush=True)
time.sleep(300)
"""


def gone(pid: int, timeout: float = 10.0) -> bool:
    """Whether the process ended (a zombie waiting for init to reap it counts as ended)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_the_child_dies_with_its_parent(sig: signal.Signals) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(0.3)  # the child is past its prctl and has become `sleep`
    assert not gone(child, timeout=0.1)
    assert Path(f"/proc/{child}/cmdline").read_bytes().startswith(b"/bin/sleep")
    parent.send_signal(sig)
    parent.wait(timeout=10)
    try:
        assert gone(child), "the child outlived its parent"
    finally:
        if not gone(child, timeout=0):
            os.kill(child, signal.SIGKILL)


def test_a_server_named_in_prefects_own_settings_is_found(tmp_path: Path) -> None:
    home = tmp_path / "prefect-home"
    home.mkdir()
    env = {"PREFECT_HOME": str(home)}
    assert configured_api_url(env, tmp_path) is None
    (home / "profiles.toml").write_text(
        'active = "team"\n[profiles.team]\nPREFECT_API_URL = "http://team:4200/api"\n[profiles.local]\n',
        encoding="utf-8",
    )
    assert configured_api_url(env, tmp_path) == "http://team:4200/api"
    assert configured_api_url({**env, "PREFECT_PROFILE": "local"}, tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[tool.prefect.api]\nurl = "http://pyproject/api"\n')
    assert configured_api_url({**env, "PREFECT_PROFILE": "local"}, tmp_path) == "http://pyproject/api"
    (tmp_path / "prefect.toml").write_text('[api]\nurl = "http://toml/api"\n', encoding="utf-8")
    assert configured_api_url(env, tmp_path) == "http://toml/api"
    (tmp_path / ".env").write_text('OTHER=1\nPREFECT_API_URL="http://dotenv/api"\n', encoding="utf-8")
    assert configured_api_url(env, tmp_path) == "http://dotenv/api"
    (home / "profiles.toml").write_text("not [ toml", encoding="utf-8")
    (tmp_path / ".env").unlink()
    (tmp_path / "prefect.toml").unlink()
    assert configured_api_url({**env, "PREFECT_PROFILE": "local"}, tmp_path) == "http://pyproject/api"
