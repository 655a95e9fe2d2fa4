"""What a request asks the provider for, so that its reply is JSON of the kind's schema: the
schema itself (in the strict form where one exists), JSON mode, or nothing.

>>> response_format_for("cairn/offline", "plan", "auto") is None  # the prompt carries the schema
True
"""

from __future__ import annotations

from typing import Any

from cairn.tasks.messages import prompts
from cairn.tasks.messages.schemas import OUTPUTS, CallKind, ResponseFormat
from cairn.tasks.model.capabilities import served, supports_json_mode, supports_response_schema


def response_format_for(model: str, kind: CallKind, mode: ResponseFormat) -> dict[str, Any] | None:
    """What to ask the provider for: the reply's JSON schema where it takes one (`auto` asks
    litellm), else JSON mode where it has that, else nothing (the prompt carries the schema)."""
    if (
        not served(model)
        or mode == "none"
        or kind in prompts.FILE_REPLIES | prompts.YES_NO | prompts.PLAIN_REPLIES | prompts.DOCSTRINGS
    ):
        return None
    if mode == "auto":
        mode = "json_schema" if supports_response_schema(model) else "json_object"
        if mode == "json_object" and not supports_json_mode(model):
            return None
    if mode == "json_object":
        return {"type": "json_object"}
    schema, strict = strict_schema(OUTPUTS[kind].model_json_schema())
    spec = {"name": f"cairn_{kind}", "schema": schema, "strict": strict}
    return {"type": "json_schema", "json_schema": spec}


def strict_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema in the form strict structured outputs require (every property required, no
    other properties), and whether that form exists: a free-form object (a tool's `params`) has
    none, so such a schema is sent as it is, not strict.

    >>> schema = {"type": "object", "properties": {"a": {"type": "string", "default": ""}}}
    >>> closed, strict = strict_schema(schema)
    >>> closed["required"], closed["additionalProperties"], strict
    (['a'], False, True)
    """
    if _has_open_object(schema):
        return schema, False
    return _closed(schema), True


def _has_open_object(node: Any) -> bool:
    if isinstance(node, dict):
        open_object = node.get("type") == "object" and "properties" not in node
        return open_object or any(_has_open_object(v) for v in node.values())
    return isinstance(node, list) and any(_has_open_object(v) for v in node)


def _closed(node: Any) -> Any:
    if isinstance(node, list):
        return [_closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _closed(v) for k, v in node.items() if k not in ("default", "title")}
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out
