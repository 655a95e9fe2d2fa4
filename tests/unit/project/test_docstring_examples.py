"""Every `>>>` example in a `cairn` docstring runs, and shows what the code really does.

Examples in docstrings are documentation: a reader copies them and trusts their output. A stale one
(a renamed exception, a changed exit code, a rule added to a suite) misleads more than none, and
nothing else runs them, so this test does: one test per module of the `cairn` package, found by
walking the package, none left out. An example that needs what a test cannot have (a running
server, a network) is marked `# doctest: +SKIP` in its docstring, where the reader sees it.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import io
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import cairn

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _public_first(name: str) -> tuple[tuple[bool, str], ...]:
    # A package's public modules are imported before its private ones: a public face may register
    # its private parts before they load (`cairn.memory.store.contract` registers
    # `_contract_suite` for pytest's assert rewriting).
    return tuple((part.startswith("_"), part) for part in name.split("."))


def _walked() -> list[str]:
    """Every module and package under `cairn`, by the name it is found under."""

    def fail(name: str) -> None:
        raise ImportError(f"walking cairn: {name} could not be imported")

    found = pkgutil.walk_packages(cairn.__path__, f"{cairn.__name__}.", onerror=fail)
    return sorted([cairn.__name__, *(info.name for info in found)], key=_public_first)


def _runs_on_import(name: str) -> bool:
    """`python -m` entry points run their program when imported, so they are read, not imported."""
    return name.rpartition(".")[2] == "__main__"


def _real_names(walked: list[str]) -> list[str]:
    """Each module once, by its real `__name__` (a legacy alias is the same module object)."""
    names: dict[str, None] = {}
    for name in walked:
        if not _runs_on_import(name):
            names.setdefault(importlib.import_module(name).__name__, None)
    return list(names)


WALKED = _walked()
MODULES = _real_names(WALKED)
ENTRY_POINTS = [name for name in WALKED if _runs_on_import(name)]


def test_the_walk_finds_the_package() -> None:
    assert len(MODULES) > 100, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_show_what_the_code_does(name: str) -> None:
    module: ModuleType = importlib.import_module(name)
    report = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False, optionflags=OPTIONS)
    failed: list[str] = []
    for test in doctest.DocTestFinder().find(module):
        result = runner.run(test, out=report.write, clear_globs=True)
        if result.failed:
            failed.append(f"{test.name} (line {(test.lineno or 0) + 1}): {result.failed} failed")
    assert not failed, "stale docstring examples:\n" + "\n".join(failed) + "\n\n" + report.getvalue()


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_entry_points_hold_no_examples(name: str) -> None:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    source = Path(spec.origin).read_text(encoding="utf-8")
    assert ">>>" not in source, f"{name} runs on import, so its examples would never run"
