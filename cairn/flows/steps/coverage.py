"""A goal about every item of a kind, worked through: the next sources to read, and the ledger
grown by what they said.

A coverage goal (`cairn.tasks.coverage`) is read through mechanically: each iteration reads the
next batch of unread sources (as many as fit the answer's share of the model's context, or
`RunConfig.read_batch`), then every item those files name gets its row worked out again from the
lines that name it (`cairn.flows.loop.progress` records the rows and writes the report). Only what
the iteration read is taken in: the ledger lives in this process, fed call by call, so an
iteration's cost follows its own reads, not the history behind it (a resumed process feeds it the
earlier reads once).

>>> reads_batch(12_000, [300, 300, 300], None)
3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cairn.core import LedgerRow, PlannedCall, ToolCall, displayable
from cairn.flows.steps.session import Session
from cairn.memory.log.state import TaskState
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.ledger import Ledger
from cairn.tasks.grounding.reads import passages
from cairn.tasks.grounding.units import Unit, units_of
from cairn.tasks.task_grounding import FullOutput, goal_over_items, source_files

MAX_BATCH = 64  # files one iteration reads, whatever the budget
READ_WHY = "Coverage: the next sources not read yet, as many as fit the context budget."


def spec_of(state: TaskState) -> CoverageGoal | None:
    """The task's goal as a coverage goal, or None (`goal_over_items`)."""
    return goal_over_items(state)


def reads_batch(budget_chars: int, sizes: list[int], forced: int | None) -> int:
    """How many of the next files (of these sizes) one iteration reads: as many as fit the budget,
    at least one, at most `MAX_BATCH`, or `forced` (`RunConfig.read_batch`)."""
    if forced:
        return max(1, forced)
    total, count = 0, 0
    for size in sizes[:MAX_BATCH]:
        if count and total + size > budget_chars:
            break
        total, count = total + size, count + 1
    return max(1, count)


def next_reads(session: Session) -> list[PlannedCall]:
    """A coverage goal's next batch: the sources not read yet, in order; [] when all are read or the
    goal is no coverage goal."""
    state = session.state
    if spec_of(state) is None:
        return []
    read = read_sources(state)
    roots = {name: Path(folder) for name, folder in state.sources.items()}
    unread = [path for path in source_files(state) if path not in read]
    sizes = [_size(roots, path) for path in unread]
    budget = session.words
    n = reads_batch(budget, sizes, session.config.read_batch)
    return [
        PlannedCall(
            tool="read_file",
            params={"path": displayable(p)},
            rationale=READ_WHY,
            expected_evidence=["synthesis"],
            extractive=True,
        )
        for p in unread[:n]
    ]


@dataclass
class Kept:
    """A task's ledger in this process, how many of its calls it has taken in, and a served
    model's answers per item (with how many lines the item had when asked)."""

    ledger: Ledger | None
    calls: int = 0
    paragraphs: int = 0
    seen: set[str] = field(default_factory=set)
    answers: dict[str, tuple[int, list[str]]] = field(default_factory=dict)

    def take_in(self, state: TaskState, full_output: FullOutput) -> list[str]:
        """Feed the ledger the reads of the calls it has not seen; the items they named."""
        calls = state.calls
        touched: list[str] = []
        if self.ledger is not None:
            for call in calls[self.calls :]:
                touched += self.ledger.add(self._units(call, full_output))
        self.calls = len(calls)
        return list(dict.fromkeys(touched))

    def rows(self, touched: list[str], exhausted: bool, known: dict[str, LedgerRow]) -> list[LedgerRow]:
        """The rows that differ from what the log holds: the touched items', and every open one
        once every source was read (its missing fields are then not given)."""
        assert self.ledger is not None
        again = [i for i in self.ledger.items if exhausted and not _done(known.get(self.ledger.name(i)))]
        found = []
        for item in dict.fromkeys([*touched, *again]):
            row = self.ledger.row(item, exhausted)
            if known.get(row.item) != row:
                found.append(row)
        return found

    def _units(self, call: ToolCall, full_output: FullOutput) -> list[Unit]:
        if call.outcome != "success":
            return []
        path = str(call.params.get("path", ""))
        if call.tool == "read_file" and path.startswith("source:") and path not in self.seen:
            self.seen.add(path)
            return self._numbered(units_of(path, full_output(call), first_paragraph=self.paragraphs))
        if call.tool in ("find_lines", "search_memory"):
            found: list[Unit] = []
            for read in passages(full_output(call)):
                found += self._numbered(
                    units_of(read.source, read.text, read.about, self.paragraphs, read.line)
                )
            return found
        return []

    def _numbered(self, units: list[Unit]) -> list[Unit]:
        if units:
            self.paragraphs = units[-1].paragraph + 1
        return units


_KEPT: dict[str, Kept] = {}


def kept_ledger(session: Session, spec: CoverageGoal | None) -> Kept:
    """The ledger this process keeps for the task (started afresh when the process is new)."""
    root = str(session.recorder.repo.root)
    kept = _KEPT.get(root)
    if kept is None or kept.calls > len(session.state.calls):
        kept = _KEPT[root] = Kept(ledger=Ledger(spec) if spec else None)
    return kept


def _done(row: LedgerRow | None) -> bool:
    return row is not None and row.done


def read_sources(state: TaskState) -> set[str]:
    return {
        str(c.params.get("path", "")) for c in state.calls if c.tool == "read_file" and c.outcome == "success"
    }


def _size(roots: dict[str, Path], path: str) -> int:
    name, _, rel = path.removeprefix("source:").partition("/")
    try:
        return (roots[name] / rel).stat().st_size
    except (KeyError, OSError):
        return 0


__all__ = ["MAX_BATCH", "Kept", "kept_ledger", "next_reads", "read_sources", "reads_batch", "spec_of"]
