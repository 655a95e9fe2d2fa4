"""The Prefect server a run talks to, as the run's guard (`cairn.flows.cli.guard`) watches it.

Three kinds, each gone in its own way and resumed in its own way: the `temporary` server this
process started (`cairn.flows.server.ephemeral`: gone when its process exits), the one `cairn
server start` keeps (`cairn`), or `yours` (`PREFECT_API_URL`, Prefect's settings). A server is
`up` when anything answers HTTP, `busy` when a connection is taken but no answer comes in time
(a loaded machine: not a reason to stop), `gone` when nothing accepts the connection (refused, or
its host unreachable or silent).

>>> Server("http://127.0.0.1:9/api", "yours").look()
'gone'
"""

from __future__ import annotations

import os
import socket
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cairn.flows.server.ephemeral import configured_api_url, owned
from cairn.flows.server.server import read_info

Kind = Literal["temporary", "cairn", "yours"]
Look = Literal["up", "busy", "gone"]


@dataclass(frozen=True)
class Server:
    api_url: str
    kind: Kind
    process: subprocess.Popen[bytes] | None = None  # the temporary server's
    timeout_s: float = 2.0

    @property
    def poll_s(self) -> float:
        """How often to look: a process of ours costs nothing to ask, a request costs the server."""
        return 0.5 if self.process is not None else 1.0

    def dead(self) -> bool:
        """The temporary server's process has exited (no waiting: it is certain)."""
        return self.process is not None and self.process.poll() is not None

    def look(self) -> Look:
        if self.dead():
            return "gone"
        where = urllib.parse.urlsplit(self.api_url)
        port = where.port or (443 if where.scheme == "https" else 80)
        try:  # nothing accepts the connection (refused, unreachable, no answer in time): gone
            socket.create_connection((where.hostname or "localhost", port), timeout=self.timeout_s).close()
        except OSError:
            return "gone"
        try:
            with urllib.request.urlopen(f"{self.api_url}/health", timeout=self.timeout_s):
                return "up"
        except urllib.error.HTTPError:
            return "up"  # it answered, if not with 200
        except urllib.error.URLError as exc:
            return "busy" if isinstance(exc.reason, TimeoutError) else "gone"
        except TimeoutError:
            return "busy"  # connected, and no answer yet: a loaded server
        except OSError:
            return "gone"  # the connection reset

    def described(self) -> str:
        if self.kind == "temporary":
            return f"the temporary Prefect server this run started ({self.api_url})"
        if self.kind == "cairn":
            return f"the Prefect server of `cairn server start` ({self.api_url})"
        return f"your Prefect server at {self.api_url}"

    def resume_hint(self, resume: str) -> str:
        if self.kind == "yours":
            return f"start it again, then continue with `{resume}`"
        return f"continue with `{resume}`, which finds a running server or starts a temporary one"


def server_for(home: Path, cwd: Path) -> Server | None:
    """The server `cairn.flows.runtime.prepare` pointed this process at (None: none is known)."""
    api = os.environ.get("PREFECT_API_URL") or configured_api_url(os.environ, cwd)
    if not api:
        return None
    if (temporary := owned(api)) is not None:
        return Server(api, "temporary", temporary.process)
    info = read_info(home)
    return Server(api, "cairn" if info is not None and info.api_url == api else "yours")
