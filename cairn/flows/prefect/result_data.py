"""Results persisted as data: Cairn's own Prefect serializer, and older records read once as data.

Every result Cairn persists (a tool's `ToolOutput`, a model's reply, an iteration's summary, a
task's `TaskResult`) is
written as JSON under a type tag of Cairn's (`{"type": "tool-output", "data": {...}}`), never a
Python class path: a class that moves or is renamed leaves old runs readable. Prefect's own JSON
serializer stores `__class__` paths, and its pickle serializer (what Cairn used through 0.3)
stores them in the pickle. Prefect records the serializer's `type` ("cairn") beside each result
and finds this class by it when it reads one back.

A record an older Cairn pickled is rewritten as data the first time Cairn opens it
(`upgrade_task_results`, `upgrade_record`), read through `cairn._legacy.load_old_pickle`, which
knows the module names of 0.1 and 0.2; nothing else ever reads a pickle.

>>> serializer = ResultSerializer()
>>> blob = serializer.dumps(ToolOutput(text="12 rows"))
>>> blob.decode()[:48]
'{"type": "tool-output", "data": {"text": "12 row'
>>> serializer.loads(blob) == ToolOutput(text="12 rows")
True
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from prefect.serializers import Serializer
from pydantic import BaseModel, Field

from cairn._legacy import load_old_pickle
from cairn.flows.loop.cycle import TaskResult
from cairn.flows.loop.iteration import IterationSummary
from cairn.tasks.messages.schemas import OUTPUTS
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools.base import ToolOutput

Reply = LLMResult[Any]


def _reply(data: dict[str, Any]) -> Reply:
    """A model's reply: its output is the schema its call kind answers with (`OUTPUTS`)."""
    output = data.get("output")
    if output is not None:
        output = OUTPUTS[data["kind"]].model_validate(output)
    return Reply.model_validate({**data, "output": output})


class FailedResult(RuntimeError):
    """An exception Prefect persisted for a failed run, read back: its type's name and message."""


def _failure(data: dict[str, Any]) -> FailedResult:
    return FailedResult(f"{data['error']}: {data['message']}")


# The stable tag of each kind of result, and how it is read back. A tag is never renamed or
# reused: an old run's records carry it.
READERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "tool-output": ToolOutput.model_validate,
    "model-reply": _reply,
    "iteration-summary": IterationSummary.model_validate,
    "task-result": TaskResult.model_validate,  # a task's flow run, when a worker persists it
    "failure": _failure,
}
TAGS: dict[type[BaseModel], str] = {
    ToolOutput: "tool-output",
    LLMResult: "model-reply",
    IterationSummary: "iteration-summary",
    TaskResult: "task-result",
}


def to_data(value: Any) -> dict[str, Any]:
    """`{"type": tag, "data": ...}` for a result Cairn persists; a TypeError for anything else."""
    if isinstance(value, BaseException):  # Prefect persists a failed run's exception too
        return {"type": "failure", "data": {"error": type(value).__name__, "message": str(value)}}
    kind = type(value)
    origin = getattr(kind, "__pydantic_generic_metadata__", {}).get("origin") or kind
    tag = TAGS.get(origin)
    if tag is None or not isinstance(value, BaseModel):
        raise TypeError(f"Cairn persists no {kind.__qualname__}: give it a tag in result_data.TAGS")
    return {"type": tag, "data": value.model_dump(mode="json")}


def from_data(record: dict[str, Any]) -> Any:
    return READERS[record["type"]](record["data"])


# Not `Serializer[Any]`: Prefect registers each subclass by its type, and a parametrised one has none.
class ResultSerializer(Serializer):
    """Prefect's `Serializer` for Cairn's results (`result_serializer=` of its tasks and flows).

    JSON is written ASCII-only, so a lone surrogate a tool read from undecodable bytes survives
    the round trip instead of failing the write."""

    type: str = Field(default="cairn", frozen=True)
    model_config: ClassVar[Any] = {"extra": "forbid"}

    def dumps(self, obj: Any) -> bytes:
        return json.dumps(to_data(obj), ensure_ascii=True).encode("ascii")

    def loads(self, blob: bytes) -> Any:
        return from_data(json.loads(blob))


SERIALIZER = ResultSerializer()


def upgrade_record(path: Path) -> bool:
    """Rewrite a result record an older Cairn pickled as data, in place (atomically: a kill leaves
    the old record or the new one). False when there is nothing to do (no record, already data).

    The record keeps Prefect's layout (`metadata`, `result`); only its serializer and result change."""
    try:
        record = json.loads(path.read_bytes())
        serializer = record["metadata"]["serializer"]
    except (OSError, ValueError, KeyError, TypeError):
        return False  # no record, or not one of Prefect's: Prefect says what it makes of it
    if serializer.get("type") != "pickle":
        return False
    value = load_old_pickle(base64.decodebytes(record["result"].encode("ascii")))
    record["metadata"]["serializer"] = SERIALIZER.model_dump()
    record["result"] = SERIALIZER.dumps(value).decode("ascii")
    fresh = path.with_name(f".{path.name}.upgrading")
    fresh.write_text(json.dumps(record), encoding="ascii")
    os.replace(fresh, path)
    return True


def upgrade_task_results(results: Path, task_id: str) -> int:
    """Upgrade every record of the task's calls under `results` (`results/cairn/{task_id}/...`);
    how many were pickles. Run when the task's flow starts, before any call is looked up."""
    folder = results / "cairn" / task_id
    if not folder.is_dir():
        return 0
    return sum(upgrade_record(path) for path in sorted(folder.rglob("*")) if path.is_file())
