"""Model calls: render, complete through litellm (or a cassette), read, validate, retry.

`ModelClient.call` never raises for model-side problems: an unreachable provider, a reply that is
not JSON, or JSON that fails validation `max_attempts` times all become a failed `LLMResult` with a
one-line error (`cairn.tasks.model.failures`), so the agent loop records the failure and carries
on. Every reply is capped by its kind (`cairn.tasks.model.reply_caps`); a real provider's is
streamed and hung up on once it repeats itself (`cairn.tasks.model.completion`), and a reply that
ran away is never asked for again to the same cap (`cairn.tasks.model.attempts`). What a reply holds
is read by `cairn.tasks.model.salvage`. Model strings (`cairn.tasks.model.capabilities`): any
litellm model, `cairn/offline` (the deterministic provider in `cairn.tasks.offline`), or
`replay:PATH` (with an optional `?match=kind`) to play a cassette recorded with `record=PATH`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, ValidationError

from cairn.core import CallCost
from cairn.tasks.messages import prompts
from cairn.tasks.messages.schemas import (
    INPUTS,
    CallKind,
    CompressBatchInput,
    CompressBatchOutput,
    CompressInput,
    CompressOutput,
    DetectTaskTypeInput,
    DetectTaskTypeOutput,
    ExtractConstraintInput,
    ExtractConstraintOutput,
    Plan,
    PlanInput,
    ResponseFormat,
    Schema,
    SynthesizeInput,
    SynthesizeOutput,
)
from cairn.tasks.model.attempts import Attempts, runaway
from cairn.tasks.model.capabilities import OFFLINE_PREFIX, api_base, replay_of
from cairn.tasks.model.cassette import CassetteError, CassettePlayer, Match, Reply, player_for, recorder_for
from cairn.tasks.model.completion import litellm_reply
from cairn.tasks.model.failures import ModelOutputError, ReplayedProviderError, one_line
from cairn.tasks.model.reply_caps import REPLY_TOKENS, reply_cap, reply_timeout
from cairn.tasks.model.response_format import response_format_for
from cairn.tasks.model.salvage import read_output, why_invalid

__all__ = ["LLMResult", "ModelClient"]

T = TypeVar("T", bound=Schema)


# Provider errors worth another attempt: the next one may well work. Anything else (a bad request,
# a wrong key, an unknown model) fails the call at once.
YES_NO_ALTERNATIVES = 10  # the first token's alternatives asked for: `Yes`, `yes`, `No`, `no`, ...
KEPT = "what it had completed was kept"  # a runaway read anyway: a plan's whole steps, a write's files
TRANSIENT = frozenset(
    {"APIConnectionError", "Timeout", "ServiceUnavailableError", "RateLimitError", "InternalServerError"}
)


class LLMResult(BaseModel, Generic[T]):
    """The outcome of one model call, successful or not; `output` is None when `ok` is False."""

    model_config = ConfigDict(frozen=True)

    kind: CallKind
    model: str
    output: T | None = None
    ok: bool = False
    error: str | None = None  # why it failed; on a call that worked, that its reply ran away (`KEPT`)
    attempts: int = 0
    cost: CallCost = CallCost()
    raw: str = ""  # the last reply's text
    errors: list[str] = []  # what went wrong with each attempt that failed, in order


class ModelClient:
    """Calls one model with Cairn's schemas; record or replay cassettes."""

    def __init__(
        self,
        model: str,
        temperature: float = 0.0,
        max_attempts: int = 3,
        record: str | Path | None = None,
        replay_match: Match = "request",
        timeout: float | None = None,
        litellm_kwargs: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
        response_format: ResponseFormat = "auto",
        retry_wait: float = 1.0,
        tokens_per_s: float | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.max_attempts = max(1, max_attempts)
        self.timeout = timeout  # None: scaled with each call's reply cap (`timeout_for`)
        self.tokens_per_s = tokens_per_s  # the model's measured speed (`cairn.tasks.model.probe`)
        self.max_tokens = max_tokens
        self.response_format = response_format
        self.retry_wait = retry_wait  # seconds before a transient failure is tried again (doubling)
        self.litellm_kwargs = dict(litellm_kwargs or {})  # api_base, api_key, mock_response...
        self._player = _player(model, replay_match)
        self._recorder = recorder_for(record, model) if record else None
        if model.startswith(OFFLINE_PREFIX):
            # The offline model is a litellm provider: importing it imports litellm (seconds), so
            # only a client of that model loads it (see tests/unit/project/test_layout.py).
            from cairn.tasks.offline.litellm_provider import register_offline

            register_offline()

    @overload
    def call(self, kind: Literal["plan"], payload: PlanInput) -> LLMResult[Plan]: ...
    @overload
    def call(self, kind: Literal["compress"], payload: CompressInput) -> LLMResult[CompressOutput]: ...
    @overload
    def call(
        self, kind: Literal["compress_batch"], payload: CompressBatchInput
    ) -> LLMResult[CompressBatchOutput]: ...
    @overload
    def call(self, kind: Literal["synthesize"], payload: SynthesizeInput) -> LLMResult[SynthesizeOutput]: ...
    @overload
    def call(
        self, kind: Literal["extract_constraint"], payload: ExtractConstraintInput
    ) -> LLMResult[ExtractConstraintOutput]: ...
    @overload
    def call(
        self, kind: Literal["detect_task_type"], payload: DetectTaskTypeInput
    ) -> LLMResult[DetectTaskTypeOutput]: ...
    @overload
    def call(self, kind: CallKind, payload: Schema) -> LLMResult[Any]: ...
    def call(self, kind: CallKind, payload: Schema) -> LLMResult[Any]:
        """Ask the model for `kind`'s output; retry invalid replies with the validation error.

        >>> client = ModelClient("cairn/offline")
        >>> result = client.call("extract_constraint", ExtractConstraintInput(message="Never use tabs."))
        >>> result.ok, result.output.rule if result.output else None
        (True, 'Never use tabs.')
        """
        if not isinstance(payload, INPUTS[kind]):
            raise TypeError(f"{kind} takes {INPUTS[kind].__name__}, not {type(payload).__name__}")
        cap = REPLY_TOKENS[kind] if kind in prompts.YES_NO else self.max_tokens or reply_cap(kind, payload)
        tries = Attempts(kind, cap, prompts.render(kind, payload))
        sampling = prompts.sampling(payload)
        for attempt in range(1, self.max_attempts + 1):
            if attempt > 1 and tries.spent():
                return self._failed(tries, tries.exhausted(attempt - 1), attempt - 1)
            asked, started = tries.tokens(), time.perf_counter()
            try:
                reply = self._complete(kind, tries.messages, sampling, asked)
            except CassetteError:
                raise  # the replay cannot reproduce the run: a reproduction bug, not a model failure
            except Exception as exc:  # any provider failure is a failed call, never a crash
                tries.cost += CallCost(seconds=time.perf_counter() - started)
                tries.errors.append(one_line(exc))
                if not transient(exc) or attempt == self.max_attempts:
                    return self._failed(tries, tries.errors[-1], attempt)
                time.sleep(self.retry_wait * 2 ** (attempt - 1))
                continue
            tries.cost += _cost(reply, time.perf_counter() - started)
            tries.raw = reply.text
            try:
                output = read_output(kind, reply)
            except (ModelOutputError, ValidationError) as exc:
                if (error := tries.invalid(reply, why_invalid(exc), asked)) is not None:
                    return self._failed(tries, error, attempt)
                continue
            if (what := runaway(reply, asked)) is not None:  # its completed part was kept: said so
                return self._ended(
                    tries, attempt, output=output, ok=True, error=f"{kind} reply {what}: {KEPT}"
                )
            return self._ended(tries, attempt, output=output, ok=True)
        return self._failed(tries, tries.exhausted(attempt), attempt)

    def _failed(self, tries: Attempts, error: str, attempts: int) -> LLMResult[Any]:
        return self._ended(tries, attempts, error=error)

    def _ended(self, tries: Attempts, attempts: int, **outcome: Any) -> LLMResult[Any]:
        """The result after `attempts` tries: how it ended (`output`, or `error`) and what the tries
        cost and said, whichever way it ended."""
        return LLMResult[Any](
            kind=tries.kind,
            model=self.model,
            attempts=attempts,
            cost=tries.cost,
            raw=tries.raw,
            errors=tries.errors,
            **outcome,
        )

    def _complete(
        self, kind: CallKind, messages: list[dict[str, str]], sampling: Mapping[str, float], max_tokens: int
    ) -> Reply:
        try:
            if self._player:
                reply = self._player_reply(kind, messages)
            else:
                reply = self._litellm_reply(kind, messages, sampling, max_tokens)
        except Exception as exc:
            if self._recorder:
                self._recorder.record(kind, messages, None, one_line(exc))
            raise
        if self._recorder:
            self._recorder.record(kind, messages, reply)
        return reply

    def timeout_for(self, reply_tokens: int) -> float:
        """Seconds one request may take: the timeout set by hand, else enough for a reply of
        `reply_tokens` at the model's measured speed (`reply_timeout`)."""
        return self.timeout if self.timeout is not None else reply_timeout(reply_tokens, self.tokens_per_s)

    def describe(self) -> str:
        """`model openai/x at http://127.0.0.1:8088/v1`: what the model is and where it is served."""
        base = self.litellm_kwargs.get("api_base") or api_base(self.model)
        return f"model {self.model}" + (f" at {base}" if base else "")

    def _player_reply(self, kind: CallKind, messages: list[dict[str, str]]) -> Reply:
        assert self._player is not None
        entry = self._player.play(kind, messages)  # CassetteError propagates: not model-side
        if entry.error is not None or entry.reply is None:
            raise ReplayedProviderError(entry.error or "recorded request had no reply")
        return entry.reply

    def _litellm_reply(
        self, kind: CallKind, messages: list[dict[str, str]], sampling: Mapping[str, float], max_tokens: int
    ) -> Reply:
        extra: dict[str, Any] = {"temperature": self.temperature, **self.litellm_kwargs, **sampling}
        response_format = response_format_for(self.model, kind, self.response_format)
        if response_format is not None:
            extra["response_format"] = response_format
        yes_no = kind in prompts.YES_NO
        if yes_no:
            extra |= {"logprobs": True, "top_logprobs": YES_NO_ALTERNATIVES}
        timeout = self.timeout_for(max_tokens)
        return litellm_reply(
            self.model, messages, max_tokens=max_tokens, timeout=timeout, extra=extra, whole=yes_no
        )


def transient(exc: Exception) -> bool:
    """Worth another attempt; a replayed failure is judged by the error it recorded."""
    if isinstance(exc, ReplayedProviderError):
        return any(str(exc).startswith((name, f"litellm.{name}")) for name in TRANSIENT)
    return type(exc).__name__ in TRANSIENT


def _player(model: str, match: Match) -> CassettePlayer | None:
    if (replay := replay_of(model)) is None:
        return None
    path, query = replay
    return player_for(path, "kind" if query == "kind" else match)


def _cost(reply: Reply, seconds: float) -> CallCost:
    return CallCost(
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        usd=reply.usd,
        seconds=seconds,
    )
