"""What the suite needs beyond Python, git and make: Debian packages that some end-to-end tests drive.

Chromium for the UI tests (`browser` marker; Playwright drives it, no browser is downloaded) and
PostgreSQL for the scale-out test (`scale_out`). Before any test runs (`tests/conftest.py`), each
package the selected tests need is found, or installed with apt-get when the suite runs as root, or
the run stops with one line saying what is missing and how to get it: never an error deep in a test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def chromium_path() -> Path:
    """Debian's Chromium (or `CAIRN_TEST_CHROMIUM`)."""
    chosen = os.environ.get("CAIRN_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    return Path(chosen)


def _postgres_found() -> bool:
    from cairn.flows.server.postgres import find_bin_dir

    return find_bin_dir() is not None


@dataclass(frozen=True)
class Need:
    marker: str  # the tests that need it
    package: str  # Debian's package
    what: str
    found: Callable[[], bool]


NEEDS = (
    Need("browser", "chromium", "Chromium for the UI tests", lambda: chromium_path().exists()),
    Need("scale_out", "postgresql", "PostgreSQL for the scale-out test", _postgres_found),
)


def ensure(need: Need, say: Callable[[str], None], timeout: float = 900.0) -> str | None:
    """None once the package is there (installed now if we may); else one line: what is missing
    and how to get it."""
    if need.found():
        return None
    how = (
        f"{need.what} is missing: run the tests as root (they install it with apt-get), or "
        f"`sudo apt-get install -y {need.package}`; `pytest -m 'not {need.marker}'` leaves those tests out"
    )
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return how
    say(f"installing Debian's {need.package} ({need.what}) with apt-get ...")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", need.package]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"`{' '.join(command)}` failed ({last}); {how}"
    return None if need.found() else f"apt-get installed {need.package}, but it is still not found; {how}"
