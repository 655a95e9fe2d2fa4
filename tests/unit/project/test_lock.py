"""`requirements.lock` agrees with `pyproject.toml`: every requirement (dependencies, the `test`
extra, the build requirement) is pinned in the lock at a version its range allows, the lock was
made from exactly those requirements, every pin carries hashes, and no release known to be
compromised can be installed from the ranges. `make lock` refreshes the lock."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[3]
FROM_PYPROJECT = "cairn-agents (pyproject.toml)"
_PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==(?P<version>\S+)(?:\s*;\s*(?P<marker>.*?))?\s*\\?$"
)


@dataclass
class Pin:
    name: str
    version: Version
    marker: str | None
    hashes: int = 0
    via: list[str] = field(default_factory=list)

    def applies(self) -> bool:
        """Whether this pin is for this interpreter and platform."""
        marker = Requirement(f"x; {self.marker}").marker if self.marker else None
        return marker is None or marker.evaluate()


def parse_lock(text: str) -> list[Pin]:
    """The pins of a `uv pip compile` requirements file, with their hashes and `# via` lines."""
    pins: list[Pin] = []
    for line in text.splitlines():
        stripped = line.strip()
        if match := _PIN.match(line):
            name = canonicalize_name(match["name"])
            pins.append(Pin(name, Version(match["version"]), match["marker"]))
        elif stripped.startswith("--hash=sha256:") and pins:
            pins[-1].hashes += 1
        elif stripped.startswith("# via") and pins:
            pins[-1].via += [v for v in [stripped.removeprefix("# via").strip()] if v]
        elif stripped.startswith("#   ") and pins:
            pins[-1].via.append(stripped.removeprefix("#").strip())
    return pins


def wanted(pyproject: dict[str, object]) -> list[Requirement]:
    """What the lock is made from: dependencies, the `test` extra, the build requirement."""
    project = pyproject["project"]
    assert isinstance(project, dict)
    build = pyproject["build-system"]
    assert isinstance(build, dict)
    texts = [*project["dependencies"], *project["optional-dependencies"]["test"], *build["requires"]]
    return [Requirement(text) for text in texts]


def disagreements(lock: str, pyproject: dict[str, object]) -> list[str]:
    """What makes the lock disagree with pyproject.toml, one line each (empty: they agree)."""
    pins = parse_lock(lock)
    here = {p.name: p.version for p in pins if p.applies()}
    found: list[str] = []
    for requirement in wanted(pyproject):
        name = canonicalize_name(requirement.name)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        if name not in here:
            found.append(f"{requirement} is not pinned")
        elif not requirement.specifier.contains(here[name], prereleases=True):
            found.append(f"{name}=={here[name]} is outside {requirement}")
    # A direct input is annotated as coming from pyproject.toml, or not annotated at all (the
    # build requirement, which `make lock` passes on stdin).
    direct = {p.name for p in pins if FROM_PYPROJECT in p.via or not p.via}
    named = {canonicalize_name(r.name) for r in wanted(pyproject)}
    found += [f"{name} was locked as a requirement pyproject.toml no longer has" for name in direct - named]
    found += [f"{name} was not locked as a requirement" for name in named - direct]
    return found


@pytest.fixture(scope="module")
def lock() -> str:
    return (ROOT / "requirements.lock").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def pyproject() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_lock_agrees_with_pyproject(lock: str, pyproject: dict[str, object]) -> None:
    assert disagreements(lock, pyproject) == [], "requirements.lock is stale: run `make lock`"


def test_every_pin_is_hashed_and_pinned_once_per_platform(lock: str) -> None:
    pins = parse_lock(lock)
    assert len(pins) > 100 and all(p.hashes > 0 for p in pins)
    here = [p.name for p in pins if p.applies()]
    assert len(here) == len(set(here))


@pytest.mark.parametrize("bad", ["1.82.7", "1.82.8", "1.107.0", "1.107.3"])
def test_compromised_litellm_releases_are_outside_the_range(pyproject: dict[str, object], bad: str) -> None:
    (litellm,) = [r for r in wanted(pyproject) if r.name == "litellm"]
    assert not litellm.specifier.contains(bad)


def test_a_lock_that_disagrees_is_caught(lock: str, pyproject: dict[str, object]) -> None:
    """A range that no longer holds its pin, a requirement added, one removed: each is named."""
    project = pyproject["project"]
    assert isinstance(project, dict)
    deps = [d for d in project["dependencies"] if not d.startswith("typer")]
    deps = [d.replace("litellm>=1.50", "litellm>=1.200") for d in deps] + ["left-pad>=1"]
    changed = {**pyproject, "project": {**project, "dependencies": deps}}
    found = disagreements(lock, changed)
    assert any(line.startswith("litellm==") and "outside" in line for line in found)
    assert "left-pad>=1 is not pinned" in found
    assert "typer was locked as a requirement pyproject.toml no longer has" in found
