"""Great Expectations, run: each expectation of a suite against the table it judges, one GX
validation per table, and each result read back as a `Check` with a human detail ("observed 0
rows, need >= 1") and the labels of the rows it failed on.

GX is imported on first use (it takes seconds), in one ephemeral context per process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cairn.tasks.validation.suites import ROWS, Expectation, Suite, SuiteError

if TYPE_CHECKING:
    import pandas as pd

_ROW_COUNT = "expect_table_row_count_to_be_between"
_LOCK = threading.Lock()  # one GX context per process; GX objects are not safe to share across threads
_batch_definition: Any = None


@dataclass(frozen=True)
class Check:
    requirement: str
    success: bool
    detail: str
    failed_rows: tuple[str, ...] = ()  # the `label` of each row the expectation failed on


def run_expectations(
    suite: Suite, expectations: Sequence[Expectation], frames: Mapping[str, pd.DataFrame]
) -> list[Check]:
    """Each expectation run against its table; one GX validation per table the suite uses.
    Every expectation of the suite is built, applied or not: a broken one fails the run
    (`SuiteError`) even where its flag leaves it out."""
    checks: list[Check] = []
    with _LOCK:
        definition = _ensure_context()
        built = _gx_expectations(suite)
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
