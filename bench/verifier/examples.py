"""Labelled questions to fit the verifier on, from data no one here wrote (and Cairn's own suites).

Each example is one question over the files a `cairn run` of it would read, with a grader that
says whether a value is a right answer (None: no value is, the question has no answer there):

- `squad`: SQuAD 2.0's six development articles, each question over its paragraph and four others
  of its article (`bench/agent_suites/squad.py`); the unanswerable ones (their plausible answers
  are what a careless reader gives) have no right value;
- `squad-removed`: the answerable ones over five other paragraphs, their own left out: none;
- `locomo`: LoCoMo's development conversations, categories 1-4 (token F1 >= 0.5); `locomo-5`, the
  adversarial category: none;
- `house`, `near-house`, `near-locomo`: Cairn's own questions and their generated near misses;
- `ledger`: the fields of Cairn's own service corpus (`bench/long_suites/corpus.py`, in the goal's
  words, prose, tables, CSV, JSON: where labelled cells are), each asked of its item as a coverage
  goal asks it (a budget no file gives has no right value). The paraphrased corpora the long suite
  measures on are not among them.

Folds are groups that share text: a SQuAD article, a LoCoMo conversation, the house folder.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_suites import house, locomo, near, squad
from agent_suites.common import SuiteTask

from cairn.tasks.grounding.parts import is_question, split_goal
from cairn.tasks.grounding.units import Unit, units_of
from cairn.tasks.verify.corpus import Corpus

DATASETS = ("squad", "squad-removed", "locomo", "locomo-5", "house", "near-house", "near-locomo", "ledger")
Right = Callable[[str], bool]


@dataclass
class Example:
    name: str
    dataset: str
    group: str  # the fold it belongs to
    question: str
    folders: list[Path]
    right: Right | None  # None: the question has no answer in these files

    def units(self) -> list[Unit]:
        """Every unit of the example's files, named as `cairn run` names them (`source:NAME/...`)."""
        return list(_units(tuple(self.folders)))

    def sources(self) -> Corpus:
        """The units as the verifier reads them (one object per set of folders: a LoCoMo
        conversation is read once for all its questions)."""
        folders = tuple(self.folders)
        if folders not in _READ:
            _READ[folders] = Corpus(_units(folders))
        return _READ[folders]


_CACHE: dict[tuple[Path, ...], list[Unit]] = {}
_READ: dict[tuple[Path, ...], Corpus] = {}


def _units(folders: tuple[Path, ...]) -> list[Unit]:
    if folders not in _CACHE:
        found: list[Unit] = []
        for folder in folders:
            for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
                text = path.read_text(encoding="utf-8", errors="replace")
                source = f"source:{folder.name}/{path.relative_to(folder).as_posix()}"
                found += units_of(source, text, first_paragraph=_paragraphs(found))
        _CACHE[folders] = found
    return _CACHE[folders]


def _paragraphs(found: list[Unit]) -> int:
    return (found[-1].paragraph + 1) if found else 0


def load(datasets: tuple[str, ...], root: Path) -> list[Example]:
    """The examples of `datasets`, their files written under `root`."""
    out: list[Example] = []
    for name in datasets:
        out += list(_load(name, root))
    return out


def _load(dataset: str, root: Path) -> Iterator[Example]:
    if dataset in ("squad", "squad-removed"):
        removed = dataset == "squad-removed"
        for task in squad.load(squad.DEV, None, 0, root, removed=removed):
            answerable = task.kind == "answerable"
            right = _graded(task, as_deliverable=True) if answerable else None
            yield _example(task, dataset, task.group or "squad", right)
    elif dataset in ("locomo", "locomo-5"):
        kinds = (5,) if dataset == "locomo-5" else locomo.CATEGORIES
        for task in locomo.load(locomo.DEV, None, 0, root, kinds):
            conversation = task.name.split("-")[1]
            yield _example(
                task, dataset, f"locomo-{conversation}", None if dataset == "locomo-5" else _graded(task)
            )
    elif dataset == "house":  # each task a fold of its own, with the near misses made from it
        for task in house.load():
            if task.kind == "answerable" and _one_question(task.goal):
                yield _example(task, dataset, f"house-{task.name}", _graded(task))
            elif task.kind == "unanswerable" and _one_question(task.goal):
                yield _example(task, dataset, f"house-{task.name}", None)
    elif dataset == "near-house":
        for task in near.load_house(None, 0, root, 0, near.kinds("attribute,subject,removed")):
            if _one_question(task.goal):
                yield _example(task, dataset, f"house-{_original(task.name)}", None)
    elif dataset == "ledger":
        yield from _ledger(root)
    elif dataset == "near-locomo":
        for task in near.load_locomo(locomo.DEV, 60, 0, root, 0, near.kinds("attribute,subject,removed")):
            conversation = task.name.split("-")[2] if task.name.count("-") > 2 else "x"
            yield _example(task, dataset, f"locomo-{conversation}", None)


LEDGER_N = 60  # services in the ledger dataset's corpus


def _ledger(root: Path) -> Iterator[Example]:
    from long_suites.corpus import GOAL, write_corpus
    from long_suites.grade import item_key

    from cairn.tasks.coverage.goal import coverage_goal
    from cairn.tasks.grounding import figures

    folder = root / "ledger" / "corpus"
    truth = write_corpus(folder, LEDGER_N, seed=1)
    spec = coverage_goal(GOAL)
    assert spec is not None
    for row in truth:
        owner = row.owner.lower()
        yield Example(f"ledger-{item_key(row.service)}-owner", "ledger", "ledger",
                      spec.question(spec.fields[0], row.service), [folder],
                      lambda value, owner=owner: owner.removeprefix("team ") in value.lower())  # fmt: skip
        budget = row.budget_ms
        right = (
            None
            if budget is None
            else (
                lambda value, budget=budget: any(
                    figures.same_value(f.value, budget) for f in figures.figures(value)
                )
            )
        )
        yield Example(f"ledger-{item_key(row.service)}-budget", "ledger", "ledger",
                      spec.question(spec.fields[1], row.service), [folder], right)  # fmt: skip


def _original(name: str) -> str:
    """The house task a near miss was made from (`near-attribute-billing-owner`: billing-owner)."""
    return name.removeprefix("near-").split("-", 1)[1]


def _one_question(goal: str) -> bool:
    parts = split_goal(goal)
    return len(parts) == 1 and is_question(parts[0])


def _example(task: SuiteTask, dataset: str, group: str, right: Right | None) -> Example:
    return Example(task.name, dataset, group, task.goal, list(task.sources), right)


_SCRATCH = Path(tempfile.gettempdir()) / f"cairn-verifier-fit-{os.getpid()}"


def _graded(task: SuiteTask, as_deliverable: bool = False) -> Right:
    """Whether a value, given as the whole answer (SQuAD's grader reads a deliverable's line:
    the question, then the value), is right by the suite's own grader."""
    if as_deliverable:
        return lambda value: task.grade(f"{task.goal} {value}.", _SCRATCH).correct
    return lambda value: task.grade(value, _SCRATCH).correct


__all__ = ["DATASETS", "Example", "load"]
