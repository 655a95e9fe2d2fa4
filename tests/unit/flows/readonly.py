"""A read-only directory for a test, whoever runs it.

A normal user gets it from the mode bits. Root ignores mode bits, so for root the command runs in
a private mount namespace where the directory is bind-mounted read-only (`unshare`, util-linux):
the kernel then refuses every write with EROFS, as on a read-only file system.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

_REMOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'


@contextmanager
def read_only(directory: Path) -> Iterator[list[str]]:
    """Yields the prefix to put before a command so that it sees `directory` read-only."""
    if os.geteuid() != 0:
        mode = directory.stat().st_mode
        directory.chmod(0o555)
        try:
            yield []
        finally:
            directory.chmod(mode)
        return
    prefix = ["unshare", "--mount", "--propagation", "private", "sh", "-c", _REMOUNT, str(directory)]
    probe = subprocess.run([*prefix, "true"], capture_output=True, text=True)
    if shutil.which("unshare") is None or probe.returncode != 0:
        pytest.skip(f"running as root without a way to mount read-only: {probe.stderr.strip()[:200]}")
    yield prefix
