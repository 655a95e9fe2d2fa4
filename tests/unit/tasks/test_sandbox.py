"""The subprocess sandbox: deadlines kill the whole group, output is capped, secrets stay home."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from cairn.tasks.tools.sandbox import DEFAULT_ALLOW, ProcessResult, build_env, run_sandboxed

PY = sys.executable


def run(argv: list[str], cwd: Path, **overrides: object) -> ProcessResult:
    limits: dict[str, object] = {"timeout_s": 10.0, "cpu_s": 10, "address_space_mb": 1024}
    limits["output_cap_bytes"] = 1 << 20
    limits.update(overrides)
    return run_sandboxed(argv, cwd=cwd, **limits)  # type: ignore[arg-type]


def alive(pid: int) -> bool:
    """Running or sleeping; a zombie nobody has reaped yet counts as dead."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_dead(pid: int, seconds: float = 2.0) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def test_a_command_that_never_ends_is_killed_with_its_background_child(tmp_path: Path) -> None:
    script = "sleep 60 & echo $! > child.pid; sleep 60"
    started = time.monotonic()
    result = run(["sh", "-c", script], tmp_path, timeout_s=0.5)
    assert time.monotonic() - started < 30  # killed, not left to run its 60 s
    assert result.timed_out and result.killed_signal == signal.SIGKILL
    assert wait_dead(int((tmp_path / "child.pid").read_text()))


def test_a_background_child_dies_when_its_command_exits(tmp_path: Path) -> None:
    result = run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], tmp_path)
    assert result.exit_code == 0 and not result.timed_out
    assert wait_dead(int(result.stdout))


def test_a_child_holding_the_pipes_does_not_make_a_finished_command_time_out(tmp_path: Path) -> None:
    result = run(["sh", "-c", "sleep 60 & echo done"], tmp_path, timeout_s=5)
    assert result.stdout == "done\n" and not result.timed_out and result.duration_s < 2


def test_a_command_that_closes_its_pipes_before_it_exits_is_not_killed(tmp_path: Path) -> None:
    script = "import os, time; print('hi', flush=True); os.close(1); os.close(2); time.sleep(0.05)"
    result = run([PY, "-c", script], tmp_path)
    assert (result.exit_code, result.stdout, result.timed_out) == (0, "hi\n", False)  # was -9 every time


def test_fifty_megabytes_of_output_are_capped(tmp_path: Path) -> None:
    code = "import sys\nfor _ in range(50): sys.stdout.buffer.write(b'x' * 1_000_000)\n"
    code += "print('E', file=sys.stderr)"
    result = run([PY, "-c", code], tmp_path, output_cap_bytes=64_000)
    assert result.exit_code == 0
    assert len(result.stdout) == 64_000 and result.stderr == "E\n"
    assert result.output_truncated and result.bytes_dropped == 50_000_000 - 64_000


def test_secrets_in_the_parent_environment_do_not_reach_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-parent-secret-1234567890")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_parent")
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    monkeypatch.setenv("CAIRN_UNLISTED", "not on the allow-list")
    result = run([PY, "-c", "import os; print(sorted(os.environ.items()))"], tmp_path)
    for leaked in ("OPENAI_API_KEY", "sk-test-parent", "GITHUB_TOKEN", "hunter2", "CAIRN_UNLISTED"):
        assert leaked not in result.stdout
    assert "'PATH'" in result.stdout
    assert f"('HOME', '{Path.home()}')" not in result.stdout


def test_secret_names_are_dropped_even_when_allow_listed() -> None:
    parent = {"PATH": "/bin", "MY_API_KEY": "x", "SLACK_TOKEN": "y"}
    env = build_env(parent, DEFAULT_ALLOW | {"MY_API_KEY", "SLACK_TOKEN"}, {}, "/h")
    assert env == {"PATH": "/bin", "HOME": "/h", "TMPDIR": "/h"}
    with pytest.raises(ValueError, match="secret"):
        build_env(parent, DEFAULT_ALLOW, {"AWS_SECRET_ACCESS_KEY": "z"}, "/h")


def test_extra_env_is_passed(tmp_path: Path) -> None:
    result = run(
        [PY, "-c", "import os; print(os.environ['PYTHONPATH'])"], tmp_path, extra_env={"PYTHONPATH": "x"}
    )
    assert result.stdout == "x\n"


def test_cwd_is_the_workspace(tmp_path: Path) -> None:
    result = run([PY, "-c", "import os; print(os.getcwd())"], tmp_path)
    assert result.stdout.strip() == os.path.realpath(tmp_path)


def test_cpu_limit_kills_a_busy_loop(tmp_path: Path) -> None:
    result = run([PY, "-c", "while True: pass"], tmp_path, cpu_s=1, timeout_s=20)
    assert not result.timed_out
    assert result.killed_signal in (signal.SIGXCPU, signal.SIGKILL)
    assert result.duration_s < 10


def test_address_space_limit_stops_a_large_allocation(tmp_path: Path) -> None:
    result = run([PY, "-c", "b = bytearray(1_500_000_000)"], tmp_path, address_space_mb=300)
    assert result.exit_code != 0 and "MemoryError" in result.stderr


def test_file_size_limit_stops_a_large_write(tmp_path: Path) -> None:
    code = "f = open('big', 'wb')\nfor _ in range(4): f.write(b'x' * 1_000_000); f.flush()"
    result = run([PY, "-c", code], tmp_path, max_file_mb=1)
    assert result.exit_code != 0
    assert (tmp_path / "big").stat().st_size <= 1024 * 1024


def test_a_command_that_cannot_start_is_a_result_not_an_exception(tmp_path: Path) -> None:
    result = run(["/nonexistent/program"], tmp_path)
    assert result.exit_code == 127 and "cannot start" in result.stderr
