"""A served model reading a coverage goal's ledger, as one iteration asks it.

Two things go to the model (`cairn.tasks.coverage.served`): each changed row, for its values
(`rows`), and a heading's section the fitted reader found no row in, for whether its lines give
every field of the item the heading names (`section`: `# Belzu` over `95 of every 100 requests must
finish within 970 ms. On call for it: Team Chiffchaff.`). Each is one `ledger` call, keyed by what
it asks and by no iteration: a resumed process feeds the ledger every earlier read again, and each
request it makes meets its answer in the cache, whichever iteration first asked it. An item is
asked again only once its lines changed. A failed call leaves what the offline reader found (and
is shown, as every failed model call is).
"""

from __future__ import annotations

from cairn.core import CallKey, LedgerRow, content_hash
from cairn.flows.steps.coverage import Kept
from cairn.flows.steps.executor import Executor
from cairn.flows.steps.model_calls import ask
from cairn.flows.steps.session import Session
from cairn.tasks.coverage.goal import CoverageGoal
from cairn.tasks.coverage.items import key
from cairn.tasks.coverage.ledger import Column, Ledger
from cairn.tasks.coverage.served import columns_of, gives_every_field, read_row, row_input
from cairn.tasks.grounding.units import Unit
from cairn.tasks.messages.schemas import LedgerOutput


class LedgerReading:
    """One iteration's `ledger` calls over the ledger this process keeps."""

    def __init__(self, session: Session, executor: Executor, iteration: int, spec: CoverageGoal, kept: Kept):
        assert kept.ledger is not None
        self.session, self.executor, self.iteration = session, executor, iteration
        self.spec, self.kept = spec, kept
        self.ledger: Ledger = kept.ledger
        self.calls = 0
        self._typed: tuple[int, list[Column | None]] = (-1, [])

    def section(self, name: str, units: list[Unit]) -> bool:
        """Whether the model reads a value of every field, each on one of these lines."""
        answers = self._answers(name, units)
        return answers is not None and gives_every_field(answers, units, self._columns())

    def rows(self, rows: list[LedgerRow], exhausted: bool) -> list[LedgerRow]:
        """The rows as the model reads them, less those the log already holds so."""
        read: list[LedgerRow] = []
        for row in rows:
            lines = self.ledger.lines(key(row.item))
            answers = self._answers(row.item, lines)
            if answers is not None:
                row = read_row(
                    self.spec, row, lines, answers, self._columns(), self.session.verifier, exhausted
                )
            if self.session.state.ledger.get(row.item) != row:
                read.append(row)
        return read

    def _answers(self, name: str, lines: list[Unit]) -> list[str] | None:
        item = key(name)
        known = self.kept.answers.get(item)
        if known is not None and known[0] == len(lines):
            return known[1]
        n, self.calls = self.calls, self.calls + 1
        payload = row_input(self.spec, name, lines)
        asked = int(content_hash(payload.model_dump_json(), 12), 16)  # see the module docstring
        call = CallKey(task_id=self.session.task_id, iteration=0, index=asked, kind="ledger")
        result = ask(self.session, self.executor, call, "ledger", payload, f"ledger-{self.iteration}-{n}")
        if not (result.ok and isinstance(result.output, LedgerOutput)):
            return None
        self.kept.answers[item] = (len(lines), result.output.answers)
        return result.output.answers

    def _columns(self) -> list[Column | None]:
        """The column kinds the model's values so far give (worked out again only after new ones)."""
        if self._typed[0] != len(self.kept.answers):
            answers = (a for _, a in self.kept.answers.values())
            self._typed = (len(self.kept.answers), columns_of(answers, len(self.spec.fields)))
        return self._typed[1]


__all__ = ["LedgerReading"]
