"""Reading a streamed reply: stop it as soon as it repeats itself, or when its time is up.

A small model at temperature 0 can fall into a loop: the same candidate, sentence or blank line
again and again until its cap (Qwen2.5-Coder-1.5B: 3,000 tokens of one `synthesize` sentence;
plan replies of 2,000-3,300 tokens on HumanEval/123). Streamed, such a reply is seen as it grows,
and `read` hangs up as soon as its end repeats one block `MIN_REPEATS` times in a row over at
least `MIN_SPAN` characters. Legitimate replies do not: entries of a plan or asserts of a test
differ (a path, a value), and the exact repeats they hold are short (a table rule, a line of `=`)
or apart (the 1.5B's plans named one call twice, never three times running).

>>> repeats('{"a": [' + '"same entry, ", ' * 40)
16
>>> repeats('{"a": [' + ", ".join(f'"entry {n}"' for n in range(60)))
0
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

MIN_REPEATS = 3  # copies in a row of one block: two can be a model naming one call twice
MIN_SPAN = 600  # characters the copies cover at least (about 150 tokens): ten equal lines of a fixture pass
WINDOW = 6000  # characters looked back: blocks of up to 2,000 characters (a plan's candidate is 300-600)
ANCHOR = 16  # the reply's last characters, sought further back to find where a block may start
# litellm raises (MidStreamFallbackError) when one chunk of over 2 characters comes 100 times
# running (`REPEATED_STREAMING_CHUNK_LIMIT`): a repetition too, sometimes seen before `repeats`.
LITELLM_REPEATING = "The model is repeating the same chunk"


def repeats(text: str) -> int:
    """The length of the block that the end of `text` repeats (`MIN_REPEATS` times in a row,
    over `MIN_SPAN` characters at least), or 0 when it does not end repeating itself."""
    size = len(text)
    if size < MIN_SPAN:
        return 0
    anchor, end = text[-ANCHOR:], size - 1
    while (at := text.rfind(anchor, max(0, size - WINDOW), end)) >= 0:
        period = size - ANCHOR - at  # the anchor seen `period` characters earlier
        copies = max(MIN_REPEATS, -(-MIN_SPAN // period))
        if period * copies > WINDOW:
            return 0
        if text[-period * copies :] == text[-period:] * copies:
            return period
        end = at + ANCHOR - 1
    return 0


def read(stream: Iterable[Any], seconds: float) -> tuple[list[Any], str | None]:
    """The chunks of a streamed reply and how it ended: the provider's finish reason,
    `repetition` (it started repeating itself) or `timeout` (still running after `seconds`);
    the stream is closed either way, so the server stops generating."""
    deadline = time.monotonic() + seconds
    chunks: list[Any] = []
    text, finish = "", None
    try:
        for chunk in stream:
            chunks.append(chunk)
            piece, reason = _delta(chunk)
            text, finish = text + piece, reason or finish
            if piece and repeats(text):
                return chunks, "repetition"
            if time.monotonic() > deadline:
                return chunks, "timeout"
    except Exception as exc:
        if LITELLM_REPEATING not in str(exc):
            raise
        return chunks, "repetition"  # litellm's own check: one chunk 100 times running
    finally:
        close(stream)
    return chunks, finish


def _delta(chunk: Any) -> tuple[str, str | None]:
    choices = getattr(chunk, "choices", None) or []
    if not choices:
        return "", None
    delta = getattr(choices[0], "delta", None)
    return str(getattr(delta, "content", None) or ""), getattr(choices[0], "finish_reason", None)


def close(stream: Any) -> None:
    """Hang up a litellm stream: close the provider's stream under it (an HTTP response), so a
    server that would go on generating sees the client gone."""
    inner = getattr(stream, "completion_stream", None)
    closer = getattr(inner, "close", None)
    if callable(closer):
        try:
            closer()
        except Exception:  # closing is best effort: the reply read so far stands
            return
