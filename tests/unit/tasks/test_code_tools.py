"""Coding tools: pytest counts and failing ids, crashes as failures, ruff findings, run_python."""

from __future__ import annotations

from pathlib import Path

from cairn.tasks.tools.code import lint, run_python, run_tests

TESTS = """\
import pytest

def test_ok():
    pass

def test_bad():
    assert 1 == 2, "one is not two"

@pytest.mark.skip(reason="later")
def test_later():
    pass

class TestGroup:
    @pytest.mark.parametrize("x", [1, 2])
    def test_param(self, x):
        assert x
"""


def write(ws: Path, name: str, text: str) -> None:
    (ws / name).parent.mkdir(parents=True, exist_ok=True)
    (ws / name).write_text(text)


def test_counts_and_failing_ids(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_mix.py", TESTS)
    result = run_tests(tmp_path, plugins=False)  # installed plugins cost seconds of start-up
    assert (result.passed, result.failed, result.errors, result.skipped) == (3, 1, 0, 1)
    assert result.outcome == "failure"
    assert result.failing == ["tests/test_mix.py::test_bad"]
    checks = {c.check_id: c for c in result.checks}
    assert checks["pytest::tests/test_mix.py::test_bad"].passed is False
    assert "one is not two" in checks["pytest::tests/test_mix.py::test_bad"].detail
    assert checks["pytest::tests/test_mix.py::TestGroup::test_param[2]"].passed
    assert checks["pytest::."].passed  # the run itself completed
    assert "3 passed, 1 failed, 1 skipped" in result.summary
    assert not (tmp_path / ".pytest_cache").exists() and not list(tmp_path.rglob("__pycache__"))


def test_all_passing_is_success(tmp_path: Path) -> None:
    write(tmp_path, "test_one.py", "def test_a():\n    pass\n")
    result = run_tests(tmp_path, "test_one.py", plugins=False)
    assert result.outcome == "success" and result.passed == 1
    assert {c.check_id for c in result.checks} == {"pytest::test_one.py::test_a", "pytest::test_one.py"}


def test_a_syntax_error_is_a_failed_collection(tmp_path: Path) -> None:
    write(tmp_path, "test_ok.py", "def test_a():\n    pass\n")
    write(tmp_path, "test_broken.py", "def test_b(:\n")
    result = run_tests(tmp_path, plugins=False)
    assert result.outcome == "failure" and result.errors == 1
    session = next(c for c in result.checks if c.check_id == "pytest::.")
    assert not session.passed and "SyntaxError" in session.detail
    assert "collection errors" in result.summary


def test_a_test_module_that_kills_pytest_is_a_failure(tmp_path: Path) -> None:
    write(tmp_path, "test_exit.py", "import os\nos._exit(3)\n")
    result = run_tests(tmp_path, plugins=False)
    assert result.outcome == "failure"
    assert "crashed (exit 3)" in result.summary
    assert [(c.check_id, c.passed) for c in result.checks] == [("pytest::.", False)]


def test_a_target_outside_the_workspace_is_an_error(tmp_path: Path) -> None:
    assert run_tests(tmp_path, "../").outcome == "error"
    assert lint(tmp_path, "/etc").outcome == "error"


def test_ruff_findings_are_parsed_one_check_per_file(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", "import os\nx = 1\n")
    write(tmp_path, "pkg/good.py", "x = 1\n")
    write(tmp_path, "broken.py", "def f(:\n")
    result = lint(tmp_path)
    assert result.outcome == "failure"
    unused = next(f for f in result.findings if f.code == "F401")
    assert (unused.file, unused.line, unused.column) == ("bad.py", 1, 8) and "os" in unused.message
    assert any(f.file == "broken.py" and f.code == "invalid-syntax" for f in result.findings)
    checks = {c.check_id: c for c in result.checks}
    assert not checks["ruff::bad.py"].passed and "F401" in checks["ruff::bad.py"].detail.split(", ")
    assert checks["ruff::pkg/good.py"].passed


def test_a_fixed_file_reports_its_check_as_passed(tmp_path: Path) -> None:
    write(tmp_path, "bad.py", "import os\n")
    assert not lint(tmp_path).checks[0].passed
    write(tmp_path, "bad.py", "import os\n\nprint(os.sep)\n")  # clean under ruff's default rules
    result = lint(tmp_path)
    assert result.outcome == "success" and result.summary == "clean"
    assert [(c.check_id, c.passed) for c in result.checks] == [("ruff::bad.py", True)]


def test_run_python_snippet_and_file(tmp_path: Path) -> None:
    snippet = run_python(tmp_path, code="import os\nprint(os.getcwd())")
    assert snippet.outcome == "success" and Path(snippet.stdout.strip()) == tmp_path.resolve()
    assert snippet.checks == []
    write(tmp_path, "tool.py", "import sys\nprint('out')\nsys.exit('bad input')\n")
    script = run_python(tmp_path, path="tool.py")
    assert script.outcome == "failure" and script.stdout == "out\n" and script.exit_code == 1
    assert script.summary == "exit 1: bad input"
    assert [(c.check_id, c.passed) for c in script.checks] == [("python::tool.py", False)]


def test_run_python_timeout_and_output_cap(tmp_path: Path) -> None:
    slow = run_python(tmp_path, code="import time\nprint('start', flush=True)\ntime.sleep(30)", timeout_s=0.5)
    assert slow.outcome == "timeout" and slow.timed_out and slow.stdout == "start\n"
    loud = run_python(tmp_path, code="print('x' * 2_000_000)")
    assert loud.output_truncated and len(loud.stdout) < 2_000_000


def test_run_python_refuses_bad_requests(tmp_path: Path) -> None:
    assert run_python(tmp_path).outcome == "error"
    assert run_python(tmp_path, code="1", path="x.py").outcome == "error"
    assert run_python(tmp_path, path="../x.py").outcome == "error"
    write(tmp_path, "-c", "print('a file, not an option')\n")
    assert run_python(tmp_path, path="-c").stdout == "a file, not an option\n"
