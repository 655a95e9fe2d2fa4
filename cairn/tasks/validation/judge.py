"""The verdict on a task's evidence: its suite run over the tables, the requirements met and
missed, why, how confident, and the verdict's id.

Confidence comes from the checks, not from how many rows there are: the share of requirements met
x the share of claims supported x the share of parts answered x the share of named functions
exercised (each 1 where it does not apply).

>>> validation_id(3)
'validation-3'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cairn.core import Evidence, TaskType, Verdict
from cairn.tasks.validation.expectations import Check, run_expectations
from cairn.tasks.validation.frames import Checked, frames
from cairn.tasks.validation.suites import Expectation, load_suite, suite_path


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
    >>> verdict = validate("simple_question", ev, iteration=2)
    >>> verdict.complete, verdict.missing, verdict.validation_id
    (False, ['answer file written', 'every part of the goal answered'], 'validation-2')
    """
    suite = load_suite(suite_path(task_type, suites_dir))
    checked = checked or Checked()
    flags = {"has_tests": has_tests}
    applies = [entry.when is None or flags[entry.when] for entry in suite.expectations]
    applied = [entry for entry, keep in zip(suite.expectations, applies, strict=True) if keep]
    skipped = [entry for entry, keep in zip(suite.expectations, applies, strict=True) if not keep]
    checks = run_expectations(suite, applied, frames(evidence, checked))
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
        validation_id=validation_id(iteration),
        iteration=iteration,
        unmet=_unmet(requirements),
        claims=list(checked.claims) if "claims" in used else [],
        parts=list(checked.parts) if "parts" in used else [],
        functions=list(checked.functions) if "functions" in used else [],
        every_source_read=checked.every_source_read,
    )


def validation_id(iteration: int) -> str:
    """The id of the verdict on `iteration`, and the source of its `validation` evidence: one
    validation per iteration, so replaying the history reproduces the same ids."""
    return f"validation-{iteration}"


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
        shares.append(_share([p.settled for p in checked.parts]))
    if "functions" in used:
        shares.append(_share([f.exercised for f in checked.functions]))
    product = 1.0
    for share in shares:
        product *= share
    return round(product, 3)


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 1.0
