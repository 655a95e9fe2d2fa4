"""Moved to `cairn.core.errors`; kept until 0.5, so that what names the old path still imports."""

from __future__ import annotations

from cairn.core import errors
from cairn.core.errors import CairnError, NotFound, UsageError
from cairn.core.moved import moved

__all__ = ["CairnError", "NotFound", "UsageError"]

moved(__name__, errors)
