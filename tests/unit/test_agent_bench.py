"""`bench/agent.py` judges an answer correct only when it states the expected facts as written."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_agent", ROOT / "bench" / "agent.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("text", "fact", "stated"),
    [
        ("The reservoir holds 150 days of water.", "150", True),
        ("It lasts 150.", "150", True),
        ("About 15,000 cubic metres a day.", "150", False),  # a real-model answer, wrong
        ("It lasts 1.50 years.", "150", False),
        ("Usable storage: 1260000 m³.", "1,260,000", True),
        ("Usable storage: 1 260 000 m³.", "1,260,000", True),
        ("Usable storage: 11,260,000 m³.", "1,260,000", False),
        ("Launch moved to April 14th.", "April 14", True),
        ("Launch moved to April 145.", "April 14", False),
        ("Two Designers join in May.", "designers", True),
        ("A budget of $42,000.", "42,000", True),
    ],
)
def test_a_fact_counts_only_when_stated_whole(text: str, fact: str, stated: bool) -> None:
    assert _bench().states(text, fact) is stated


def test_every_suite_task_declares_what_makes_it_correct() -> None:
    tasks = _bench().load_tasks(None)
    assert {t.name for t in tasks} == {"question", "two-files", "slugify", "summary"}
    assert all(t.facts or t.check for t in tasks)
