"""The validator's judgement (`Verdict`) and its proof: the claims an answer makes, the goal's
parts it answers, the lines read that state them, the functions a coding task's tests called.

>>> Claim(text="6.43 ms", kind="figure", status="unsupported").reason()
'6.43 ms is in no file read'
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.core.frozen import Frozen

ClaimKind = Literal["figure", "date", "name", "quote", "phrase"]
ClaimStatus = Literal["supported", "computed", "unsupported"]
PartStatus = Literal["proven", "absent", "unverified", "open"]


class Claim(Frozen):
    """A fact the deliverable states (a figure, a date, a name, a quoted value, or the words of a
    short answer), and whether what the task read states it too.

    `computed`: not stated anywhere, but the result of Cairn's arithmetic over stated figures.
    `where`: the file (or tool output) that states it, or the arithmetic that gives it.
    """

    text: str
    kind: ClaimKind
    status: ClaimStatus
    where: str = ""
    line: str = ""  # the line of `where` that states it (with its heading or table column)
    clause: str = ""  # the part of the answer's sentence it sits in

    @property
    def supported(self) -> bool:
        return self.status != "unsupported"

    def reason(self) -> str:
        """One line for the verdict: where it comes from, or that nothing read states it."""
        if self.status == "unsupported":
            return f"{self.text} is in no file read"
        return f"{self.text}: {self.where}"


class QuotedLine(Frozen):
    """A line the task read, quoted as proof: where it is and what it says (with the headings or
    label it stands under)."""

    source: str  # the file as the tools name it (`source:docs/teams.md`), or the call that returned it
    line: int  # 1-based
    text: str
    context: str = ""

    def shown(self) -> str:
        """`source:docs/slo.md:7 › | billing | 180 | 99.95% |` (headings before the line)."""
        where = f"{self.source}:{self.line}"
        return f"{where} {self.context} › {self.text}" if self.context else f"{where} {self.text}"


class PartCheck(Frozen):
    """One part of the goal (a question it asks, a thing it asks for), and its proof: the value the
    answer gives and the lines read that state it, or why it is not proven.

    `not_stated`: every source was read (or searched for the part's words) and no candidate the
    verifier scored reaches its absence threshold: the files do not say it. A part neither answered
    nor not stated that has a `value` is *unverified*: the best answer Cairn has, given as such.
    """

    part: str
    answered: bool
    clause: str = ""
    why: str = ""  # what is missing when it is not answered
    value: str = ""  # the answer to this part, as the quoted lines write it
    quotes: list[QuotedLine] = Field(default_factory=list)
    not_stated: bool = False
    score: float | None = None  # the verifier's probability that `value`, so quoted, answers it
    judge: str = ""  # who decided its status (`cairn.tasks.verifier`): Cairn's judge or a user's verifier

    @property
    def status(self) -> PartStatus:
        """proven, absent (the files do not say it), unverified (a value given unproven), or open."""
        if self.answered:
            return "proven"
        if self.not_stated:
            return "absent"
        return "unverified" if self.value else "open"

    @property
    def settled(self) -> bool:
        """Proven, or shown absent: what the suites' "every part of the goal answered" takes."""
        return self.status in ("proven", "absent")


class ModelJudgement(Frozen):
    """A served model's yes/no on one candidate answer and the line quoted for it, as a
    probability: one input of the verifier (`cairn.tasks.verify`)."""

    part: str
    value: str
    source: str
    line: int
    p_yes: float


class Disagreement(Frozen):
    """An input on which two samples of one function returned different values
    (`cairn.tasks.probes`): they cannot both be right."""

    call: str  # `find_zero([1, 3])`
    one: str  # the repr of what the body written returned
    other: str  # the repr of what another sample returned

    def words(self) -> str:
        """`f([2, 1]) gives (2, 1) here and (1, 2) in another sample`."""
        return f"{self.call} gives {self.one} here and {self.other} in another sample"


class FunctionCheck(Frozen):
    """A function the goal names, and the passing test run that called it (a coding task)."""

    name: str
    defined: bool = False  # a file the task wrote defines it
    exercised: bool = False  # the last test run after the last code change passed and called it
    test_run: str = ""  # that run's call id
    disagreement: str = ""  # a second sample of it returned another value on this input (in words)


class Verdict(Frozen):
    """The validator's judgement of a task's evidence against its suite.

    `unmet` names each check that failed in words a person can act on ("6.43 ms is in no file
    read"); the next plan sees them. `confidence` comes from the checks, not from row counts.
    """

    complete: bool
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str
    satisfied: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    suite: str = ""
    validation_id: str = ""
    iteration: int = 0
    unmet: list[str] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    parts: list[PartCheck] = Field(default_factory=list)
    functions: list[FunctionCheck] = Field(default_factory=list)
    every_source_read: bool = False  # each source was read whole, or searched for each question's words
    deliverable: str = ""  # the file judged (relative to the artifacts), and its text then
    answer: str = ""
