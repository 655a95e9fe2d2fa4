"""The identity of one call within a task, and so of its result across runs.

A call's key is task id / iteration / call index / kind, never a run id: a new run of the same
task (`cairn resume`, Retry in the UI) finds the results of the calls that already finished.

>>> str(CallKey(task_id="alder-3f9a", iteration=2, index=1, kind="tool"))
'alder-3f9a/2/1/tool'
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CallKey(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: str
    iteration: int
    index: int
    kind: str  # "tool", "plan", "compress", "synthesize", ...

    def __str__(self) -> str:
        return f"{self.task_id}/{self.iteration}/{self.index}/{self.kind}"
