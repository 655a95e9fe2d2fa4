"""Which functions of the workspace a test run called: the proof that tests exercise what a goal names.

`run_tests` loads `PLUGIN` into the agent's pytest run (`-p`, from a temporary folder on
`PYTHONPATH`). While each test body runs, a profile hook notes the name of every Python function
called whose code lives in the workspace and outside a test module; at the end the names go, one
per line, to the file `CAIRN_CALLED_OUT` names. Only test bodies are watched, so pytest's own
machinery costs nothing extra.

>>> called_names("slugify\\nhelper\\nslugify\\n")
['helper', 'slugify']
"""

from __future__ import annotations

PLUGIN_NAME = "cairn_called"
OUT_VARIABLE = "CAIRN_CALLED_OUT"
ROOT_VARIABLE = "CAIRN_CALLED_ROOT"
# The plugin runs inside the agent's pytest process, on Cairn's interpreter: standard library only.
PLUGIN = """
import os, sys, threading
import pytest

_root = os.path.realpath(os.environ["CAIRN_CALLED_ROOT"]) + os.sep
_seen = set()


def _tested(path):
    name = os.path.basename(path)
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def _hook(frame, event, arg):
    if event == "call":
        path = frame.f_code.co_filename
        if path.startswith(_root) and not _tested(path):
            _seen.add(frame.f_code.co_name)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    sys.setprofile(_hook)
    threading.setprofile(_hook)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)


def pytest_unconfigure(config):
    with open(os.environ["CAIRN_CALLED_OUT"], "w", encoding="utf-8") as out:
        out.write("".join(name + "\\n" for name in sorted(_seen) if not name.startswith("<")))
"""


def called_names(text: str) -> list[str]:
    """The plugin's output read back: each name once, sorted."""
    return sorted({line.strip() for line in text.splitlines() if line.strip()})
