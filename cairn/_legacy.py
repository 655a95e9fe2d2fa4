"""The import names of Cairn 0.1 (`flows`, `tasks`, `memory`), kept for one release.

Cairn 0.1 installed three top-level packages. Prefect pickled its task results with those module
names (`tasks.tools.base.ToolOutput`), so a workspace made by 0.1 holds results that only load if
`tasks.tools.base` still resolves. This finder makes the old names aliases of `cairn.*`, and only
as a last resort: a user's own `tasks.py`, `memory.py` or `flows/` is always found first, since
the finder sits at the end of `sys.meta_path` for top-level names. To be removed in 0.3.

>>> install_legacy_aliases()
>>> import importlib
>>> old, new = importlib.import_module("memory.models"), importlib.import_module("cairn.memory.models")
>>> old.Evidence is new.Evidence
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

LEGACY = ("flows", "tasks", "memory")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """The module already ran under its `cairn.` name; nothing runs twice."""


class _LegacyFinder(importlib.abc.MetaPathFinder):
    """Resolves `memory.models` to `cairn.memory.models` (the same module object)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        top = fullname.partition(".")[0]
        if top not in LEGACY:
            return None
        if fullname == top:
            if importlib.machinery.PathFinder.find_spec(top) is not None:
                return None  # someone else's `tasks`: theirs wins
        elif getattr(sys.modules.get(top), "__name__", None) != f"cairn.{top}":
            return None  # a submodule of someone else's package
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(f"cairn.{fullname}"))


def install_legacy_aliases() -> None:
    """Add the finder once. It goes first so that a legacy submodule never loads a second copy of
    a `cairn` module from the folder on disk; it declines every name that is not an alias."""
    if not any(isinstance(finder, _LegacyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _LegacyFinder())
