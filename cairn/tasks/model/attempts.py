"""The attempts of one model call: what each asks for, and what follows a reply that ran away.

A reply runs away when it stops without ending: cut at its cap (`length`), hung up on because it
repeated itself (`repetition`, `cairn.tasks.model.stream`), or still running at its timeout
(`timeout`). At temperature 0 the same request runs into the same wall again, so a runaway is
never asked again as it was: a JSON reply is asked once more, told what stopped it, for half the
cap, without the runaway in the context; a second runaway fails the call, and so does the first
of a `write` (its step asks again in other words). An invalid reply that ended by itself is asked
again with its error, as before. All the attempts of a call share twice its cap, so a call never
generates more than that, whatever its replies.

>>> tries = Attempts("plan", cap=1536, messages=[])
>>> tries.tokens(), tries.invalid(Reply(finish_reason="repetition", completion_tokens=812), "not JSON", 1536)
(1536, None)
>>> tries.errors, tries.tokens()
(['plan reply repeated itself after 812 tokens: not JSON'], 768)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.core import CallCost
from cairn.tasks.messages import prompts
from cairn.tasks.messages.schemas import CallKind
from cairn.tasks.model.cassette import Reply

Message = dict[str, str]


def runaway(reply: Reply, asked: int) -> str | None:
    """How a reply ran away, in words ("repeated itself after 812 tokens"); None if it ended."""
    tokens = reply.completion_tokens
    if reply.finish_reason == "repetition":
        return f"repeated itself after {tokens:,} tokens"
    if reply.finish_reason == "length":
        return f"was cut at its cap of {asked:,} tokens"
    if reply.finish_reason == "timeout":
        return f"was still running at its timeout, after {tokens:,} tokens"
    return None


@dataclass
class Attempts:
    """What the attempts of one call have asked, spent and met so far."""

    kind: CallKind
    cap: int  # the longest reply the first attempt asks for
    messages: list[Message]  # what the next attempt sends
    cost: CallCost = field(default_factory=CallCost)
    raw: str = ""  # the last reply's text
    errors: list[str] = field(default_factory=list)
    runaways: list[str] = field(default_factory=list)  # how each runaway ended (`runaway`)

    @property
    def budget(self) -> int:
        return 2 * self.cap

    def tokens(self) -> int:
        """The longest reply the next attempt asks for: the cap, half of it after a runaway, and
        never more than what is left of the call's budget."""
        limit = self.cap // 2 if self.runaways else self.cap
        return min(limit, self.budget - self.cost.completion_tokens)

    def spent(self) -> bool:
        """Too little of the budget left for another reply to be worth its prompt."""
        return self.tokens() < self.cap // 4

    def invalid(self, reply: Reply, error: str, asked: int) -> str | None:
        """Take an invalid reply: None when the next attempt may ask again (its messages set),
        or the call's error when it must not."""
        what = runaway(reply, asked)
        if what is None:
            self.errors.append(error)
            answer = {"role": "assistant", "content": reply.text}
            self.messages = [*self.messages, answer, prompts.retry_message(error, self.kind)]
            return None
        self.runaways.append(what)
        self.errors.append(f"{self.kind} reply {what}: {error}")
        if self.kind in prompts.FILE_REPLIES or len(self.runaways) > 1:
            return f"{self.kind} reply {'; asked again, it '.join(self.runaways)}: not tried again"
        self.messages = [*self.messages, prompts.runaway_message(what, self.tokens())]
        return None

    def exhausted(self, attempts: int) -> str:
        """The error of a call whose attempts (or budget) ran out on invalid replies."""
        used = self.cost.completion_tokens
        spent = f", {used:,} of its {self.budget:,} reply tokens spent" if self.spent() else ""
        return f"invalid output after {attempts} attempt{'s' * (attempts > 1)}{spent}: {self.errors[-1]}"
