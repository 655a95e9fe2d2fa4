"""The house suite: Cairn's own tasks in `bench/agent_tasks/` (see its README), graded by the facts,
citations and checks each task declares. Written here, so they show what Cairn does on familiar
ground; the external suites say whether that carries over.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from pydantic import BaseModel, Field

from agent_suites import novalue
from agent_suites.common import SAY_SO, Grade, SuiteTask, code_blocks

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "bench" / "agent_tasks"
_FILE_NAME = re.compile(r"([\w./-]+\.py)\b")


class HouseSpec(BaseModel):
    """A task.toml: the goal, its sources, and what a correct result holds."""

    goal: str
    sources: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    cites: int = 0
    check: str | None = None
    unanswerable: bool = False  # no file states the answer: graded by `novalue` against `traps`
    traps: list[str] = Field(default_factory=list)  # values a wrong answer would give
    series: int = 0  # tasks load by series, then name: a new series runs after the older tasks

    @property
    def kind(self) -> str:
        return "coding" if self.check else "unanswerable" if self.unanswerable else "answerable"


def specs(names: list[str] | None = None) -> list[tuple[str, HouseSpec, list[Path]]]:
    """Each task's name, spec and source folders: by series, then name (or in the order named)."""
    found = {p.parent.name: p for p in sorted(TASKS.glob("*/task.toml"))}
    unknown = sorted(set(names or []) - set(found))
    if unknown:
        raise SystemExit(f"bench/agent.py: unknown task(s) {', '.join(unknown)}; known: {', '.join(found)}")
    read = {name: _spec(path) for name, path in found.items()}
    order = names or sorted(read, key=lambda name: (read[name][0].series, name))
    return [(name, *read[name]) for name in order]


def load(names: list[str] | None = None) -> list[SuiteTask]:
    return [_task(name, spec, sources) for name, spec, sources in specs(names)]


def _spec(path: Path) -> tuple[HouseSpec, list[Path]]:
    spec = HouseSpec(**tomllib.loads(path.read_text(encoding="utf-8")))
    base = path.parent
    return spec, [ROOT / s.lstrip("/") if s.startswith("/") else base / s for s in spec.sources]


def _task(name: str, spec: HouseSpec, sources: list[Path]) -> SuiteTask:
    coding = spec.check is not None
    return SuiteTask(
        name=name,
        goal=spec.goal,
        sources=sources,
        kind=spec.kind,
        prompt=lambda: prompt(spec.goal, sources, coding),
        grade=lambda text, artifacts: correctness(spec, name, text, artifacts),
        baseline_files=_write_files if coding else None,
    )


def prompt(goal: str, sources: list[Path], coding: bool = False) -> str:
    """The baseline's prompt: every source file (the house sources are small), then the goal.
    A question's prompt allows the answer that the files do not state it, answerable or not, so
    that the prompt never tells which."""
    files = [
        _shown(folder, path) for folder in sources for path in sorted(folder.rglob("*")) if path.is_file()
    ]
    how = (
        "Reply with each file the goal asks for in a fenced code block, its file name on the line before it."
        if coding
        else "Answer from these files; cite each fact's file as [source: PATH], with PATH as shown after "
        f"===. {SAY_SO}"
    )
    return "\n\n".join([*files, goal, how])


def _shown(folder: Path, path: Path) -> str:
    name = f"source:{folder.name}/{path.relative_to(folder).as_posix()}"
    return f"=== {name} ===\n{path.read_text(encoding='utf-8')}"


def _write_files(reply: str, artifacts: Path) -> None:
    """The files of a coding reply: each fenced block under the file name written before it."""
    artifacts.mkdir(parents=True, exist_ok=True)
    for before, block in re.findall(r"([^\n]*)\n```[\w+-]*\n(.*?)```", reply, re.S):
        names = _FILE_NAME.findall(before) or _FILE_NAME.findall(block.splitlines()[0] if block else "")
        if names:
            (artifacts / Path(names[-1]).name).write_text(block, encoding="utf-8")
    if not list(artifacts.glob("*.py")) and (blocks := code_blocks(reply)):
        (artifacts / "solution.py").write_text(blocks[0], encoding="utf-8")


def correctness(spec: HouseSpec, name: str, text: str, artifacts: Path) -> Grade:
    """Correct when the answer states every declared fact, cites enough source files, and the
    task's own check passes against the files written; for an unanswerable task, when it gives no
    value (`novalue`) and states none of its traps."""
    from cairn.tasks.evidence import cites
    from cairn.tasks.grounding import answer_body

    body = answer_body(text)
    if spec.unanswerable:
        return novalue.graded(body, lambda answer: any(states(answer, trap) for trap in spec.traps))
    if (spec.facts or spec.cites) and not body:
        return Grade(correct=False, why="no answer or report was delivered")
    missing = [fact for fact in spec.facts if not states(body, fact)]
    if missing:
        return Grade(correct=False, why=f"missing {', '.join(missing)}")
    cited = {c for c in cites(text) if c.startswith("source:")}
    if len(cited) < spec.cites:
        return Grade(correct=False, why=f"cites {len(cited)} source files, needs {spec.cites}")
    if spec.check:
        return _check(TASKS / name / spec.check, artifacts)
    return Grade(correct=True)


def states(text: str, fact: str) -> bool:
    """Whether `text` states `fact` as a whole: thousands separators and case aside, and a figure
    only as the same number ('150' is not in '15,000' nor in '1.50').

    >>> states("It holds 1260000 m³ (150 days).", "1,260,000"), states("About 15,000 m³.", "150")
    (True, False)
    """
    edge = r"(?<![\w.])" if fact[:1].isalnum() else ""
    end = r"(?![\d]|[.,]\d)" if fact[-1:].isdigit() else r"(?!\w)" if fact[-1:].isalnum() else ""
    return re.search(edge + re.escape(_plain(fact)) + end, _plain(text)) is not None


def _plain(text: str) -> str:
    """Lowercase, thousands separators gone: '1,260,000 m³' and '1260000 m³' read alike."""
    return re.sub(r"(?<=\d)[,\u2009\u202f ](?=\d{3}\b)", "", text.lower())


def _check(check: Path, artifacts: Path) -> Grade:
    with tempfile.TemporaryDirectory(prefix="cairn-bench-check-") as tmp:
        for item in artifacts.glob("*.py"):
            shutil.copy(item, tmp)
        shutil.copy(check, Path(tmp) / check.name)
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", check.name],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=120,
        )
    if proc.returncode == 0:
        return Grade(correct=True)
    last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
    return Grade(correct=False, why=f"the benchmark's tests fail: {last}")
