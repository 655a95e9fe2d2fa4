"""The CLI as a test runs it: in a subprocess (the console script) or in this process (Typer's
runner), and what a refusal must look like: one line on stderr, its exit code, no traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import BIN

DEAD_API = "http://127.0.0.1:9/api"


def cli(
    args: list[str], tmp_path: Path, prefix: list[str] | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """The console script in a subprocess (behind `prefix`, e.g. a read-only mount)."""
    environment = {**cli_env(tmp_path), **env}
    command = [*(prefix or []), str(BIN / "cairn"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment, cwd=tmp_path)


def cli_env(tmp_path: Path) -> dict[str, str]:
    """This environment, with a Prefect API where nothing listens and a private CAIRN_HOME."""
    return {**os.environ, "PREFECT_API_URL": DEAD_API, "CAIRN_HOME": str(tmp_path / "home")}


def cli_here(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The same command in this process (Typer's runner), answered as a CompletedProcess."""
    from typer.testing import CliRunner

    from cairn.flows.cli.app import app

    environment = {"PREFECT_API_URL": DEAD_API, "CAIRN_HOME": str(tmp_path / "home"), **env}
    result = CliRunner().invoke(app, args, env=environment, catch_exceptions=False, prog_name="cairn")
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def one_line(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """The single stderr line of a refused command, checked for its exit code and words."""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[-3000:]
    assert proc.returncode == code, proc.stderr
    assert lines[0].startswith("cairn: error: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    assert "internal error" not in lines[0] and "Traceback" not in proc.stderr
    return lines[0]


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))
