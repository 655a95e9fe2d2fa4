"""How a long value is shown to a model: whole, or as a reference that holds none of it.

The planner sees the calls already made (`DoneCall`); a file's whole text in each of them would
fill its prompt. Such a value was once shown as its first 300 characters and `... (524
characters)`: Qwen2.5-Coder-1.5B proposed that cut text as the file's new content, and Cairn wrote
it over a working `counter.py` (issue 35). Now a long value is shown as a reference only (nothing
partial to copy), and content holding either form is refused (`elision_in`).

>>> shown("x" * 400)
'[not shown: 400 characters]'
>>> shown("x" * 400, "counter.py")
'[not shown: 400 characters; read_file counter.py shows the file]'
>>> elision_in("import re\\n  ... (524 characters)")
'... (524 characters)'
"""

from __future__ import annotations

import re

from cairn.core import JsonValue

SHOWN_CHARS = 300  # a longer argument (a file's whole content) is shown as a reference
# Both forms Cairn has shown: today's reference, and the cut form of 0.3 (a task planned before the
# upgrade has it in its prompts and frontier).
_MARKER = re.compile(r"\[not shown: [\d,]+ characters[^\]\n]*\]|\.\.\. \([\d,]+ characters\)")


def shown(value: JsonValue, file: str = "") -> JsonValue:
    """`value` as a model may see it: whole when short, else a reference (naming `file`, the file
    the value was written to, when there is one)."""
    if not isinstance(value, str) or len(value) <= SHOWN_CHARS:
        return value
    where = f"; read_file {file} shows the file" if file else ""
    return f"[not shown: {len(value)} characters{where}]"


def elision_in(value: JsonValue) -> str | None:
    """The reference `shown` made (or 0.3's cut form), when `value` holds one: such text is Cairn's
    view of an earlier value, never content to write."""
    if isinstance(value, str):
        found = _MARKER.search(value)
        return found.group(0) if found else None
    if isinstance(value, list):
        return next((hit for item in value if (hit := elision_in(item))), None)
    if isinstance(value, dict):
        return next((hit for item in value.values() if (hit := elision_in(item))), None)
    return None
