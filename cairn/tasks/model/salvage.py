"""A model reply read as its kind's output: the JSON salvaged from prose, fences and trailing
commas, or a `write`'s files; and, when it holds none, why, in one line fit to show the model.

>>> parse_model_json('2 results: {"n": 2}')
{'n': 2}
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError
from pydantic_core import from_json

from cairn.tasks.messages import prompts
from cairn.tasks.messages.docstrings import docstring_in
from cairn.tasks.messages.file_reply import file_list
from cairn.tasks.messages.schemas import (
    OUTPUTS,
    ActOutput,
    AskOutput,
    CallKind,
    DocstringOutput,
    FileDraft,
    JudgeOutput,
    PlannedStep,
    Schema,
    WriteOutput,
)
from cairn.tasks.model.cassette import Reply
from cairn.tasks.model.failures import ModelOutputError, one_line

RAN_AWAY = frozenset({"repetition", "length", "timeout"})  # how a reply stops without ending
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)


def read_output(kind: CallKind, reply: Reply) -> Schema:
    """`kind`'s output in `reply`; raises `ModelOutputError` or pydantic's `ValidationError`."""
    if kind in prompts.FILE_REPLIES:
        return _files(reply)
    if kind in prompts.YES_NO:
        return JudgeOutput(p_yes=p_yes(reply))
    if kind in prompts.PLAIN_REPLIES:
        if not reply.text.strip():
            raise ModelOutputError("an answer was asked for, the reply was empty")
        return AskOutput(answer=reply.text.strip())
    if kind in prompts.DOCSTRINGS:
        if not (docstring := docstring_in(reply.text)):
            raise ModelOutputError("a docstring was asked for, the reply held none")
        return DocstringOutput(docstring=docstring)
    try:
        data = parse_model_json(reply.text)
        return OUTPUTS[kind].model_validate(data)
    except (ModelOutputError, ValidationError) as exc:
        if (kept := steps_completed(kind, reply)) is not None:
            return kept
        if isinstance(exc, ModelOutputError) and reply.finish_reason == "length":
            raise ModelOutputError(f"reply truncated at the token limit: {exc}") from exc
        raise


def steps_completed(kind: CallKind, reply: Reply) -> ActOutput | None:
    """The steps a plan that ran away had written whole, each once: it runs away by writing its
    steps again and again (the 1.5B, on three of slack's goals), and the step it was writing when
    it stopped may be cut. None: not such a reply, or no step was whole.

    >>> text = '{"steps": [{"tool": "read"}, {"tool": "send"}, {"tool": "read"}, {"tool": "se'
    >>> [s.tool for s in steps_completed("act", Reply(text=text, finish_reason="repetition")).steps]
    ['read', 'send']
    """
    start = reply.text.find("{")
    if kind not in ("act", "replan") or reply.finish_reason not in RAN_AWAY or start < 0:
        return None
    try:
        data = from_json(reply.text[start:], allow_partial=True)
        written = ActOutput.model_validate({**data, "steps": data["steps"][:-1]})  # the last may be cut
    except (ValueError, KeyError, TypeError):  # a ValidationError is a ValueError
        return None
    steps: list[PlannedStep] = []
    for step in written.steps:
        if all(step.model_dump(exclude={"why"}) != s.model_dump(exclude={"why"}) for s in steps):
            steps.append(step)
    return written.model_copy(update={"steps": steps}) if steps else None


def p_yes(reply: Reply) -> float:
    """The probability of `yes` against `no` from the first token's alternatives (any case or
    spacing); from the reply's word alone (1 or 0) when the server gave none.

    >>> p_yes(Reply(text="Yes", first_token={"Yes": -0.2, "No": -1.8, "yes": -2.5}))
    0.845
    >>> p_yes(Reply(text="no."))
    0.0
    """
    yes = sum(math.exp(v) for t, v in reply.first_token.items() if t.strip().lower() == "yes")
    no = sum(math.exp(v) for t, v in reply.first_token.items() if t.strip().lower() == "no")
    if yes + no > 0:
        return round(yes / (yes + no), 4)
    word = reply.text.strip().lower().rstrip(".!")
    if word in ("yes", "no"):
        return 1.0 if word == "yes" else 0.0
    raise ModelOutputError(f"a yes or no was asked for, the reply was {reply.text[:40]!r}")


def why_invalid(exc: Exception) -> str:
    """What was wrong with a reply, in one line: the first schema error (and how many more)."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "reply"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return one_line(f"schema validation failed at {where}: {first['msg']}{more}")
    return one_line(exc)


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
