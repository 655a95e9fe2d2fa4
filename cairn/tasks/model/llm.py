"""Model calls: render, complete through litellm (or a cassette), parse, validate, retry.

`ModelClient.call` never raises for model-side problems: an unreachable provider, a reply that is
not JSON, or JSON that fails validation `max_attempts` times all become a failed `LLMResult` with a
one-line error, so the agent loop records the failure and carries on. Every reply is capped by its
kind (`REPLY_TOKENS`); a real provider's is streamed and hung up on once it repeats itself
(`cairn.tasks.model.stream`), and a reply that ran away is never asked for again to the same cap
(`cairn.tasks.model.attempts`). Model strings: any litellm
model, `cairn/offline` (the deterministic provider in `cairn.tasks.offline`), or `replay:PATH` (with an
optional `?match=kind`) to play a cassette recorded with `record=PATH`.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, ValidationError

from cairn.errors import CairnError
from cairn.memory.models import CallCost
from cairn.tasks.messages import prompts
from cairn.tasks.messages.file_reply import file_list
from cairn.tasks.messages.schemas import (
    INPUTS,
    OUTPUTS,
    CallKind,
    CompressBatchInput,
    CompressBatchOutput,
    CompressInput,
    CompressOutput,
    DetectTaskTypeInput,
    DetectTaskTypeOutput,
    ExtractConstraintInput,
    ExtractConstraintOutput,
    FileDraft,
    Plan,
    PlanInput,
    ResponseFormat,
    Schema,
    SynthesizeInput,
    SynthesizeOutput,
    WriteOutput,
)
from cairn.tasks.model import stream
from cairn.tasks.model.attempts import Attempts
from cairn.tasks.model.cassette import (
    CassetteError,
    CassettePlayer,
    Match,
    Reply,
    load_cassette,
    player_for,
    recorder_for,
)

__all__ = ["LLMResult", "ModelClient", "ModelOutputError", "parse_model_json"]

T = TypeVar("T", bound=Schema)
OFFLINE_PREFIX = "cairn/"
REPLAY_PREFIX = "replay:"
OFFLINE_CONTEXT = 32768
_PUBLIC_BASES = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
UNKNOWN_CONTEXT = 8192
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)


# Provider errors worth another attempt: the next one may well work. Anything else (a bad request,
# a wrong key, an unknown model) fails the call at once.
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
    error: str | None = None
    attempts: int = 0
    cost: CallCost = CallCost()
    raw: str = ""  # the last reply's text
    errors: list[str] = []  # what went wrong with each attempt that failed, in order


class ModelUnavailable(CairnError):
    """The model cannot be used: unknown to litellm, its server does not answer, or its calls
    kept failing (the task stopped, resumable)."""

    exit_code = 4


class BudgetExhausted(CairnError):
    """The task spent its budget (USD or tokens) on model calls; resuming with more continues it."""

    exit_code = 5


# The longest reply each call kind asks for (`CAIRN_MODEL_MAX_TOKENS` sets one for all), sized to
# what the kind carries, from the 1.5B's recorded replies (tests/data/real-model/, the team's
# slugify-coding cassette; completion tokens, largest first). A plan names calls and their short
# arguments: 286-608 tokens for 4-7 candidates, 128 at most for one (a `run_python` with its
# code); 8 candidates (deep mode) at 128 each, with half as much again for headroom, is 1,536.
# Files come from the `write` step, answers and reports from `deliver`: those keep the
# baseline's 2,048. A reply that repeats itself is hung up on long before its cap
# (`cairn.tasks.model.stream`); one that hits it is asked again once, for half
# (`cairn.tasks.model.attempts`).
REPLY_TOKENS: dict[CallKind, int] = {
    "plan": 1536,  # at 4,096, HumanEval/123's plans ran 2,000-3,300 tokens each: 18 minutes
    "deliver": 2048,  # a whole report: 33-35 here, 100-400 in the bench's summaries
    "calculate": 256,  # one expression
    "write": 2048,  # whole files: 88-224 (HumanEval); the baseline's cap
    "compress_batch": 4096,  # up to 16 calls (an opening reads 16 files whole) at compress's 95-160 each
    "compress": 512,  # 95-160 (10 replies)
    "synthesize": 512,  # 134-146 (8); unbounded, the 1.5B once repeated one sentence for 3,000 tokens
    "extract_constraint": 256,  # 15-41 (6)
    "detect_task_type": 256,  # 39-52 (4)
}


# Without a measured speed, a reply is timed as a small model on two CPU cores generates it
# (Qwen2.5-Coder-1.5B: 6-8 tokens/s here): a capped reply must be able to finish.
CPU_TOKENS_PER_S = 5.0
PROMPT_SECONDS = 120.0  # reading a long prompt (60-140 tokens/s on CPU), connecting, queueing


def reply_timeout(reply_tokens: int, tokens_per_s: float | None) -> float:
    """Seconds a request may take: the prompt's allowance plus 1.5 times the longest reply's
    generation at the measured speed (a CPU model's when unmeasured).

    >>> reply_timeout(4096, None), reply_timeout(512, 40.0)
    (1348.8, 139.2)
    """
    speed = max(tokens_per_s or CPU_TOKENS_PER_S, 0.5)
    return round(PROMPT_SECONDS + 1.5 * reply_tokens / speed, 1)


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
            # only a client of that model loads it (see tests/unit/test_layout.py).
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
        tries = Attempts(kind, self.max_tokens or REPLY_TOKENS[kind], prompts.render(kind, payload))
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
                output = _validate(kind, reply)
            except (ModelOutputError, ValidationError) as exc:
                if (error := tries.invalid(reply, _describe(exc), asked)) is not None:
                    return self._failed(tries, error, attempt)
                continue
            return LLMResult[Any](
                kind=kind,
                model=self.model,
                output=output,
                ok=True,
                attempts=attempt,
                cost=tries.cost,
                raw=tries.raw,
                errors=tries.errors,
            )
        return self._failed(tries, tries.exhausted(attempt), attempt)

    def _failed(self, tries: Attempts, error: str, attempts: int) -> LLMResult[Any]:
        return LLMResult[Any](
            kind=tries.kind,
            model=self.model,
            error=error,
            attempts=attempts,
            cost=tries.cost,
            raw=tries.raw,
            errors=tries.errors,
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
        """One request through litellm: streamed from a real provider, so that a reply that
        repeats itself is hung up on at once (`cairn.tasks.model.stream`), and whole otherwise."""
        litellm = _litellm()
        extra: dict[str, Any] = {"temperature": self.temperature, **self.litellm_kwargs, **sampling}
        response_format = response_format_for(self.model, kind, self.response_format)
        if response_format is not None:
            extra["response_format"] = response_format
        streamed = streams(self.model)
        if streamed:
            extra |= _stream_options(self.model)
        timeout = self.timeout_for(max_tokens)
        # num_retries / max_retries 0: litellm's client would otherwise re-send a timed-out call
        # on its own, unseen; Cairn's attempts are the only retries, and each is recorded.
        response = litellm.completion(
            model=self.model,
            messages=messages,
            max_tokens=max_tokens,
            timeout=timeout,
            num_retries=0,
            max_retries=0,
            **extra,
        )
        if not streamed:
            return _reply(self.model, response)
        chunks, finish = stream.read(response, timeout)
        built = litellm.stream_chunk_builder(chunks, messages=messages) if chunks else None
        if built is None:  # nothing came before it ended
            return Reply(finish_reason=finish or "stop")
        return _reply(self.model, built, finish)


def streams(model: str) -> bool:
    """Whether replies are streamed: from a real provider, yes; not from the offline model, a
    replay, or a provider registered in process (`litellm.custom_provider_map`), whose handler
    answers whole (litellm's `CustomLLM` has no stream unless it writes one)."""
    if model.startswith((OFFLINE_PREFIX, REPLAY_PREFIX)):
        return False
    local = {str(item["provider"]) for item in _litellm().custom_provider_map}
    return model.split("/", 1)[0] not in local


def _stream_options(model: str) -> dict[str, Any]:
    """Stream, with the usage in the last chunk where the provider takes `stream_options` (a
    reply hung up on has none: litellm counts its tokens)."""
    try:
        usage = "stream_options" in (_litellm().get_supported_openai_params(model=model) or [])
    except Exception:
        usage = False
    return {"stream": True, "stream_options": {"include_usage": True}} if usage else {"stream": True}


def _reply(model: str, response: Any, finish: str | None = None) -> Reply:
    """A litellm response as a `Reply`; `finish` overrides its finish reason (a stream cut short)."""
    choice = response.choices[0]
    usage = getattr(response, "usage", None)
    return Reply(
        text=str(choice.message.content or ""),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        usd=_usd(model, response),
        finish_reason=str(finish or choice.finish_reason or "stop"),
    )


def transient(exc: Exception) -> bool:
    """Worth another attempt; a replayed failure is judged by the error it recorded."""
    if isinstance(exc, ReplayedProviderError):
        return any(str(exc).startswith((name, f"litellm.{name}")) for name in TRANSIENT)
    return type(exc).__name__ in TRANSIENT


class ModelOutputError(ValueError):
    """A reply that holds no usable JSON; the message is one line, fit to show the model."""


def parse_model_json(text: str) -> Any:
    r"""The JSON value in a model reply: bare, fenced, after prose, with trailing commas tolerated.

    >>> parse_model_json('Sure! ```json\n{"a": [1, 2,],}\n``` Hope that helps.')
    {'a': [1, 2]}
    """
    if not isinstance(text, str) or not text.strip():
        raise ModelOutputError("empty reply: expected a JSON object")
    scalar: list[Any] = []
    for candidate in _json_candidates(text):
        try:
            value = _decode_at_start(candidate)
        except (ValueError, RecursionError):  # JSONDecodeError, huge ints, absurd nesting
            continue
        if isinstance(value, dict | list):
            return value
        scalar = scalar or [value]  # "2 results: {...}" starts with a number: keep looking for the object
    if scalar:
        return scalar[0]
    if "{" in text and text.count("{") > text.count("}"):
        raise ModelOutputError("reply is not complete JSON (truncated? more '{' than '}')")
    raise ModelOutputError("no valid JSON object found in the reply")


def _json_candidates(text: str, tries: int = 8) -> Iterable[str]:
    # Most replies are bare JSON; then a fenced block; then JSON after some prose, tried at the
    # first few '{' / '[' so a stray brace in the prose does not hide the object behind it.
    yield text.strip()
    for block in _FENCE.findall(text):
        yield block.strip()
    starts = [i for i, ch in enumerate(text) if ch in "{["][:tries]
    for start in starts:
        yield text[start:]


def _decode_at_start(text: str) -> Any:
    decoder = json.JSONDecoder()
    for attempt in (text, _drop_trailing_commas(text)):
        try:
            value, _ = decoder.raw_decode(attempt)
            return value
        except ValueError:
            continue
    raise ValueError("not JSON")


def _drop_trailing_commas(text: str) -> str:
    """Remove commas directly before '}' or ']' outside strings (a common model slip)."""
    out: list[str] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch == "," and _next_nonspace(text, i + 1) in ("}", "]"):
            continue
        out.append(ch)
    return "".join(out)


def _next_nonspace(text: str, start: int) -> str:
    end = start
    while end < len(text) and text[end].isspace():
        end += 1
    return text[end : end + 1]


class ReplayedProviderError(RuntimeError):
    """The recorded request failed at the provider; replay fails it the same way."""


def _player(model: str, match: Match) -> CassettePlayer | None:
    if not model.startswith(REPLAY_PREFIX):
        return None
    path, _, query = model[len(REPLAY_PREFIX) :].partition("?match=")
    return player_for(path, "kind" if query == "kind" else match)


def _recorded_model(model: str) -> str:
    path = model[len(REPLAY_PREFIX) :].partition("?match=")[0]
    try:
        entries = load_cassette(Path(path))
    except CassetteError:
        return OFFLINE_PREFIX
    return entries[0].model if entries else OFFLINE_PREFIX


def _validate(kind: CallKind, reply: Reply) -> Schema:
    if kind in prompts.FILE_REPLIES:
        return _files(reply)
    try:
        data = parse_model_json(reply.text)
    except ModelOutputError as exc:
        if reply.finish_reason == "length":
            raise ModelOutputError(f"reply truncated at the token limit: {exc}") from exc
        raise
    return OUTPUTS[kind].model_validate(data)


def _files(reply: Reply) -> WriteOutput:
    """The files of a `write` reply (`cairn.tasks.messages.file_reply`); a model that answered in JSON
    anyway is read as JSON. A reply cut off at the cap keeps the files it closed."""
    blocks = file_list(reply.text)
    if blocks:
        return WriteOutput(files=[FileDraft(path=path, content=code) for path, code in blocks])
    try:
        return WriteOutput.model_validate(parse_model_json(reply.text))
    except (ModelOutputError, ValidationError):
        cut = " (cut off at the token limit)" if reply.finish_reason == "length" else ""
        expected = "expected a path, then a fenced code block"
        raise ModelOutputError(f"no file in the reply{cut}: {expected}") from None


def _describe(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "reply"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return one_line(f"schema validation failed at {where}: {first['msg']}{more}")
    return one_line(exc)


def one_line(error: object, limit: int = 300) -> str:
    """An exception or message as one short line, naming the exception class, no traceback."""
    text = str(error).split("Traceback (most recent call last)", 1)[0]
    if isinstance(error, BaseException) and not isinstance(error, ReplayedProviderError):
        name = type(error).__name__
        text = text if name in text else f"{name}: {text}"
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _cost(reply: Reply, seconds: float) -> CallCost:
    return CallCost(
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        usd=reply.usd,
        seconds=seconds,
    )


def _usd(model: str, response: Any) -> float:
    if model.startswith(OFFLINE_PREFIX):
        return 0.0
    litellm = _litellm()

    try:  # unknown models (custom providers, new releases) have no price: cost 0, not a crash
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:
        return 0.0


def response_format_for(model: str, kind: CallKind, mode: ResponseFormat) -> dict[str, Any] | None:
    """What to ask the provider for: the reply's JSON schema where it takes one (`auto` asks
    litellm), else JSON mode where it has that, else nothing (the prompt carries the schema)."""
    if model.startswith((OFFLINE_PREFIX, REPLAY_PREFIX)) or mode == "none" or kind in prompts.FILE_REPLIES:
        return None
    if mode == "auto":
        mode = "json_schema" if supports_response_schema(model) else "json_object"
        if mode == "json_object" and not supports_json_mode(model):
            return None
    if mode == "json_object":
        return {"type": "json_object"}
    schema, strict = strict_schema(OUTPUTS[kind].model_json_schema())
    spec = {"name": f"cairn_{kind}", "schema": schema, "strict": strict}
    return {"type": "json_schema", "json_schema": spec}


def strict_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema in the form strict structured outputs require (every property required, no
    other properties), and whether that form exists: a free-form object (a tool's `params`) has
    none, so such a schema is sent as it is, not strict.

    >>> schema = {"type": "object", "properties": {"a": {"type": "string", "default": ""}}}
    >>> closed, strict = strict_schema(schema)
    >>> closed["required"], closed["additionalProperties"], strict
    (['a'], False, True)
    """
    if _has_open_object(schema):
        return schema, False
    return _closed(schema), True


def _has_open_object(node: Any) -> bool:
    if isinstance(node, dict):
        open_object = node.get("type") == "object" and "properties" not in node
        return open_object or any(_has_open_object(v) for v in node.values())
    return isinstance(node, list) and any(_has_open_object(v) for v in node)


def _closed(node: Any) -> Any:
    if isinstance(node, list):
        return [_closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _closed(v) for k, v in node.items() if k not in ("default", "title")}
    if out.get("type") == "object" and "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return out


def supports_response_schema(model: str) -> bool:
    """Whether litellm knows the model takes a JSON schema as `response_format`."""
    litellm = _litellm()
    try:
        return bool(litellm.supports_response_schema(model=model))
    except Exception:
        return False


def api_base(model: str) -> str | None:
    """Where litellm sends requests for `model`: the provider's base from the environment
    (`OPENAI_API_BASE`, ...) or its public default, as far as litellm tells."""
    if model.startswith((OFFLINE_PREFIX, REPLAY_PREFIX)):
        return None
    litellm = _litellm()
    try:
        _, provider, _, base = litellm.get_llm_provider(model)
    except Exception:
        return None
    name = str(provider).upper()
    found = base or os.environ.get(f"{name}_API_BASE") or os.environ.get(f"{name}_BASE_URL")
    return str(found or _PUBLIC_BASES.get(str(provider), "")) or None


def check_model(model: str) -> None:
    """Refuse a model string litellm cannot route (`no-such-provider/x`), in one line."""
    if model.startswith((OFFLINE_PREFIX, REPLAY_PREFIX)):
        return
    litellm = _litellm()
    try:
        litellm.get_llm_provider(model)
    except Exception as exc:
        raise ModelUnavailable(f"unknown model {model!r}: {one_line(exc, limit=200)}") from None


def supports_json_mode(model: str) -> bool:
    """Whether litellm knows the model accepts `response_format` (JSON mode)."""
    if model.startswith((OFFLINE_PREFIX, REPLAY_PREFIX)):
        return False
    litellm = _litellm()

    try:
        return "response_format" in (litellm.get_supported_openai_params(model=model) or [])
    except Exception:
        return False


def context_window(model: str) -> int:
    """The model's input token limit (8192 when litellm does not know it; 32768 offline)."""
    if model.startswith(REPLAY_PREFIX):
        # Budget as the recorded run did, so replayed prompts hash the same.
        model = _recorded_model(model)
    if model.startswith(OFFLINE_PREFIX):
        return OFFLINE_CONTEXT
    litellm = _litellm()

    try:
        info = litellm.get_model_info(model)
    except Exception:
        return UNKNOWN_CONTEXT
    return int(info.get("max_input_tokens") or info.get("max_tokens") or UNKNOWN_CONTEXT)


def count_tokens(model: str, text: str) -> int:
    """Tokens of `text` for `model` (litellm's tokenizer; about len/4 when that fails)."""
    litellm = _litellm()

    name = "gpt-4o" if model.startswith((OFFLINE_PREFIX, REPLAY_PREFIX)) else model
    try:
        return int(litellm.token_counter(model=name, text=text))
    except Exception:
        return max(1, len(text) // 4) if text else 0


def _litellm() -> ModuleType:
    # Imported on first use: litellm takes seconds to import and most callers never need it.
    import litellm

    litellm.suppress_debug_info = True  # unknown models otherwise print a provider list to stdout
    return litellm


class NetworkModelBlocked(RuntimeError):
    """A test tried to reach a real model provider."""


def block_network_models(allow: Iterable[str] = ()) -> Callable[[], None]:
    """Refuse litellm requests to real providers (for tests); returns a function that undoes it.

    Allowed: `mock_response=` calls, the `cairn` provider, providers registered in
    `litellm.custom_provider_map` (local fakes), a model server on loopback (`api_base`), and the
    providers named in `allow`.
    A refused completion raises `NetworkModelBlocked`, which `ModelClient` reports as a failed call.
    """
    import litellm

    real_completion, real_embedding = litellm.completion, litellm.embedding
    allowed = {"cairn", *allow}

    def check(kwargs: dict[str, Any], args: tuple[Any, ...]) -> None:
        model = str(kwargs.get("model") or (args[0] if args else ""))
        local = {str(item["provider"]) for item in litellm.custom_provider_map}
        loopback = str(kwargs.get("api_base") or "").startswith(("http://127.0.0.1:", "http://localhost:"))
        if "mock_response" not in kwargs and not loopback and model.split("/", 1)[0] not in allowed | local:
            raise NetworkModelBlocked(f"real model request to {model!r} blocked in tests")

    def completion(*args: Any, **kwargs: Any) -> Any:
        check(kwargs, args)
        return real_completion(*args, **kwargs)

    def embedding(*args: Any, **kwargs: Any) -> Any:
        check(kwargs, args)
        return real_embedding(*args, **kwargs)

    litellm.completion, litellm.embedding = completion, embedding

    def undo() -> None:
        litellm.completion, litellm.embedding = real_completion, real_embedding

    return undo
