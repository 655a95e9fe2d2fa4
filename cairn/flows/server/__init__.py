"""The Prefect server as processes: started, checked, stopped; ephemeral or on PostgreSQL.

No Prefect import: these run and watch `prefect server start` from the outside.
"""

from __future__ import annotations

from cairn.flows.server.ephemeral import START_TIMEOUT_S, configured_api_url, owns, start_ephemeral
from cairn.flows.server.server import (
    SERVER_TUNING,
    ServerError,
    ServerInfo,
    alive,
    healthy,
    info_path,
    read_info,
    start_server,
    status_payload,
    stop_process_group,
    stop_server,
    wait_until_healthy,
)

__all__ = [
    "SERVER_TUNING",
    "START_TIMEOUT_S",
    "ServerError",
    "ServerInfo",
    "alive",
    "configured_api_url",
    "healthy",
    "info_path",
    "owns",
    "read_info",
    "start_ephemeral",
    "start_server",
    "status_payload",
    "stop_process_group",
    "stop_server",
    "wait_until_healthy",
]
