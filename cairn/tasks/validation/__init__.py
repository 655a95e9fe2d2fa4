"""Validation: a task's evidence judged against its completion suite, one Great Expectations suite
per task type (`validators/{task_type}.json`). The suites are read by `suites`, the tables they
judge built by `frames`, run through GX by `expectations`, and the outcome explained by `verdict`.

>>> from cairn.core import Evidence
>>> validate("simple_question", [Evidence(type="synthesis", content="42", source="call-1-0")]).complete
False
"""

from __future__ import annotations

from cairn.tasks.validation.frames import Checked, current, evidence_frame
from cairn.tasks.validation.judge import validate, validation_id
from cairn.tasks.validation.suites import (
    SuiteError,
    default_suite_dirs,
    has_tests,
    load_suite,
    requirements,
    suite_path,
)

__all__ = [
    "Checked",
    "SuiteError",
    "current",
    "default_suite_dirs",
    "evidence_frame",
    "has_tests",
    "load_suite",
    "requirements",
    "suite_path",
    "validate",
    "validation_id",
]
