"""Faces that load on first use: a package whose names would cost seconds to import (Prefect, the
tools a user's tool file imports) names each one's module and imports it when the name is asked for.

>>> get = lazy_names("demo", {"dedent": "textwrap"})
>>> get("dedent")("  x")
'x'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name in `where` comes from the module named beside it."""

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(where[name]), name)

    return __getattr__
