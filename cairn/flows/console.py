"""What the CLI writes: one JSON object on stdout, messages on stderr, nothing a terminal obeys.

File names, goals and model text end up on the terminal; `printable` escapes the control
characters in them (an ESC[2J in a file name must not clear the user's screen).

>>> printable("notes\\x1b[2J.md")
'notes\\\\x1b[2J.md'
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from cairn.core import displayable, has_surrogates
from cairn.flows.settings import cairn_home
from cairn.redact import redact

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

err = Console(stderr=True, highlight=False)


def printable(text: str) -> str:
    """`text` with control characters (but tabs and newlines) written as escapes, and the bytes
    of a name that is not UTF-8 as `\\xNN` (a terminal takes valid Unicode only)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], displayable(text))


def safe(text: object) -> str:
    """Text from outside (names, goals, model output) for rich markup: escaped twice over."""
    return escape(printable(str(text)))


def emit(payload: object) -> None:
    """The one JSON object of a `--json` command. A name that is not UTF-8 is written as JSON
    escapes (`\\udce9`), which read back to the very same string."""
    text = json.dumps(payload, default=str, ensure_ascii=False) + "\n"
    if has_surrogates(text):
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(text)


def say(message: str) -> None:
    """A status line on stderr (rich markup allowed; pass outside text through `safe`)."""
    err.print(message)


def save_traceback(exc: BaseException) -> Path:
    """Write the traceback of an unexpected error to a file (redacted); returns its path."""

    text = redact("".join(traceback.format_exception(exc)))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for folder in (cairn_home() / "errors", Path(tempfile.gettempdir()) / "cairn-errors"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{stamp}-{os.getpid()}.txt"
            path.write_text(text, encoding="utf-8")
            return path
        except OSError:
            continue
    raise OSError("no writable folder for the traceback")
