"""The completion suites: one Great Expectations suite per task type, read and checked for shape.

The suites are data (`validators/{task_type}.json`, GX's own suite format) so users can edit them
without touching code. Each expectation's `meta.requirement` names the requirement in the verdict
(expectations sharing a name form one requirement, met when all of them succeed); `meta.rows` names
the table it judges (`cairn.tasks.validation.frames`): one row per evidence item by default, or
per claim of the deliverable (`claims`), per part of the goal (`parts`) or per function the goal
names (`functions`).

"Exists" expectations use `expect_table_row_count_to_be_between` with `min_value` and a `row_condition`;
a row-level expectation with a condition passes when no row matches, so never use one for those.

Conditional expectations: one whose meta has `"when": "<flag>"` only applies when that flag
is true; otherwise it is left out of the run and reported as "not required". The one flag today
is `has_tests` (a test module was written).

>>> [e.requirement for e in load_suite(suite_path("simple_question")).expectations][:2]
['answer synthesized', 'answer file written']
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from cairn.core import CairnError

FLAGS = ("has_tests",)
ROWS = ("evidence", "claims", "parts", "functions")
_TYPE_NAME = re.compile(r"[a-z][a-z0-9_]*")


class SuiteError(CairnError, ValueError):
    """A suite file that is missing or cannot be understood; the message is one line."""


@dataclass(frozen=True)
class Expectation:
    index: int  # position in the suite file, for error messages
    requirement: str
    config: dict[str, Any]  # GX expectation configuration: type, kwargs, meta
    when: str | None = None
    rows: str = "evidence"  # the table it judges: one of ROWS


@dataclass(frozen=True)
class Suite:
    name: str
    path: Path
    expectations: tuple[Expectation, ...]


def has_tests(paths: Iterable[str]) -> bool:
    """The `has_tests` flag: whether the task wrote a test module, by pytest's default names
    (`test_*.py`, `*_test.py`).

    >>> has_tests(["slugify.py", "tests/test_slugify.py"]), has_tests(["testing-notes.md", "src/app.py"])
    (True, False)
    """
    names = (PurePosixPath(path).name for path in paths)
    return any(
        name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")) for name in names
    )


def default_suite_dirs() -> tuple[Path, ...]:
    """Where the shipped suites live: `cairn/validators`, in a wheel and in a checkout alike."""
    return (Path(__file__).resolve().parents[2] / "validators",)


def suite_path(task_type: str, suites_dir: Path | None = None) -> Path:
    """The suite file for a task type; an explicit `suites_dir` is authoritative (no fallback)."""
    if not _TYPE_NAME.fullmatch(task_type):
        raise SuiteError(f"invalid task type {task_type!r}")
    name = f"{task_type}.json"
    if suites_dir is not None:
        path = Path(suites_dir) / name
        if not path.is_file():
            raise SuiteError(f"no suite for task type {task_type!r}: {path} does not exist")
        return path
    # Look for the file, not the folder: in an installed wheel, site-packages/validators is the PyPI
    # `validators` package (a weaviate-client dependency), not ours.
    for folder in default_suite_dirs():
        if (folder / name).is_file():
            return folder / name
    places = ", ".join(str(folder) for folder in default_suite_dirs())
    raise SuiteError(f"no suite for task type {task_type!r} in {places}")


def requirements(task_type: str, suites_dir: Path | None = None) -> list[str]:
    """What "complete" means for a task type, one line per requirement of its suite (with the
    suite's hint on how to meet it), for the planner to see before any evidence exists.

    >>> requirements("simple_question")[1]
    'answer file written: the answer is written to a file: `answer` writes answer.md'
    """
    suite = load_suite(suite_path(task_type, suites_dir))
    lines: dict[str, str] = {}  # one line per requirement, with the first hint its expectations give
    for entry in suite.expectations:
        hint = str(entry.config["meta"].get("hint") or "")
        when = f" (when {entry.when.replace('_', ' ')})" if entry.when else ""
        line = f"{entry.requirement}{when}: {hint}" if hint else f"{entry.requirement}{when}"
        if entry.requirement not in lines or (hint and ":" not in lines[entry.requirement]):
            lines[entry.requirement] = line
    return list(lines.values())


def load_suite(path: Path) -> Suite:
    """Read a suite file and check its shape; GX checks the expectations themselves at run time."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SuiteError(f"{path}: cannot read suite: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise SuiteError(f"{path}: not valid JSON: {exc.msg} at {where}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("expectations"), list):
        raise SuiteError(f"{path}: a suite must be a JSON object with an 'expectations' list")
    if not raw["expectations"]:
        # An empty suite would declare every task complete at once.
        raise SuiteError(f"{path}: the suite has no expectations")
    expectations = tuple(_expectation(path, index, item) for index, item in enumerate(raw["expectations"]))
    return Suite(name=str(raw.get("name") or path.stem), path=path, expectations=expectations)


def _expectation(path: Path, index: int, item: Any) -> Expectation:
    where = f"{path}: expectation {index}"
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        raise SuiteError(f"{where}: needs a 'type' string")
    if not isinstance(item.get("kwargs", {}), dict) or not isinstance(item.get("meta", {}), dict):
        raise SuiteError(f"{where} ({item['type']}): 'kwargs' and 'meta' must be objects")
    meta = dict(item.get("meta", {}))
    when = meta.get("when")
    if when is not None and when not in FLAGS:
        raise SuiteError(f"{where} ({item['type']}): unknown 'when' flag {when!r}; known: {', '.join(FLAGS)}")
    rows = str(meta.get("rows") or "evidence")
    if rows not in ROWS:
        raise SuiteError(f"{where} ({item['type']}): unknown 'rows' {rows!r}; known: {', '.join(ROWS)}")
    requirement = str(meta.get("requirement") or item["type"])
    meta["requirement"] = requirement  # results are matched back to requirements by this name
    config = {"type": item["type"], "kwargs": dict(item.get("kwargs", {})), "meta": meta}
    return Expectation(index=index, requirement=requirement, config=config, when=when, rows=rows)
