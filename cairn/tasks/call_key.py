"""Moved to `cairn.core.call_key`; kept until 0.5, so that what names the old path still imports."""

from __future__ import annotations

from cairn.core import call_key
from cairn.core.call_key import CallKey
from cairn.core.moved import moved

__all__ = ["CallKey"]

moved(__name__, call_key)
