"""The near-miss suites of `bench/agent.py`: the questions of `bench/near_misses.py`, made from
the house tasks (`near-house`) and LoCoMo's dev questions (`near-locomo`), each graded by
`novalue` (correct when no value is given, and not the original question's answer).

`near-house` takes every answerable house task with `facts` (an instruction, such as `summary`,
is skipped by the generator: it is not a question); its `removed` kind drops every line that
states one of the task's facts, and its other kinds skip a goal of several parts (a swap in one
leaves the others answerable, their facts no traps). `near-locomo` takes the questions of
categories 1-4 that `--limit/--offset` select, in the same order; its `removed` kind drops the
turns the row's `evidence` names. Per original: attribute, subject, removed, each named
`near-{kind}-{original}`.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from near_misses import KINDS, Corpus, Kind, NearMiss, Skipped, corpus, make, rng_for
from source_lines import drop

from agent_suites import house, locomo, novalue
from agent_suites.common import SuiteTask
from cairn.tasks.grounding import split_goal
from cairn.tasks.grounding.lemmas import content_terms, forms

Files = dict[str, dict[str, str]]  # a source folder's name -> its files' paths -> their text


@dataclass(frozen=True)
class Case:
    """One kind made (or skipped) for one original task; `removed` carries its reduced sources."""

    original: str  # the original task's name
    made: NearMiss | Skipped
    files: Files = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"near-{self.made.kind}-{self.original}"


def kinds(text: str) -> tuple[Kind, ...]:
    """`--kinds attribute,removed`, checked, in the generator's order."""
    asked = {k.strip() for k in text.split(",") if k.strip()}
    unknown = sorted(asked - set(KINDS))
    if unknown:
        raise SystemExit(f"unknown kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
    return tuple(k for k in KINDS if k in asked)


def house_cases(
    limit: int | None, offset: int, seed: int, chosen: tuple[Kind, ...]
) -> Iterator[tuple[Case, house.HouseSpec, list[Path]]]:
    """The near misses of the answerable house tasks that declare facts (`limit` and `offset`
    select among those)."""
    shared: dict[tuple[Path, ...], Corpus] = {}
    originals = [
        (n, spec, sources) for n, spec, sources in house.specs() if spec.facts and not spec.unanswerable
    ]
    for name, spec, sources in originals[offset:][:limit]:
        texts = _texts(sources)
        key = tuple(sources)
        if key not in shared:
            shared[key] = corpus([text for files in texts.values() for text in files.values()])
        for kind in chosen:
            yield _house_case(name, spec, texts, shared[key], kind, seed), spec, sources


def _house_case(name: str, spec: house.HouseSpec, texts: Files, read: Corpus, kind: Kind, seed: int) -> Case:
    if kind != "removed" and len(split_goal(spec.goal)) > 1:
        # "Which queue owns the billing service, and what is its p95 latency budget?": the budget
        # is still stated, so the goal is no near miss, and its facts are no traps.
        return Case(name, Skipped(kind, spec.goal, "a swap in one part leaves the others answerable"))
    if kind != "removed":
        return Case(name, make(spec.goal, read, kind, rng_for(seed, name, kind)))
    if not spec.goal.rstrip().endswith("?"):
        return Case(name, Skipped(kind, spec.goal, "not a question"))
    holds = lambda line: any(house.states(line, fact) for fact in spec.facts)  # noqa: E731
    reduced = {
        folder: {path: drop(text, holds) for path, text in files.items()} for folder, files in texts.items()
    }
    if not any(gone for files in reduced.values() for _, gone in files.values()):
        return Case(name, Skipped(kind, spec.goal, "no line states a fact"))
    kept = {folder: {path: text for path, (text, _) in files.items()} for folder, files in reduced.items()}
    return Case(name, NearMiss("removed", spec.goal, spec.goal), kept)


def _texts(sources: list[Path]) -> Files:
    return {
        folder.name: {
            path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        }
        for folder in sources
    }


def locomo_cases(
    data: Path, limit: int | None, offset: int, seed: int, chosen: tuple[Kind, ...]
) -> Iterator[tuple[Case, dict[str, Any], dict[str, Any]]]:
    """The near misses of the LoCoMo questions (categories 1-4) that limit and offset select."""
    shared: dict[str, Corpus] = {}
    for sample, qa in locomo.select(data, limit, offset):
        sid = str(sample["sample_id"])
        if sid not in shared:
            conv = sample["conversation"]
            shared[sid] = corpus([locomo.transcript(sample)], speakers=[conv["speaker_a"], conv["speaker_b"]])
        name, question = locomo.task_name(sample, qa), str(qa["question"]).strip()
        for kind in chosen:
            if kind != "removed":
                yield Case(name, make(question, shared[sid], kind, rng_for(seed, name, kind))), sample, qa
            else:
                yield _locomo_removed(name, question, sample, qa), sample, qa


def _stating_turns(sample: dict[str, Any], question: str) -> frozenset[str]:
    """The turns whose speaker and words hold every content word of the question, as lemmas."""
    wanted = content_terms(question)
    conv = sample["conversation"]
    turns = [turn for key, session in conv.items() if re.fullmatch(r"session_\d+", key) for turn in session]
    return frozenset(
        str(turn["dia_id"]) for turn in turns if wanted <= forms(f"{turn['speaker']}: {turn['text']}")
    )


def _locomo_removed(name: str, question: str, sample: dict[str, Any], qa: dict[str, Any]) -> Case:
    # A few rows join two ids in one string ("D8:6; D9:17"): every id written is taken.
    evidence = frozenset(re.findall(r"D\d+:\d+", " ".join(map(str, qa.get("evidence", [])))))
    # LoCoMo's evidence names one turn a fact stands in, not every one: a turn holding all the
    # question's words states it as well ("Maria: ... I met this amazing woman, Jean" beside the
    # evidence turn of "When did Maria meet Jean?"), and goes with it.
    evidence |= _stating_turns(sample, question)
    full, reduced = locomo.transcript(sample), locomo.transcript(sample, without=evidence)
    if reduced == full:
        return Case(name, Skipped("removed", question, "no evidence turn in the conversation"))
    sid = str(sample["sample_id"])
    return Case(name, NearMiss("removed", question, question), {sid: {f"{sid}.md": reduced}})


def generated(
    suite: str, limit: int | None, offset: int, seed: int, chosen: tuple[Kind, ...], data: Path | None = None
) -> list[tuple[str, NearMiss | Skipped]]:
    """(original task, near miss or skip) for the CLI's table: `house` or `locomo`."""
    if suite == "house":
        cases = [case for case, _, _ in house_cases(limit, offset, seed, chosen)]
    else:
        cases = [case for case, _, _ in locomo_cases(data or locomo.DEV, limit, offset, seed, chosen)]
    return [(case.original, case.made) for case in cases]


def load_house(
    limit: int | None, offset: int, root: Path, seed: int, chosen: tuple[Kind, ...]
) -> list[SuiteTask]:
    """The `near-house` suite: one task per near miss made (`limit`, `offset`: of the originals)."""
    cases = house_cases(limit, offset, seed, chosen)
    return [_house_task(case, spec, sources, root) for case, spec, sources in cases if _made(case)]


def load_locomo(
    data: Path, limit: int | None, offset: int, root: Path, seed: int, chosen: tuple[Kind, ...]
) -> list[SuiteTask]:
    """The `near-locomo` suite: one task per near miss made, in the order of the originals."""
    cases = locomo_cases(data, limit, offset, seed, chosen)
    return [_locomo_task(case, sample, qa, root) for case, sample, qa in cases if _made(case)]


def _made(case: Case) -> bool:
    return isinstance(case.made, NearMiss)


def _house_task(case: Case, spec: house.HouseSpec, sources: list[Path], root: Path) -> SuiteTask:
    """As the house suite runs the original (Cairn detects the task type), graded by `novalue`:
    stating one of the original's facts is giving a value."""
    folders = _written(case, root) if case.files else sources
    return _task(
        case,
        folders,
        gives=lambda answer: any(house.states(answer, fact) for fact in spec.facts),
        prompt=lambda question: house.prompt(question, folders),
        task_type=None,
    )


def _locomo_task(case: Case, sample: dict[str, Any], qa: dict[str, Any], root: Path) -> SuiteTask:
    """As the LoCoMo suite runs the original, graded by `novalue`: F1 >= 0.5 against the
    original's answer is giving a value."""
    folders = _written(case, root) if case.files else [locomo.conversation_folder(sample, root)]
    return _task(
        case,
        folders,
        gives=lambda answer: locomo.gives(answer, qa),
        prompt=lambda question: locomo.prompt(question, folders[0]),
        task_type="simple_question",
    )


def _task(
    case: Case,
    folders: list[Path],
    gives: Callable[[str], bool],
    prompt: Callable[[str], str],
    task_type: str | None,
) -> SuiteTask:
    from cairn.tasks.grounding import answer_body

    question = case.made.question if isinstance(case.made, NearMiss) else case.made.original
    return SuiteTask(
        name=case.name,
        goal=question,
        sources=folders,
        task_type=task_type,
        kind=case.made.kind,
        prompt=lambda: prompt(question),
        grade=lambda text, artifacts: novalue.graded(answer_body(text), gives),
    )


def _written(case: Case, root: Path) -> list[Path]:
    """A removed case's reduced sources, written under the bench's root, one folder each."""
    base = root / "near-sources" / case.name
    shutil.rmtree(base, ignore_errors=True)
    for folder, files in case.files.items():
        for path, text in files.items():
            target = base / folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    return [base / folder for folder in case.files]
