"""What model calls cost and what the preflight learnt of the model's server.

>>> (CallCost(prompt_tokens=3, usd=0.5) + CallCost(completion_tokens=2)).tokens
5
"""

from __future__ import annotations

from typing import Literal

from cairn.core.frozen import Frozen


class CallCost(Frozen):
    """What one call cost: model tokens, money and wall time."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0
    seconds: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: CallCost) -> CallCost:
        return CallCost(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            usd=self.usd + other.usd,
            seconds=self.seconds + other.seconds,
        )


class ModelCall(Frozen):
    """One model call of any kind (plan, compress, synthesize, detect, extract): what it was for,
    whether it worked, why not, and what it cost. Every one is in the task's history."""

    key: str  # task_id/iteration/index/kind: one record per call, however often a run resumes
    kind: str
    model: str
    iteration: int = 0
    ok: bool = True
    error: str | None = None  # why it failed; on a call that worked, that its reply ran away
    attempts: int = 1
    cost: CallCost = CallCost()


class ModelProbe(Frozen):
    """What the model preflight learnt of the model's server before a run: the reply format it
    takes (how Cairn asks for JSON), why, and how fast it answered (which scales the timeouts)."""

    model: str
    response_format: Literal["json_schema", "json_object", "none"]
    reason: str  # one line: litellm knew it, or what the tried strict schema met
    tokens_per_s: float | None = None  # the probe reply's tokens over its wall time; None: unknown
    seconds: float = 0.0
