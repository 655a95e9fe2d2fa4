"""What `write_file` refuses to write, and what it says about what it writes.

Two refusals, each a failed output with its reason (the planner reads it) and the file untouched:

- content holding Cairn's reference to an earlier value (`cairn.tasks.messages.elision`): the
  model copied the planner's shortened view of a file back as the file (issue 35);
- a Python file that parses replaced by text that does not: a working module is never traded for
  a broken one silently. A new file that does not parse is written, and the output says so.

>>> refusal("a.md", "text ... (524 characters)", None)[:60]
"the content holds '... (524 characters)', Cairn's reference "
>>> refusal("a.py", "def f(:\\n", "def f():\\n    return 1\\n")[:60]
'a.py parses now and this content does not (SyntaxError at li'
"""

from __future__ import annotations

import ast

from cairn.tasks.messages.elision import elision_in


def refusal(path: str, content: str, before: str | None) -> str | None:
    """Why `content` must not replace `before` (None: the file does not exist) at `path`."""
    if marker := elision_in(content):
        return (
            f"the content holds {marker!r}, Cairn's reference to an earlier value, not its text: "
            "write the whole file"
        )
    if before is None or not path.endswith(".py") or syntax_error(before) is not None:
        return None
    if (error := syntax_error(content)) is not None:
        return f"{path} parses now and this content does not ({error}): the file is unchanged; write it whole"
    return None


def note(path: str, content: str) -> str:
    """What the output adds about written content: that a Python file does not parse."""
    error = syntax_error(content) if path.endswith(".py") else None
    return f"; it does not parse ({error})" if error else ""


def syntax_error(code: str) -> str | None:
    """Why `code` is not Python (`SyntaxError at line 3: ...`), or None when it parses."""
    try:
        ast.parse(code)
    except SyntaxError as exc:
        return f"{type(exc).__name__} at line {exc.lineno}: {exc.msg}"
    except ValueError as exc:  # a NUL byte
        return f"ValueError: {exc}"
    return None
