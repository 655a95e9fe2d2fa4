"""Cairn flows: the task loop, one BFS iteration, loop policy, the CLI.

>>> from cairn.flows import RunConfig, run_task
>>> result = run_task("How big is the reservoir?", RunConfig(workspace="ws"))  # doctest: +SKIP

Names are imported on first use: Prefect takes seconds to import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn._faces import lazy_names

if TYPE_CHECKING:
    from cairn.core import RunConfig
    from cairn.flows.prefect.flow import TaskResult, run_task

__all__ = ["RunConfig", "TaskResult", "run_task"]
_WHERE = {
    "run_task": "cairn.flows.prefect.flow",
    "TaskResult": "cairn.flows.prefect.flow",
    "RunConfig": "cairn.core",
}

__getattr__ = lazy_names(__name__, _WHERE)
