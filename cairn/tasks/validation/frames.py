"""The tables a suite judges, as pandas DataFrames: the evidence, and the claim, part and function
rows checked of the deliverable (`cairn.tasks.grounding`).

Evidence columns, derived here so the suites stay simple:

- `evidence_id`, `type`, `confidence`, `source`, `iteration`, `timestamp`: from `Evidence`
- `file_path`, `file_type`, `tool`, `passed`, `failed`, `documented_share`: from its metadata
  (`passed`/`failed`/`documented_share` are NaN when unknown, so no comparison matches them)
- `cites_count`: how many sources the evidence cites
- `is_code_write`: a `file_creation` of a code file
- `is_doc_artifact`: `documentation` evidence, or a `file_creation` of a documentation file
- `after_last_code_write`: (iteration, timestamp) later than the last code write (True if none)

Claim rows: `text`, `kind`, `status` (supported, computed, unsupported), `where`. Part rows:
`part`, `answered`, `status` (`PartCheck.status`: proven, absent, unverified, open), `clause`.
Function rows: `name`, `defined`, `exercised`, `test_run`, `agreed` (no second sample of it
returned another value on an input varied from its examples). Each row of these has a `label`:
what it means when an expectation fails on it (`Verdict.unmet`: "6.43 ms is in no file read").

>>> list(frames([], Checked())["parts"].columns)
['part', 'answered', 'status', 'clause', 'label']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cairn.core import Claim, Evidence, FunctionCheck, PartCheck

if TYPE_CHECKING:
    import pandas as pd

_DTYPES = {
    "evidence_id": "object", "type": "object", "confidence": "float64", "source": "object",
    "iteration": "int64", "timestamp": "float64", "file_path": "object", "file_type": "object",
    "tool": "object", "passed": "float64", "failed": "float64", "documented_share": "float64",
    "cites_count": "int64", "is_code_write": "bool", "is_doc_artifact": "bool",
    "after_last_code_write": "bool",
}  # fmt: skip
_PART_TYPES = {"part": "object", "answered": "bool", "status": "object", "clause": "object"}


@dataclass(frozen=True)
class Checked:
    """What was checked of the deliverable (`cairn.tasks.grounding`): the rows of the claim, part
    and function tables."""

    claims: Sequence[Claim] = ()
    parts: Sequence[PartCheck] = ()
    functions: Sequence[FunctionCheck] = ()
    every_source_read: bool = False  # each source read whole, or searched for each question's words


def frames(evidence: Sequence[Evidence], checked: Checked) -> dict[str, pd.DataFrame]:
    """Every table an expectation may judge, by its `rows` name; `label` says what a failing row means."""

    claims = [
        {"text": c.text, "kind": c.kind, "status": c.status, "where": c.where, "label": c.reason()}
        for c in checked.claims
    ]
    parts = [
        {
            "part": p.part,
            "answered": p.answered,
            "status": p.status,
            "clause": p.clause,
            "label": _part_label(p),
        }
        for p in checked.parts
    ]
    functions = [
        {**f.model_dump(), "agreed": not f.disagreement, "label": _function_label(f)}
        for f in checked.functions
    ]
    return {
        "evidence": evidence_frame(evidence),
        "claims": _table(claims, {"text": "object", "kind": "object", "status": "object", "where": "object"}),
        "parts": _table(parts, _PART_TYPES),
        "functions": _table(
            functions,
            {"name": "object", "defined": "bool", "exercised": "bool", "test_run": "object"}
            | {"agreed": "bool"},
        ),
    }


def current(evidence: Sequence[Evidence]) -> list[Evidence]:
    """The evidence that still says something: of each file, the latest of each type (a file
    written again supersedes itself: a long task rewrites its report every iteration), and the
    latest validation; every test run and tool result, in order.

    >>> from cairn.core import EvidenceMetadata
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


def _table(rows: list[dict[str, Any]], dtypes: dict[str, str]) -> pd.DataFrame:
    import pandas as pd

    columns = {**dtypes, "label": "object"}
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def _part_label(part: PartCheck) -> str:
    if part.why.startswith(part.part):  # says it whole: "test_x.py is not written"
        return part.why
    return f"not answered: {part.part}" + (f" ({part.why})" if part.why else "")


def _function_label(check: FunctionCheck) -> str:
    name = check.name
    if not check.defined:
        return f"{name} is not defined in any file written"
    if not check.test_run:
        return f"{name}: no test run passed after the last code change"
    if check.exercised and check.disagreement:
        return f"{name}: {check.disagreement}"
    return f"{name} is not called by the passing test run {check.test_run}"
