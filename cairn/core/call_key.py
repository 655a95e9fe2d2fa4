"""The identity of a call: within a task across runs (`CallKey`), and among candidates (`call_signature`).

A call's key is task id / iteration / call index / kind, never a run id: a new run of the same
task (`cairn resume`, Retry in the UI) finds the results of the calls that already finished.

>>> str(CallKey(task_id="alder-3f9a", iteration=2, index=1, kind="tool"))
'alder-3f9a/2/1/tool'
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict

from cairn.core.frozen import JsonValue


class CallKey(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: str
    iteration: int
    index: int
    kind: str  # "tool", "plan", "compress", "synthesize", ...

    def __str__(self) -> str:
        return f"{self.task_id}/{self.iteration}/{self.index}/{self.kind}"


def call_signature(tool: str, params: dict[str, JsonValue]) -> str:
    """Identity of a call for duplicate detection: tool plus canonical params.

    >>> call_signature("read_file", {"path": "a.md"})
    'read_file:{"path": "a.md"}'
    """
    return f"{tool}:{json.dumps(params, sort_keys=True, default=str)}"
