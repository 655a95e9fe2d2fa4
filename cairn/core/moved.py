"""Old module paths that moved into `cairn.core`: each still imports, with a warning naming the new
path, until 0.5.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     moved("cairn.errors", "cairn.core.errors")
>>> str(caught[0].message)
'cairn.errors moved to cairn.core.errors; the old path goes in Cairn 0.5'
"""

from __future__ import annotations

import warnings
from types import ModuleType


def moved(old: str, new: ModuleType | str) -> None:
    """Warn the importer of `old` (called from the old module's body) that it is now `new` (the
    module itself, so that the arrow is an import the layering test sees)."""
    where = new if isinstance(new, str) else new.__name__
    message = f"{old} moved to {where}; the old path goes in Cairn 0.5"
    warnings.warn(message, DeprecationWarning, stacklevel=3)


__all__ = ["moved"]
