"""Labelled items a judge is measured on: a question, a quoted line, a value, and whether the line
states that value as the answer (`label`); `group` is the article or conversation it comes from,
so that held-out folds never share one.

>>> item = LabelledItem(question="Who?", line="Ann wrote it.", value="Ann", label=True, group="doc-1")
>>> item.label, item.group
(True, 'doc-1')
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from cairn.core import UsageError

SHIPPED = Path(__file__).resolve().parent / "data" / "labelled.jsonl"  # bench/calibration_set.py writes it


class LabelledItem(BaseModel):
    """One labelled (question, line, value); other keys of a line (`source`, `kind`) are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    question: str = Field(min_length=1)
    line: str = Field(min_length=1)
    value: str = Field(min_length=1)
    label: StrictBool  # the line states the value as the answer to the question
    group: str = Field(min_length=1)  # the document it comes from: folds split by group


class BadLabelledFile(UsageError):
    """A `--questions` file that is missing, not JSONL of labelled items, or holds one label only."""


def read_items(path: Path) -> list[LabelledItem]:
    """The items of a JSONL file, one object a line; raises `BadLabelledFile` naming the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadLabelledFile(f"cannot read {path}: {type(exc).__name__}") from None
    items = [_item(path, n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if {i.label for i in items} != {True, False}:
        raise BadLabelledFile(f"{path}: needs items labelled true and items labelled false")
    return items


def set_name(path: Path) -> str:
    """What a calibration was measured on: `shipped` or the file's path, and its content's hash."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    name = "shipped" if path.resolve() == SHIPPED else str(path.resolve())
    return f"{name} sha256:{digest}"


def _item(path: Path, number: int, line: str) -> LabelledItem:
    try:
        return LabelledItem.model_validate(json.loads(line))
    except json.JSONDecodeError as exc:
        raise BadLabelledFile(f"{path}:{number}: not JSON ({exc.msg})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "line"
        raise BadLabelledFile(f"{path}:{number}: {where}: {first['msg']}") from None
