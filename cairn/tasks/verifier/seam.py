"""The `Verifier` seam: who judges, once per answer, whether each part of the goal is proven.

The validation step asks one `Verifier` about a whole answer: for each part of the goal, the
answer's value for it, the lines read that hold that value (Cairn finds them itself:
`cairn.tasks.verifier.exact`) and what Cairn's own judge says. The verifier answers each part `proven`,
`unverified` or `absent`, with a score and who decided. Cairn keeps what it can check exactly:
a part is proven only when its value is on a line the task read, and absent only when every
source was read; a verdict that claims more is given as `unverified`, saying why. Cairn's own
judge (`CairnJudge`, the default) is one verifier among others: pass your own as an object.

>>> from cairn.core import QuotedLine
>>> quote = QuotedLine(source="source:d/teams.md", line=4, text="Team Falcon owns billing.")
>>> part = PartToVerify(part="Which team owns billing?", value="Team Falcon", quotes=[quote],
...                     cairn=PartCheck(part="Which team owns billing?", answered=False, value="Team Falcon"))
>>> request = VerifyRequest(goal="Which team owns billing?", answer="Team Falcon.", parts=[part])
>>> class Trusting:
...     def verify(self, request: VerifyRequest) -> list[PartVerdict]:
...         return [PartVerdict(status="proven", score=1.0) for _ in request.parts]
>>> [(c.status, c.judge) for c in verified(request, Trusting())]
[('proven', 'Trusting')]
>>> bare = part.model_copy(update={"quotes": []})  # no line read holds the value
>>> [(c.status, c.why) for c in verified(request.model_copy(update={"parts": [bare]}), Trusting())]
[('unverified', 'no line read holds Team Falcon')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

from pydantic import Field

from cairn.core import Frozen, PartCheck, QuotedLine
from cairn.tasks.verifier.structural import proves

Status = Literal["proven", "unverified", "absent"]
# The P(yes) a served model's word must reach before `cairn calibrate` measured it: none does (a
# bare `yes` of a server without logprobs reads as 1.0, and a small model says yes to a line that
# merely holds the value's words).
UNCALIBRATED: float | None = None
UNSTATED = "a line read holds it; nothing proves the line states it as the answer"


class PartToVerify(Frozen):
    """One part of the goal as the verifier is asked it."""

    part: str
    value: str = ""  # the answer's value for it, as the answer writes it ("" when it gives none)
    quotes: list[QuotedLine] = Field(default_factory=list)  # the lines read that hold `value`
    cairn: PartCheck  # what Cairn's own judge says of it (its status, score, quotes and why)
    p_yes: float | None = None  # a served model's P(yes) that a line read states `value` as the answer
    # "calls": an action goal's part, `value` the calls its plan made and `quotes` each with its
    # result; whether they did what the goal asked is meaning, never proven by a line's shape.
    kind: Literal["value", "calls"] = "value"


class VerifyRequest(Frozen):
    """One answer to verify: the goal, the answer's text, and each part of the goal."""

    goal: str
    answer: str
    parts: list[PartToVerify]
    every_source_read: bool = False  # every source was read whole, or searched for each part's words


class PartVerdict(Frozen):
    """A verifier's word on one part."""

    status: Status
    score: float | None = None  # how sure the judge is that the value, so quoted, answers the part
    why: str = ""  # what is missing, when not proven
    judge: str = ""  # who decided ("" : the verifier's class name)
    quotes: list[QuotedLine] = Field(default_factory=list)  # which of the part's quotes prove it (none: all)


@runtime_checkable
class Verifier(Protocol):
    """Judges every part of one answer; called once per answer by the validation step."""

    def verify(self, request: VerifyRequest) -> Sequence[PartVerdict]:
        """One verdict per part of `request`, in its order."""
        ...


class CairnJudge:
    """Cairn's own judge, the default. A part is proven by the first of: the fitted verifier over
    the lines read; the structure of a line holding the value (a table's cell, a `Label: value`
    line: `cairn.tasks.verifier.structural`); a served model's own yes/no, where its P(yes) reaches the
    `proven` threshold `cairn calibrate` measured for that model (`calibrated`, `proven`: None
    where no threshold reached the bound); a model never calibrated proves nothing on its word
    alone (`UNCALIBRATED`), and its parts say so.

    >>> judge = CairnJudge(model="openai/m")
    >>> judge.threshold, judge.uncalibrated
    (None, 'uncalibrated: `cairn calibrate --model openai/m`')
    """

    def __init__(self, model: str = "", *, calibrated: bool = False, proven: float | None = None) -> None:
        self.model, self.calibrated, self.proven = model, calibrated, proven

    @property
    def threshold(self) -> float | None:
        """The P(yes) at or above which the model's word proves (None: it never does)."""
        return self.proven if self.calibrated else UNCALIBRATED

    @property
    def uncalibrated(self) -> str:
        """What to say of a model never calibrated ("" once it is)."""
        return "" if self.calibrated else f"uncalibrated: `cairn calibrate --model {self.model}`"

    def verify(self, request: VerifyRequest) -> list[PartVerdict]:
        return [self._part(part, request.goal) for part in request.parts]

    def _part(self, part: PartToVerify, goal: str) -> PartVerdict:
        own = _own(part, goal) if part.kind == "value" else self._calls(part)
        if own.status == "proven" or part.p_yes is None or not part.quotes:
            return own
        if self.threshold is not None and part.p_yes >= self.threshold:
            how = "calibrated" if self.calibrated else self.uncalibrated
            return PartVerdict(status="proven", score=part.p_yes, judge=f"{self.model} ({how})")
        bar = "never proves on its word" if self.threshold is None else f"proves at {self.threshold:.3f}"
        why = f"{self.model} gives P(yes) {part.p_yes:.3f}, {bar}" + (
            f"; {self.uncalibrated}" if self.uncalibrated else ""
        )
        return own.model_copy(update={"why": f"{own.why}; {why}" if own.why else why})

    def _calls(self, part: PartToVerify) -> PartVerdict:
        why = part.cairn.why or "; ".join(
            filter(
                None,
                ["whether these calls did what the goal asked is the model's to judge", self.uncalibrated],
            )
        )
        return PartVerdict(status="unverified", why=why, judge="cairn")


def hears_model(verifier: Verifier) -> bool:
    """Whether a served model's yes/no can change `verifier`'s verdict: not Cairn's own judge of a
    model whose word proves nothing (never calibrated, or no threshold reached precision's bound),
    so the model is not asked."""
    return not isinstance(verifier, CairnJudge) or verifier.threshold is not None


class OncePerAnswer:
    """A verifier asked at most once per answer: the deliver step checks the answer it writes and
    the validation step checks it again as delivered, the same request; the verifier inside sees
    it once and both get its verdicts (a user's verifier may be slow, or a paid model).

    >>> class Counting:
    ...     calls = 0
    ...     def verify(self, request: VerifyRequest) -> list[PartVerdict]:
    ...         Counting.calls += 1
    ...         return [PartVerdict(status="unverified") for _ in request.parts]
    >>> once = OncePerAnswer(Counting())
    >>> request = VerifyRequest(goal="Who?", answer="Ana.", parts=[])
    >>> _ = once.verify(request), once.verify(request)
    >>> Counting.calls
    1
    """

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self._verdicts: dict[str, list[PartVerdict]] = {}

    def verify(self, request: VerifyRequest) -> list[PartVerdict]:
        key = request.model_dump_json()
        if key not in self._verdicts:
            self._verdicts[key] = list(self.verifier.verify(request))
        return self._verdicts[key]


class VerifierError(RuntimeError):
    """A verifier answered with the wrong number of verdicts."""


def verified(request: VerifyRequest, verifier: Verifier) -> list[PartCheck]:
    """Each part's check as `verifier` decides it, within what Cairn checks exactly."""
    verdicts = list(verifier.verify(request))
    if len(verdicts) != len(request.parts):
        name = _name(verifier)
        raise VerifierError(f"verifier {name} gave {len(verdicts)} verdicts for {len(request.parts)} parts")
    return [_checked(p, v, request, _name(verifier)) for p, v in zip(request.parts, verdicts, strict=True)]


def _checked(part: PartToVerify, verdict: PartVerdict, request: VerifyRequest, name: str) -> PartCheck:
    judge = verdict.judge or name
    base = part.cairn.model_copy(update={"value": part.value or part.cairn.value, "judge": judge})
    if verdict.status == "proven":
        # Cairn's own checks already held (an instruction answered by supported claims has no value).
        checked = part.cairn.answered or (part.value and part.quotes)
        if not checked:
            why = f"no line read holds {part.value}" if part.value else "the answer gives no value for it"
            why = part.cairn.why if part.kind == "calls" else why  # a step refused, never made, or failed
            return base.model_copy(update={"answered": False, "not_stated": False, "why": why})
        quotes = [q for q in verdict.quotes if q in part.quotes] or (
            part.cairn.quotes if part.cairn.answered and part.cairn.quotes else part.quotes
        )
        update = {"answered": True, "not_stated": False, "why": "", "quotes": quotes, "score": verdict.score}
        return base.model_copy(update=update)
    if verdict.status == "absent" and request.every_source_read:
        update = {
            "answered": False,
            "not_stated": True,
            "why": verdict.why or part.cairn.why,
            "score": verdict.score,
        }
        return base.model_copy(update=update)
    why = verdict.why or part.cairn.why
    if verdict.status == "absent":
        why = f"{judge} says absent, but not every source was read" + (f" ({why})" if why else "")
    quotes = part.cairn.quotes or part.quotes
    update = {"answered": False, "not_stated": False, "why": why, "quotes": quotes, "score": verdict.score}
    return base.model_copy(update=update)


def _own(part: PartToVerify, goal: str) -> PartVerdict:
    check = part.cairn
    shaped = [q for q in part.quotes if proves(part.part, part.value, q, goal)]
    if not check.answered and shaped:
        return PartVerdict(status="proven", quotes=shaped[:1], judge="cairn (structure)")
    status: Status = "proven" if check.answered else "absent" if check.not_stated else "unverified"
    why = check.why or (UNSTATED if status == "unverified" and part.quotes else "")
    return PartVerdict(status=status, score=check.score, why=why, judge=check.judge or "cairn")


def _name(verifier: Verifier) -> str:
    inner = verifier.verifier if isinstance(verifier, OncePerAnswer) else verifier
    return type(inner).__name__


__all__ = [
    "UNCALIBRATED",
    "CairnJudge",
    "OncePerAnswer",
    "PartToVerify",
    "PartVerdict",
    "Status",
    "Verifier",
    "VerifierError",
    "VerifyRequest",
    "hears_model",
    "verified",
]
