"""Cairn's steps as plain functions: model client and messages (`model`, `messages`), tools (`tools`,
`toolset`), grounding (`grounding`, `task_grounding`), validation (`validate`), the offline model.
Prefect runs them from `cairn.flows.prefect`; nothing here imports Prefect.

>>> RunConfig(workspace="ws").model
'cairn/offline'
"""

from __future__ import annotations

from cairn.tasks.call_key import CallKey
from cairn.tasks.deps import Deps, RunConfig, deps_for

__all__ = ["CallKey", "Deps", "RunConfig", "deps_for"]
