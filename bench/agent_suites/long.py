"""The long suite: every item of a kind, with two fields each, from N files that never use the
goal's words for them (`long_suites/paraphrased.py`), asked in each of the kind's goal wordings.

One task per (kind, goal wording). A kind's corpus is written once, under `root / "long" /
<kind>-<n>-<seed>`, and shared by that kind's wordings; its truth is kept beside it, outside the
folder Cairn reads. The grader reads the report's `## Ledger` table (no rows are guessed from
prose: `long_suites/grade.py`) and scores it: a proven cell right or wrong, an `Unverified: X`
cell apart, a false `not given` counted as wrong.

`Grade.correct` says only that the ledger claims nothing false (no wrong proven row, no false not
given, no wrong unverified value: a value given unproven is still given): the grader cannot see
whether Cairn called the task complete, so an empty ledger is "correct" with recall 0.
`Grade.score` is the recall; `long_verdict` joins both with the task's end, its sources read and
its complete, which `bench/agent.py` knows.

>>> import tempfile
>>> tasks = load(40, 0, Path(tempfile.mkdtemp()), kinds=("dataset",))
>>> len(tasks), tasks[0].name, tasks[0].kind
(8, 'long-dataset-40-0-g1', 'dataset')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from long_suites import grade
from long_suites.grade import Fields, Score, Truth, parse_ledger
from long_suites.paraphrased import goals, write_paraphrased
from long_suites.paraphrases import KINDS

from agent_suites.common import Grade, SuiteTask
from cairn.core import Coverage

KINDS_DEFAULT = ("service", "dataset")
RIGHT_RECALL = 0.9  # a complete ledger must hold at least this share of the truth, proven right
LongVerdict = Literal["right", "false_complete", "honest_incomplete", "wrong"]


def load(n: int, seed: int, root: Path, kinds: tuple[str, ...] = KINDS_DEFAULT) -> list[SuiteTask]:
    """The tasks: for each kind, its corpus of `n` items written once, then one task per goal
    wording over it (see the module docstring)."""
    tasks: list[SuiteTask] = []
    for kind in kinds:
        folder = root / "long" / f"{kind}-{n}-{seed}"
        truth = write_paraphrased(folder, kind, n, seed)
        rows = json.dumps([row.model_dump() for row in truth], indent=1)
        (folder.parent / f"{folder.name}.truth.json").write_text(rows, encoding="utf-8")
        tasks += [_task(kind, n, seed, i, goal, folder, truth) for i, goal in enumerate(goals(kind), 1)]
    return tasks


def _task(kind: str, n: int, seed: int, i: int, goal: str, folder: Path, truth: list[Truth]) -> SuiteTask:
    fields = KINDS[kind].grading
    return SuiteTask(
        name=f"long-{kind}-{n}-{seed}-g{i}",
        goal=goal,
        sources=[folder],
        kind=kind,
        prompt=lambda: _prompt(goal, folder, kind),
        grade=lambda text, artifacts: ledger_grade(text, truth, fields),
    )


def _prompt(goal: str, folder: Path, kind: str) -> str:
    """The baseline's prompt: every file, the goal, and the ledger table the grader reads."""
    from agent_suites import house

    table = (
        f"Give the answer as a Markdown table under a `## Ledger` heading: one row per {kind}, its "
        "name first, then one column per thing asked. Write `not given` where the files give none."
    )
    return house.prompt(goal, [folder]) + "\n\n" + table


def ledger_grade(text: str, truth: list[Truth], fields: Fields) -> Grade:
    """The report's ledger scored: correct when it claims nothing false; recall as the score.

    >>> truth = [Truth(item="kalo", name="Team Coot", figure=40)]
    >>> g = ledger_grade("## Ledger\\n| service | owner | budget |\\n| kalo | Coot | Unverified: 40 ms |\\n",
    ...                  truth, KINDS["service"].grading)
    >>> g.correct, g.score, g.why
    (True, 0.0, 'proven 0 right, 0 wrong; unverified 1 (1 right); false not given 0; missing 0; recall 0.00')
    """
    scored = grade.score(parse_ledger(text, fields), truth, fields)
    correct = claims_nothing_false(scored)
    return Grade(correct=correct, score=scored.recall, why=summary(scored), scored=scored)


def claims_nothing_false(scored: Score) -> bool:
    """No value the ledger gives is wrong: no proven cell, no `not given`, and no unverified value
    either (an unverified value is still given to the user)."""
    return scored.wrong == 0 and scored.false_not_given == 0 and scored.unverified_right == scored.unverified


def summary(scored: Score) -> str:
    """One line: proven right and wrong, unverified (right), false not given, missing, recall.

    >>> s = Score(truth=250, delivered=248, right=230, wrong=0, missing=2, precision=1.0, recall=0.92,
    ...           wrong_reasons={}, distractors={}, examples=[], unverified=18, unverified_right=15)
    >>> summary(s)
    'proven 230 right, 0 wrong; unverified 18 (15 right); false not given 0; missing 2; recall 0.92'
    """
    return (
        f"proven {scored.right} right, {scored.wrong} wrong; unverified {scored.unverified} "
        f"({scored.unverified_right} right); false not given {scored.false_not_given}; "
        f"missing {scored.missing}; recall {scored.recall:.2f}"
    )


def judged(grade: Grade, complete: bool, coverage: Coverage | None) -> Grade:
    """A ledger's grade with how its task ended: right only when `long_verdict` says right or an
    honest incomplete (a complete ledger missing rows, or one with a false cell, is wrong)."""
    score = grade.scored
    if not isinstance(score, Score):
        return grade
    read, sources = (coverage.read, coverage.sources) if coverage is not None else (0, 0)
    verdict = long_verdict(complete, score, read, sources)
    ok = verdict in ("right", "honest_incomplete")
    return grade.model_copy(update={"correct": ok, "why": f"{verdict}: {grade.why}"})


def long_verdict(complete: bool, score: Score, sources_read: int, sources: int) -> LongVerdict:
    """How a long task ended, judged: `right` (complete, recall >= 0.9, nothing false, every
    source read), `false_complete` (complete otherwise), `honest_incomplete` (not complete, and
    nothing false claimed), `wrong` (not complete, and something false claimed).

    >>> s = Score(truth=10, delivered=10, right=9, wrong=0, missing=0, precision=1.0, recall=0.9,
    ...           wrong_reasons={}, distractors={}, examples=[])
    >>> long_verdict(True, s, 12, 12), long_verdict(True, s, 11, 12), long_verdict(False, s, 3, 12)
    ('right', 'false_complete', 'honest_incomplete')
    """
    nothing_false = claims_nothing_false(score)
    if complete:
        whole = score.recall >= RIGHT_RECALL and sources_read >= sources
        return "right" if whole and nothing_false else "false_complete"
    return "honest_incomplete" if nothing_false else "wrong"
