"""Coding tools over the sandbox: run the tests, lint, run Python; each returns a structured result.

Every result has an `outcome` (success, failure, timeout, or error: the tool itself could not run),
a one-line `summary` for the model, and `checks`: named pass/fail facts. A later "hot issue" step
opens one issue per failing check id and resolves it when a later result reports that id as passed:

- `pytest::<node id>`  one per test that ran (skipped tests report nothing);
- `pytest::<target>`   the run itself: collected everything and reported, without crashing;
- `ruff::<file>`       one per Python file under the target, failing if ruff reports anything in it.
  Per file, not per ruff code: a clean file can be reported as passing without knowing which codes
  failed before, so fixing a file resolves its issue on the next lint;
- `python::<path>`     a script run by path; snippets report no check (nobody reruns a snippet).

Tools never raise for what the agent got wrong (a bad path, tests that crash); the result says so.

>>> import tempfile; ws = Path(tempfile.mkdtemp())
>>> run_python(ws, code="print(6 * 7)").stdout
'42\\n'
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar
from xml.etree import ElementTree

from pydantic import Field

from cairn.core import CheckOutcome, Frozen, Outcome
from cairn.tasks.tools import called
from cairn.tasks.tools.paths import PathError, resolve_path
from cairn.tasks.tools.sandbox import ProcessResult, run_sandboxed

ADDRESS_SPACE_MB = 2048  # not resident RAM: threads and arenas reserve a lot of address space
OUTPUT_CAP = 256 * 1024
LINT_OUTPUT_CAP = 8 * 1024 * 1024  # ruff's JSON must arrive whole to be parsed
MAX_SNIPPET_BYTES = 100_000  # one argv string is limited (128 KiB on Linux); longer code goes in a file
_PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_RUFF_CONFIGS = ("ruff.toml", ".ruff.toml", "pyproject.toml")
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "venv", "site-packages", "dist", "build", "_build"})
_QUIET = {"PYTHONDONTWRITEBYTECODE": "1"}  # no __pycache__ littering the workspace's artifacts
P = ParamSpec("P")
R = TypeVar("R", bound="ToolResult")


class ToolResult(Frozen):
    outcome: Outcome
    summary: str
    checks: list[CheckOutcome] = Field(default_factory=list)
    duration_s: float = 0.0


class PytestResult(ToolResult):
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    failing: list[str] = Field(default_factory=list)  # node ids of failed or erroring tests
    output: str = ""  # pytest's own (capped) output
    exercised: list[str] = Field(default_factory=list)  # workspace functions the test bodies called


class LintFinding(Frozen):
    file: str  # relative to the workspace
    line: int
    column: int
    code: str  # ruff's code such as F401, or `invalid-syntax`
    message: str


class LintResult(ToolResult):
    findings: list[LintFinding] = Field(default_factory=list)


class PythonResult(ToolResult):
    exit_code: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    output_truncated: bool = False


def _refusing(refused: Callable[[str], R]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A tool that answers a target outside the workspace with `refused(why)`: tools never raise
    for a path the agent got wrong."""

    def wrap(tool: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(tool)
        def refusing(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return tool(*args, **kwargs)
            except PathError as exc:
                return refused(str(exc))

        return refusing

    return wrap


@_refusing(lambda why: PytestResult(outcome="error", summary=f"cannot run tests: {why}"))
def run_tests(
    ws_dir: Path, target: str = ".", *, timeout_s: float = 300.0, plugins: bool = True
) -> PytestResult:
    """Run pytest on `target` (a workspace path) and count what passed.

    `plugins=False` stops pytest loading installed plugins (faster start; for tests that need none).

    >>> run_tests(Path("/tmp"), "../etc").summary
    "cannot run tests: '..' is not allowed in a path: '../etc'"
    """
    ws, rel = _workspace_target(ws_dir, target)
    with tempfile.TemporaryDirectory(prefix="cairn-pytest-") as tmp:
        xml = Path(tmp) / "junit.xml"
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}"]
        # Absolute target: a file named like an option (`--help`) must stay a path.
        argv += [
            "-o",
            "junit_family=xunit1",
            f"--rootdir={ws}",
            "-p",
            called.PLUGIN_NAME,
            *_pytest_config(ws, Path(tmp)),
            str(ws / rel),
        ]
        env = {**_QUIET, **_called_env(ws, Path(tmp))}
        env |= {} if plugins else {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        proc = _run(argv, ws, timeout_s, OUTPUT_CAP, env)
        result = _pytest_result(proc, _read_junit(xml), rel)
        return result.model_copy(update={"exercised": _called(Path(tmp))})


def _called_env(ws: Path, tmp: Path) -> dict[str, str]:
    """The environment that loads the call recorder (`cairn.tasks.tools.called`) into pytest."""
    (tmp / f"{called.PLUGIN_NAME}.py").write_text(called.PLUGIN, encoding="utf-8")
    out = tmp / "called.txt"
    return {"PYTHONPATH": str(tmp), called.OUT_VARIABLE: str(out), called.ROOT_VARIABLE: str(ws)}


def _called(tmp: Path) -> list[str]:
    try:
        return called.called_names((tmp / "called.txt").read_text(encoding="utf-8"))
    except OSError:  # pytest died before its end: nothing is known to have been called
        return []


def _pytest_config(ws: Path, tmp: Path) -> list[str]:
    """An empty config when the workspace has none, so pytest does not climb out of the workspace
    and pick up the user's own project settings."""
    if any((ws / name).is_file() for name in _PYTEST_CONFIGS):
        return []
    (tmp / "pytest.ini").write_text("[pytest]\n")
    return ["-c", str(tmp / "pytest.ini")]


def _read_junit(xml: Path) -> list[ElementTree.Element] | None:
    """The JUnit XML's test cases, or None when pytest died before writing it."""
    try:
        if xml.stat().st_size > 64 * 1024 * 1024:
            return None
        return list(ElementTree.parse(xml).iter("testcase"))
    except (OSError, ElementTree.ParseError):
        return None


def _pytest_result(proc: ProcessResult, cases: list[ElementTree.Element] | None, rel: str) -> PytestResult:
    output = (proc.stdout + proc.stderr)[-OUTPUT_CAP:]
    if proc.timed_out or cases is None:
        return _pytest_without_junit(proc, rel, output)
    checks, collection = _case_checks(cases)
    counts = _count(cases)
    failing = [c.check_id.removeprefix("pytest::") for c in checks if not c.passed]
    session_ok = proc.exit_code in (0, 1) and not collection
    detail = "; ".join(collection) or ("" if session_ok else f"pytest exit {proc.exit_code}")
    checks.append(CheckOutcome(check_id=f"pytest::{rel}", passed=session_ok, detail=detail[:500]))
    summary = ", ".join(f"{n} {label}" for label, n in counts.items() if n) or "no tests ran"
    summary += f" in {proc.duration_s:.1f}s" + (f"; failing: {', '.join(failing[:5])}" if failing else "")
    if collection:
        summary += f"; collection errors: {'; '.join(collection)[:300]}"
    outcome: Outcome = "success" if proc.exit_code == 0 else "failure"
    return PytestResult(
        outcome=outcome,
        summary=summary,
        checks=checks,
        failing=failing,
        output=output,
        duration_s=proc.duration_s,
        passed=counts["passed"],
        failed=counts["failed"],
        errors=counts["errors"],
        skipped=counts["skipped"],
    )


def _pytest_without_junit(proc: ProcessResult, rel: str, output: str) -> PytestResult:
    """No JUnit XML: a timeout, no pytest, a usage error, or a crash (`os._exit` in a test module)."""
    last = (_last_line(proc.stderr) or _last_line(proc.stdout))[:200]
    if "No module named pytest" in proc.stderr or proc.exit_code == 4:  # 4: pytest's usage error
        return PytestResult(outcome="error", summary=f"cannot run pytest: {last}", output=output)
    outcome: Outcome = "timeout" if proc.timed_out else "failure"
    summary = f"tests timed out after {proc.duration_s:.0f}s" if proc.timed_out else ""
    summary = summary or f"pytest crashed (exit {proc.exit_code}) before reporting: {last}"
    check = CheckOutcome(check_id=f"pytest::{rel}", passed=False, detail=summary)
    return PytestResult(
        outcome=outcome,
        summary=summary,
        checks=[check],
        errors=int(outcome == "failure"),
        output=output,
        duration_s=proc.duration_s,
    )


def _case_checks(cases: list[ElementTree.Element]) -> tuple[list[CheckOutcome], list[str]]:
    """A check per test that ran, and the collection errors (cases without a class name)."""
    checks: list[CheckOutcome] = []
    collection: list[str] = []
    for case in cases:
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        message = _first_line(problem.get("message", "")) if problem is not None else ""
        if not case.get("classname") and problem is not None:  # a module that failed to import
            collection.append(f"{case.get('name', '?')}: {_collection_reason(problem)}")
        elif case.find("skipped") is None:
            check_id = f"pytest::{_node_id(case)}"
            checks.append(CheckOutcome(check_id=check_id, passed=problem is None, detail=message[:300]))
    return checks, collection


def _count(cases: list[ElementTree.Element]) -> dict[str, int]:
    kinds = [
        next((k for k in ("failure", "error", "skipped") if case.find(k) is not None), "pass")
        for case in cases
    ]
    return {
        "passed": kinds.count("pass"),
        "failed": kinds.count("failure"),
        "errors": kinds.count("error"),
        "skipped": kinds.count("skipped"),
    }


def _node_id(case: ElementTree.Element) -> str:
    """`tests/test_x.py::TestC::test_m[1]` from junit's file, dotted class name and test name."""
    file, classname, name = case.get("file", ""), case.get("classname", ""), case.get("name", "")
    module = file.removesuffix(".py").replace("/", ".")
    classes = classname[len(module) + 1 :] if classname.startswith(module + ".") else ""
    return "::".join(part for part in (file, classes.replace(".", "::"), name) if part)


def _collection_reason(problem: ElementTree.Element) -> str:
    lines = [line for line in (problem.text or "").splitlines() if line.startswith("E ")]
    return lines[-1][1:].strip() if lines else problem.get("message", "collection failure")


@_refusing(lambda why: LintResult(outcome="error", summary=f"cannot lint: {why}"))
def lint(ws_dir: Path, target: str = ".", *, timeout_s: float = 120.0) -> LintResult:
    """Run ruff on `target`; one finding per diagnostic and one check per file (see module doc).

    >>> lint(Path("/tmp"), "/etc").outcome
    'error'
    """
    ws, rel = _workspace_target(ws_dir, target)
    isolated = [] if any((ws / name).is_file() for name in _RUFF_CONFIGS) else ["--isolated"]
    argv = [sys.executable, "-m", "ruff", "check", "--output-format", "json", "--no-cache", *isolated]
    argv.append(str(ws / rel))  # absolute: a file named like an option must stay a path
    proc = _run(argv, ws, timeout_s, LINT_OUTPUT_CAP, _QUIET)
    findings = _parse_ruff(proc.stdout, ws)
    if proc.timed_out or findings is None or proc.exit_code not in (0, 1):
        reason = "timed out" if proc.timed_out else _last_line(proc.stderr) or f"exit {proc.exit_code}"
        return LintResult(
            outcome="timeout" if proc.timed_out else "error",
            summary=f"ruff failed: {reason}",
            duration_s=proc.duration_s,
        )
    checks = _file_checks(findings, _python_files(ws, ws / rel))
    files = sorted({f.file for f in findings})
    summary = (
        f"{len(findings)} findings in {len(files)} files: {', '.join(files[:5])}" if findings else "clean"
    )
    return LintResult(
        outcome="failure" if findings else "success",
        summary=summary,
        checks=checks,
        findings=findings,
        duration_s=proc.duration_s,
    )


def _parse_ruff(stdout: str, ws: Path) -> list[LintFinding] | None:
    try:
        raw = json.loads(stdout)
        return [
            LintFinding(
                file=_relative(Path(item["filename"]), ws),
                line=item["location"]["row"],
                column=item["location"]["column"],
                code=item.get("code") or "invalid-syntax",
                message=item["message"],
            )
            for item in raw
        ]
    except (ValueError, KeyError, TypeError):
        return None


def _file_checks(findings: list[LintFinding], files: list[str]) -> list[CheckOutcome]:
    by_file: dict[str, list[str]] = {name: [] for name in files}
    for finding in findings:
        by_file.setdefault(finding.file, []).append(finding.code)
    return [
        CheckOutcome(check_id=f"ruff::{name}", passed=not codes, detail=", ".join(sorted(set(codes))))
        for name, codes in sorted(by_file.items())
    ]


def _python_files(ws: Path, target: Path) -> list[str]:
    """The Python files ruff would look at, roughly: hidden and tool directories are skipped."""
    if target.is_file():
        return [_relative(target, ws)]
    found: list[str] = []
    for folder, dirs, names in os.walk(target):  # does not follow symlinked directories
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
        found += [_relative(Path(folder, n), ws) for n in names if n.endswith((".py", ".pyi"))]
    return found


@_refusing(lambda why: PythonResult(outcome="error", summary=f"cannot run: {why}", exit_code=-1))
def run_python(
    ws_dir: Path, code: str | None = None, path: str | None = None, *, timeout_s: float = 60.0
) -> PythonResult:
    """Run a snippet (`code`) or a workspace script (`path`) with the workspace as cwd.

    >>> run_python(Path("/tmp"), code="1/0").summary
    'exit 1: ZeroDivisionError: division by zero'
    """
    if (code is None) == (path is None):
        return PythonResult(outcome="error", summary="give exactly one of code or path", exit_code=-1)
    if code is not None and len(code.encode("utf-8", "surrogatepass")) > MAX_SNIPPET_BYTES:
        return PythonResult(outcome="error", summary="snippet too long: write it to a file", exit_code=-1)
    ws, rel = _workspace_target(ws_dir, path or ".")
    argv = [sys.executable, "-c", code] if code is not None else [sys.executable, str(ws / rel)]
    proc = _run(argv, ws, timeout_s, OUTPUT_CAP, _QUIET)
    return _python_result(proc, rel if path else None)


def _python_result(proc: ProcessResult, script: str | None) -> PythonResult:
    outcome: Outcome = "timeout" if proc.timed_out else "success" if proc.exit_code == 0 else "failure"
    summary = f"exit {proc.exit_code}" + (f": {_last_line(proc.stderr)}" if proc.exit_code else "")
    summary = f"timed out after {proc.duration_s:.1f}s" if proc.timed_out else summary
    checks = [CheckOutcome(check_id=f"python::{script}", passed=outcome == "success", detail=summary)]
    kept = proc.model_dump(include={"exit_code", "stdout", "stderr", "timed_out", "output_truncated"})
    checks = checks if script else []
    return PythonResult(
        outcome=outcome, summary=summary[:300], checks=checks, duration_s=proc.duration_s, **kept
    )


def _workspace_target(ws_dir: Path, target: str) -> tuple[Path, str]:
    """The real workspace and `target` relative to it; raises PathError for anything outside."""
    resolved = resolve_path(ws_dir, target, for_write=False)
    ws = Path(os.path.realpath(ws_dir))
    return ws, _relative(resolved, ws)


def _run(argv: list[str], ws: Path, timeout_s: float, cap: int, env: dict[str, str]) -> ProcessResult:
    cpu_s = int(timeout_s) + 1  # CPU time can never usefully exceed the wall clock of one process
    return run_sandboxed(
        argv,
        cwd=ws,
        timeout_s=timeout_s,
        cpu_s=cpu_s,
        address_space_mb=ADDRESS_SPACE_MB,
        output_cap_bytes=cap,
        extra_env=env,
    )


def _relative(path: Path, ws: Path) -> str:
    try:
        return Path(path).relative_to(ws).as_posix() or "."
    except ValueError:
        return str(path)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _last_line(text: str) -> str:
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")
