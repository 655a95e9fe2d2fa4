"""Moved to `cairn.core.fsnames`; kept until 0.5, so that what names the old path still imports."""

from __future__ import annotations

from cairn.core import fsnames
from cairn.core.fsnames import displayable, displayable_data, from_displayable, has_surrogates
from cairn.core.moved import moved

__all__ = ["displayable", "displayable_data", "from_displayable", "has_surrogates"]

moved(__name__, fsnames)
