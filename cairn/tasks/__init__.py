"""What a task's iterations run: the model client and its messages (`model`, `messages`), tools
(`tools`, `toolset`), grounding (`grounding`, `task_grounding`), validation (`validation`), the
offline model. Plain functions, no Prefect: the Prefect tasks that wrap the calls are
`cairn.flows.prefect.tasks`. The package keeps the name of Cairn 0.1's top-level `tasks`
(`cairn._legacy` reads its old results); everywhere else a task is a Cairn task, one goal run to its end.

>>> RunConfig(workspace="ws").model
'cairn/offline'
"""

from __future__ import annotations

from cairn.core import CallKey, RunConfig
from cairn.tasks.deps import Deps, deps_for

__all__ = ["CallKey", "Deps", "RunConfig", "deps_for"]
