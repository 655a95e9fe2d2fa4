"""`deployments/weaviate/build.sh` without a build: a cached binary is reused, and a missing or old
Go is one line saying where to get it (the live server's own checks: `tests/contract/
test_weaviate_live_server.py`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.weaviate_server import SCRIPTS


def build(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "CAIRN_WEAVIATE_CACHE": str(tmp_path / "cache"),
    }
    return subprocess.run(
        [str(SCRIPTS / "build.sh")], capture_output=True, text=True, timeout=60, env=environ | env
    )


def test_a_cached_build_is_reused_without_go(tmp_path: Path) -> None:
    binary = tmp_path / "cache" / "v1.39.0" / "weaviate-server"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    done = build(tmp_path, GO=str(tmp_path / "no-go"))
    assert done.returncode == 0 and done.stdout.strip() == str(binary)


def test_another_version_is_cached_apart(tmp_path: Path) -> None:
    done = build(tmp_path, GO=str(tmp_path / "no-go"), WEAVIATE_VERSION="v1.38.0")
    assert done.returncode == 127 and "Weaviate v1.38.0" in done.stderr


def test_without_go_one_line_says_where_to_get_it(tmp_path: Path) -> None:
    done = build(tmp_path, GO=str(tmp_path / "no-go"))
    assert done.returncode == 127 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert "Go 1.26+ is needed" in line and "https://go.dev/dl/" in line and "WEAVIATE_URL" in line


def test_an_old_go_is_refused_before_any_download(tmp_path: Path) -> None:
    old = tmp_path / "go"
    old.write_text("#!/bin/sh\necho go1.22.4\n")
    old.chmod(0o755)
    done = build(tmp_path, GO=str(old))
    assert done.returncode == 127
    assert "is go1.22.4; Weaviate v1.39.0 needs Go 1.26+" in done.stderr
    assert not (tmp_path / "cache").exists()
