"""Coding tools over the sandbox: run the tests, lint, run Python; each returns a structured result.

Every result has an `outcome` (success, failure, timeout, error: the tool itself could not run), a
one-line `summary` for the model, and `checks`: named pass/fail facts. A later "hot issue" step opens
one issue per failing check id and resolves it when a later result reports the same id as passed:

- `pytest::<node id>`   one per test that ran (skipped tests report nothing);
- `pytest::<target>`    the run itself: collected and reported without crashing;
- `ruff::<file>`        one per Python file under the target, failing if ruff reports anything in it.
  Per file, not per rule code: a clean file can be reported as passing without knowing which codes
  failed before, so a fixed file resolves its issue on the next lint.
- `python::<path>`      a script run by path; snippets report no check (nobody reruns a snippet).

Tools never raise for what the agent got wrong (bad path, crashing tests); they say so in the result.

>>> import tempfile; ws = Path(tempfile.mkdtemp())
>>> run_python(ws, code="print(6 * 7)").stdout
'42\\n'
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from memory.models import Frozen, Outcome
from tasks.tools.code_reports import (
    CheckResult,
    LintFinding,
    junit_report,
    lint_report,
    pytest_outcome,
)
from tasks.tools.paths import PathError, resolve_path
from tasks.tools.sandbox import ProcessResult, run_sandboxed
