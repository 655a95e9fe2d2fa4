"""Process set-up at the entry point, before Prefect or litellm are imported.

Environment variables are the only way to configure some of them for a whole process, so this is
the one module that writes `os.environ`.
"""

from __future__ import annotations

import os
from pathlib import Path

QUIET = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no network fetch of the cost map at import
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "GX_ANALYTICS_ENABLED": "false",
    "PREFECT_UI_ENABLED": "false",  # an ephemeral server needs no UI assets
    "PREFECT_LOGGING_TO_API_BATCH_INTERVAL": "0.3",
}


def prepare(workspace: Path) -> str:
    """Point Prefect's result storage at the workspace; returns where runs go ("server URL" or "ephemeral")."""
    for name, value in QUIET.items():
        os.environ.setdefault(name, value)
    results = workspace / "results"
    results.mkdir(parents=True, exist_ok=True)
    os.environ["PREFECT_RESULTS_LOCAL_STORAGE_PATH"] = str(results)
    os.environ.setdefault("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "true")
    api = os.environ.get("PREFECT_API_URL")
    return f"Prefect server at {api}" if api else "Prefect ephemeral mode (no server running)"
