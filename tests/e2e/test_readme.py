"""The README's Python example, run as written: it must never rot."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e


def readme_python() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert blocks, "the README has a Python example"
    return str(blocks[0])


def test_the_readme_example_runs_and_keeps_results_in_its_workspace(
    prefect_server: str, tmp_path: Path
) -> None:
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    (tmp_path / "example.py").write_text(readme_python(), encoding="utf-8")
    home = tmp_path / "prefect-home"
    env = {**os.environ, "PREFECT_API_URL": prefect_server, "PREFECT_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "example.py"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    complete, report = proc.stdout.split()[-2:]
    assert complete == "True" and Path(report).is_file()
    task_id = Path(report).parents[1].name
    # A library caller's call results persist in its workspace, never in Prefect's per-machine folder.
    assert (tmp_path / "ws" / "results" / "cairn" / task_id).is_dir()
    assert not (home / "storage" / "cairn").exists()
    assert (tmp_path / "chat.db").is_file()
