"""Judge a task's evidence against its completion suite: one Great Expectations suite per task type.

The suites are data (`validators/{task_type}.json`, GX's own suite format) so users can edit them
without touching code. Each expectation runs against a pandas DataFrame: by default one row per
evidence item, or, with `meta.rows`, one row per claim of the deliverable (`claims`), per part of
the goal (`parts`) or per function the goal names (`functions`; see `cairn.tasks.grounding`). Its
`meta.requirement` names the requirement in the verdict (expectations sharing a name form one
requirement, met when all of them succeed). Evidence columns, derived here so the suites stay simple:

- `evidence_id`, `type`, `confidence`, `source`, `iteration`, `timestamp`: from `Evidence`
- `file_path`, `file_type`, `tool`, `passed`, `failed`, `documented_share`: from its metadata
  (`passed`/`failed`/`documented_share` are NaN when unknown, so no comparison matches them)
- `cites_count`: how many sources the evidence cites
- `is_code_write`: a `file_creation` of a code file
- `is_doc_artifact`: `documentation` evidence, or a `file_creation` of a documentation file
- `after_last_code_write`: (iteration, timestamp) later than the last code write (True if none)

"Exists" expectations use `expect_table_row_count_to_be_between` with `min_value` and a `row_condition`;
a row-level expectation with a condition passes when no row matches, so never use one for those.

Claim rows: `text`, `kind`, `status` (supported, computed, unsupported), `where`. Part rows:
`part`, `answered`, `clause`. Function rows: `name`, `defined`, `exercised`, `test_run`. A failed
expectation over these rows names each row it failed on (`Verdict.unmet`: "6.43 ms is in no file read").

Conditional expectations: one whose meta has `"when": "<flag>"` only applies when that flag
is true; otherwise it is left out of the run and reported as "not required". The one flag today
is `has_tests` (a test module was written).

Confidence comes from the checks, not from how many rows there are: the share of requirements met
x the share of claims supported x the share of parts answered x the share of named functions
exercised (each 1 where it does not apply).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from cairn.errors import CairnError
from cairn.memory.models import Claim, Evidence, FunctionCheck, PartCheck, TaskType, Verdict, content_hash

if TYPE_CHECKING:
    import pandas as pd

FLAGS = ("has_tests",)
ROWS = ("evidence", "claims", "parts", "functions")
_TYPE_NAME = re.compile(r"[a-z][a-z0-9_]*")
_ROW_COUNT = "expect_table_row_count_to_be_between"
_LOCK = threading.Lock()  # one GX context per process; GX objects are not safe to share across threads
_batch_definition: Any = None


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
class Checked:
    """What was checked of the deliverable (`cairn.tasks.grounding`): the rows of the claim, part
    and function tables."""

    claims: Sequence[Claim] = ()
    parts: Sequence[PartCheck] = ()
    functions: Sequence[FunctionCheck] = ()


@dataclass(frozen=True)
class Suite:
    name: str
    path: Path
    expectations: tuple[Expectation, ...]


@dataclass
class Requirement:
    name: str
    details: list[str] = field(default_factory=list)
    met: bool = True
    failed_rows: list[str] = field(default_factory=list)  # what each failing row says


def validate(
    task_type: TaskType,
    evidence: Sequence[Evidence],
    *,
    has_tests: bool = False,
    suites_dir: Path | None = None,
    iteration: int = 0,
    checked: Checked | None = None,
) -> Verdict:
    """Run the suite for `task_type` over `evidence` (and the rows `checked` of the deliverable)
    and explain the outcome.

    Raises `SuiteError` when the suite file is missing or broken.

    >>> ev = [Evidence(type="synthesis", content="42", source="call-1-0")]
    >>> verdict = validate("simple_question", ev)
    >>> verdict.complete, verdict.missing
    (False, ['answer file written', 'every part of the goal answered'])
    """
    suite = load_suite(suite_path(task_type, suites_dir))
    checked = checked or Checked()
    flags = {"has_tests": has_tests}
    applies = [entry.when is None or flags[entry.when] for entry in suite.expectations]
    applied = [entry for entry, keep in zip(suite.expectations, applies, strict=True) if keep]
    skipped = [entry for entry, keep in zip(suite.expectations, applies, strict=True) if not keep]
    checks = _run(suite, applied, _frames(evidence, checked))
    requirements = _requirements(applied, checks)
    met = [req.name for req in requirements if req.met]
    missing = [req.name for req in requirements if not req.met]
    used = {entry.rows for entry in applied}
    return Verdict(
        complete=not missing,
        confidence=_confidence(len(met), len(requirements), checked, used),
        rationale=_rationale(requirements, skipped),
        satisfied=met,
        missing=missing,
        suite=suite.name,
        validation_id=_validation_id(suite.name, iteration, evidence),
        iteration=iteration,
        unmet=_unmet(requirements),
        claims=list(checked.claims) if "claims" in used else [],
        parts=list(checked.parts) if "parts" in used else [],
        functions=list(checked.functions) if "functions" in used else [],
    )


def has_tests(paths: Iterable[str]) -> bool:
    """Whether the task wrote a test module, by pytest's default names (`test_*.py`, `*_test.py`).

    >>> has_tests(["slugify.py", "tests/test_slugify.py"]), has_tests(["testing-notes.md", "src/app.py"])
    (True, False)
    """
    names = (PurePosixPath(path).name for path in paths)
    return any(
        name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")) for name in names
    )


# --- suites -------------------------------------------------------------------------------------


def default_suite_dirs() -> tuple[Path, ...]:
    """Where the shipped suites live: `cairn/validators`, in a wheel and in a checkout alike."""
    return (Path(__file__).resolve().parents[1] / "validators",)


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


# --- evidence -----------------------------------------------------------------------------------

_DTYPES = {
    "evidence_id": "object", "type": "object", "confidence": "float64", "source": "object",
    "iteration": "int64", "timestamp": "float64", "file_path": "object", "file_type": "object",
    "tool": "object", "passed": "float64", "failed": "float64", "documented_share": "float64",
    "cites_count": "int64", "is_code_write": "bool", "is_doc_artifact": "bool",
    "after_last_code_write": "bool",
}  # fmt: skip


def current(evidence: Sequence[Evidence]) -> list[Evidence]:
    """The evidence that still says something: of each file, the latest of each type (a file
    written again supersedes itself: a long task rewrites its report every iteration), and the
    latest validation; every test run and tool result, in order.

    >>> from cairn.memory.models import EvidenceMetadata
    >>> meta = EvidenceMetadata(file_path="report.md")
    >>> def wrote(n: int) -> Evidence:
    ...     return Evidence(type="file_creation", content=f"v{n}", source=f"c{n}", iteration=n, metadata=meta)
    >>> [e.content for e in current([wrote(1), wrote(2)])]
    ['v2']
    """
    latest: dict[object, Evidence] = {}
    for item in evidence:
        if item.metadata.file_path:
            key: object = (item.type, item.metadata.file_path)
        else:
            key = item.type if item.type == "validation" else item.evidence_id
        latest.pop(key, None)
        latest[key] = item
    return list(latest.values())


def evidence_frame(evidence: Sequence[Evidence]) -> pd.DataFrame:
    """One row per evidence item with the columns the suites may use (see the module docstring)."""
    import pandas as pd  # imported on first validation, like GX, to keep `import tasks` cheap

    evidence = current(evidence)
    writes = [(e.iteration, e.timestamp) for e in evidence if _is_code_write(e)]
    last_write = max(writes) if writes else None
    rows = [_row(item, last_write) for item in evidence]
    return pd.DataFrame(rows, columns=list(_DTYPES)).astype(_DTYPES)


def _row(e: Evidence, last_write: tuple[int, float] | None) -> dict[str, Any]:
    meta = e.metadata
    nan = float("nan")
    return {
        "evidence_id": e.evidence_id, "type": e.type, "confidence": e.confidence, "source": e.source,
        "iteration": e.iteration, "timestamp": e.timestamp, "file_path": meta.file_path,
        "file_type": meta.file_type, "tool": meta.tool,
        "passed": nan if meta.passed is None else meta.passed,
        "failed": nan if meta.failed is None else meta.failed,
        "documented_share": nan if meta.documented_share is None else meta.documented_share,
        "cites_count": len(meta.cites), "is_code_write": _is_code_write(e),
        "is_doc_artifact": e.type == "documentation"
        or (e.type == "file_creation" and meta.file_type == "documentation"),
        "after_last_code_write": last_write is None or (e.iteration, e.timestamp) > last_write,
    }  # fmt: skip


def _is_code_write(e: Evidence) -> bool:
    return e.type == "file_creation" and e.metadata.file_type == "code"


def _frames(evidence: Sequence[Evidence], checked: Checked) -> dict[str, pd.DataFrame]:
    """Every table an expectation may judge, by its `rows` name; `label` says what a failing row means."""

    claims = [
        {"text": c.text, "kind": c.kind, "status": c.status, "where": c.where, "label": c.reason()}
        for c in checked.claims
    ]
    parts = [
        {"part": p.part, "answered": p.answered, "clause": p.clause, "label": _part_label(p)}
        for p in checked.parts
    ]
    functions = [
        {**f.model_dump(), "label": _function_label(f.name, f.defined, f.test_run)} for f in checked.functions
    ]
    return {
        "evidence": evidence_frame(evidence),
        "claims": _table(claims, {"text": "object", "kind": "object", "status": "object", "where": "object"}),
        "parts": _table(parts, {"part": "object", "answered": "bool", "clause": "object"}),
        "functions": _table(
            functions, {"name": "object", "defined": "bool", "exercised": "bool", "test_run": "object"}
        ),
    }


def _table(rows: list[dict[str, Any]], dtypes: dict[str, str]) -> pd.DataFrame:
    import pandas as pd

    columns = {**dtypes, "label": "object"}
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def _part_label(part: PartCheck) -> str:
    if part.why.startswith(part.part):  # says it whole: "test_x.py is not written"
        return part.why
    return f"not answered: {part.part}" + (f" ({part.why})" if part.why else "")


def _function_label(name: str, defined: bool, test_run: str) -> str:
    if not defined:
        return f"{name} is not defined in any file written"
    if not test_run:
        return f"{name}: no test run passed after the last code change"
    return f"{name} is not called by the passing test run {test_run}"


# --- running GX ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    requirement: str
    success: bool
    detail: str
    failed_rows: tuple[str, ...] = ()  # the `label` of each row the expectation failed on


def _run(
    suite: Suite, expectations: Sequence[Expectation], frames: Mapping[str, pd.DataFrame]
) -> list[Check]:
    """Each expectation run against its table; one GX validation per table the suite uses."""
    checks: list[Check] = []
    with _LOCK:
        definition = _ensure_context()
        built = _gx_expectations(suite)  # all of them: a broken expectation fails even when skipped
        for rows in ROWS:
            chosen = [entry for entry in expectations if entry.rows == rows]
            if not chosen:
                continue
            gx_suite = _gx_suite(f"{suite.name}-{rows}", [built[entry.index] for entry in chosen])
            frame = frames[rows]
            result = definition.get_batch(batch_parameters={"dataframe": frame}).validate(gx_suite)
            checks += [_check(item, frame) for item in result.results]
    return checks


def _ensure_context() -> Any:
    """The batch definition of this process's one ephemeral GX context, created on first use."""
    global _batch_definition
    if _batch_definition is None:
        # The one place library code touches os.environ: GX 1.x releases that collect usage
        # analytics read this variable when imported (the build tested here has none, so it is
        # then a no-op); setdefault keeps a user's own choice.
        os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        context = gx.get_context(mode="ephemeral")
        context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        asset = context.data_sources.add_pandas("cairn").add_dataframe_asset("evidence")
        _batch_definition = asset.add_batch_definition_whole_dataframe("all-evidence")
    return _batch_definition


def _gx_expectations(suite: Suite) -> list[Any]:
    """GX expectation objects, built one by one: ExpectationSuite only logs and drops a bad entry."""
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    built = []
    for entry in suite.expectations:
        try:
            built.append(ExpectationConfiguration(**entry.config).to_domain_obj())
        except Exception as exc:  # GX raises lookup, pydantic and type errors alike for a bad entry
            where = f"{suite.path}: expectation {entry.index} ({entry.config['type']})"
            raise SuiteError(f"{where}: {' '.join(str(exc).split())[:240]}") from None
    return built


def _gx_suite(name: str, expectations: list[Any]) -> Any:
    import great_expectations as gx

    return gx.ExpectationSuite(name=name, expectations=expectations)


def _check(result: Any, frame: pd.DataFrame) -> Check:
    config = result.expectation_config
    requirement = str(config.meta.get("requirement", config.type))
    error = _error_message(result.exception_info)
    if error is not None:
        return Check(requirement, False, f"error: {error}")
    success = bool(result.success)
    found = result.result or {}
    detail = _observed(config.type, config.kwargs, found, success)
    return Check(requirement, success, detail, () if success else _failed_rows(found, frame))


def _failed_rows(result: Mapping[str, Any], frame: pd.DataFrame) -> tuple[str, ...]:
    """The labels of the rows GX reports as unexpected (a table without labels has none)."""
    if "label" not in frame.columns:
        return ()
    indices = result.get("partial_unexpected_index_list") or []
    return tuple(str(frame["label"].iloc[i]) for i in indices if isinstance(i, int) and i < len(frame))


def _error_message(info: Mapping[str, Any] | None) -> str | None:
    """The first raised exception in a result; GX nests them under metric ids when a metric fails."""
    if not info:
        return None
    if "raised_exception" in info:
        return " ".join(str(info.get("exception_message")).split()) if info["raised_exception"] else None
    nested = (_error_message(value) for value in info.values() if isinstance(value, Mapping))
    return next((message for message in nested if message), None)


def _observed(kind: str, kwargs: Mapping[str, Any], result: Mapping[str, Any], success: bool) -> str:
    value = result.get("observed_value")
    if kind == _ROW_COUNT and isinstance(value, int):
        text = f"{value} row" if value == 1 else f"{value} rows"
    elif value is None and "unexpected_count" in result:
        text = f"{result['unexpected_count']} unexpected values"
    else:
        text = str(value)
    need = _need(kwargs)
    return text if success else f"observed {text}" + (f", need {need}" if need else "")


def _need(kwargs: Mapping[str, Any]) -> str:
    low, high = kwargs.get("min_value"), kwargs.get("max_value")
    if low is not None and high is not None:
        return f"between {low} and {high}"
    return f">= {low}" if low is not None else (f"<= {high}" if high is not None else "")


# --- the verdict --------------------------------------------------------------------------------


def _requirements(expectations: Sequence[Expectation], checks: Sequence[Check]) -> list[Requirement]:
    """Requirements in suite order; one with no result at all counts as not met."""
    found = {entry.requirement: Requirement(entry.requirement) for entry in expectations}
    for check in checks:
        req = found.setdefault(check.requirement, Requirement(check.requirement))
        req.met = req.met and check.success
        req.details.append(check.detail)
        req.failed_rows += [row for row in check.failed_rows if row not in req.failed_rows]
    for req in found.values():
        if not req.details:
            req.met, req.details = False, ["not evaluated"]
    return list(found.values())


def _rationale(requirements: Sequence[Requirement], skipped: Sequence[Expectation]) -> str:
    def line(req: Requirement) -> str:
        return f"{req.name} ({'; '.join(req.details)})"

    met = [line(req) for req in requirements if req.met]
    missing = [line(req) for req in requirements if not req.met]
    text = f"{len(met)} of {len(requirements)} requirements met"
    text += f": {', '.join(met)}" if met else ""
    text += f"; missing: {', '.join(missing)}" if missing else ""
    if skipped:
        text += "; not required: " + ", ".join(f"{r.requirement} ({r.when} is false)" for r in skipped)
    return text


def _unmet(requirements: Sequence[Requirement]) -> list[str]:
    """One line per failed check, naming the row it failed on where a table has rows."""
    lines: list[str] = []
    for req in requirements:
        if not req.met:
            lines += req.failed_rows or [f"{req.name}: {'; '.join(req.details)}"]
    return lines


def _confidence(met: int, applied: int, checked: Checked, used: set[str]) -> float:
    shares = [met / applied if applied else 1.0]
    if "claims" in used:
        shares.append(_share([c.supported for c in checked.claims]))
    if "parts" in used:
        shares.append(_share([p.answered for p in checked.parts]))
    if "functions" in used:
        shares.append(_share([f.exercised for f in checked.functions]))
    product = 1.0
    for share in shares:
        product *= share
    return round(product, 3)


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 1.0


def _validation_id(suite: str, iteration: int, evidence: Sequence[Evidence]) -> str:
    """Deterministic, so replaying the event log reproduces the same validation ids."""
    basis = "|".join([suite, str(iteration), *sorted(item.evidence_id for item in evidence)])
    return f"val-{content_hash(basis, 12)}"
