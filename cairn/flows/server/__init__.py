"""The Prefect server as processes: started, checked, stopped; ephemeral or on PostgreSQL.

No Prefect import: these run and watch `prefect server start` from the outside.
"""

from __future__ import annotations

from cairn.flows.server.ephemeral import start_ephemeral
from cairn.flows.server.server import ServerInfo, start_server, stop_server

__all__ = ["ServerInfo", "start_ephemeral", "start_server", "stop_server"]
