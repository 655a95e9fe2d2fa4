"""Files as a model writes them best: each file's path on a line, then its code in a fenced block.

The `write` call asks for this shape instead of JSON. Inside a JSON string every line break and
quote of the code is escaped; the 1.5B spent its reply cap on escaped test cases and was cut off
mid-string, which left no file at all. Blocks are read one by one, so a reply cut off in its last
block (its tests) still keeps the files before it; a block that never closes is dropped.

>>> reply = "f.py\\n```python\\ndef f():\\n    return 1\\n```\\n\\ntest_f.py\\n```python\\ndef te"
>>> file_blocks(reply)
{'f.py': 'def f():\\n    return 1\\n'}
>>> file_blocks(files_reply({"a.py": "x = 1\\n"})) == {"a.py": "x = 1\\n"}
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_NAME = re.compile(r"([\w./-]+\.(?:py|md|txt|toml|json|cfg|ini|yaml|yml|js|ts|sh))\s*:?$")
_FENCE = re.compile(r"^(`{3,})[\w+-]*\s*$")
_DECORATION = "#*`>-: "


def file_blocks(text: str) -> dict[str, str]:
    """File name -> code, for every fenced block a line names (the first block of a name wins)."""
    blocks: dict[str, str] = {}
    for path, code in file_list(text):
        if path:
            blocks.setdefault(path, code)
    return blocks


def file_list(text: str) -> list[tuple[str, str]]:
    """(path, code) for every fenced block, in order: the path from the preceding non-empty line
    (a heading, `**bold**`, a `File: x.py` label) or from the block's own first comment line; ""
    when no line names it (the caller may know where it goes). A block whose lines `# test_x.py`
    start another file is split there; a block cut off keeps the files it finished."""
    blocks: list[tuple[str, str]] = []
    lines = text.splitlines()
    name: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if fence := _FENCE.match(line):
            close = fence.group(1)  # a block holding ``` is fenced with more backticks
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == close), None)
            sections = _sections(lines[i + 1 : end], name)
            blocks += sections[:-1] if end is None else sections  # cut off: not its last
            if end is None:
                break
            name, i = None, end + 1
            continue
        if line:
            name = _named(line)
        i += 1
    return blocks


def _sections(code: list[str], name: str | None) -> list[tuple[str, str]]:
    """A block's files: split where a lone comment line names another file."""
    found: list[tuple[str, list[str]]] = [
        (name or (_named(code[0]) if code and _comment(code[0]) else "") or "", [])
    ]
    for line in code:
        other = _named(line) if _comment(line) else None
        if other and found[-1][1] and other != found[-1][0]:
            found.append((other, []))
        found[-1][1].append(line)
    return [(path, "\n".join(body).strip("\n") + "\n") for path, body in found if "".join(body).strip()]


def _comment(line: str) -> bool:
    return line.strip().startswith("#") and len(line.split()) <= 3


def _named(line: str) -> str | None:
    match = _NAME.search(line.strip().strip(_DECORATION))
    return match.group(1).removeprefix("./") if match else None


def files_reply(files: Mapping[str, str]) -> str:
    """The reply `file_blocks` reads: path, fenced code, for each file."""
    return "\n\n".join(f"{path}\n{_fenced(code)}" for path, code in files.items()) + "\n"


def _fenced(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"^\s*(`{3,})", code, re.M)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}\n{code.rstrip(chr(10))}\n{fence}"


def is_test(path: str) -> bool:
    """A pytest file, by its name: `test_x.py` or `x_test.py`."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))
