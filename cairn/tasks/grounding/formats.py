"""Data files read as text that quotes can come from: a CSV file as a Markdown table, a JSON file's
objects as `key: value` lines, a Markdown file's front matter as one such line.

A row of a CSV file or an object of a JSON list says which value is which only with its header or
its keys; written as a table row or as `key: value; key: value`, each reads alone, as a table row
of a Markdown file does. Line numbers stay the file's own: a CSV row keeps its line (the table has
no divider row: the header is the first line), and a JSON object stands on the line it starts on
(in a JSON list written on one line, the n-th object stands on line n).

>>> print(as_markdown("s.csv", "service,owner\\nbilling,Team Finch\\n"))
| service | owner |
| billing | Team Finch |
>>> print(as_markdown("s.json", '[\\n {"service": "billing",\\n  "owner": "Team Finch"}\\n]'))
<BLANKLINE>
- service: billing; owner: Team Finch
<BLANKLINE>
<BLANKLINE>
>>> print(as_markdown("b.md", "---\\nservice: billing\\non_call_team: Team Finch\\n---\\n# Billing\\n"))
<BLANKLINE>
- service: billing; on call team: Team Finch
<BLANKLINE>
<BLANKLINE>
# Billing
<BLANKLINE>
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

MAX_OBJECTS = 5000


def as_markdown(source: str, text: str) -> str:
    """The text of a `.csv` or `.json` source as Markdown; any other text as it is (or when it does
    not parse)."""
    name = source.lower()
    if name.endswith(".csv"):
        return _csv(text)
    if name.endswith(".json"):
        return _json(text)
    if text.startswith("---\n"):
        return _front_matter(text)
    return text


def _front_matter(text: str) -> str:
    """A leading `---` block of `key: value` lines as one `key: value; ...` record on its first
    key's line (the other lines blank, so every line keeps its number); the rest as it is."""
    lines = text.split("\n")
    end = next((n for n in range(1, len(lines)) if lines[n].strip() == "---"), None)
    if end is None:
        return text
    pairs = [line.partition(":") for line in lines[1:end]]
    if not pairs or not all(colon and key.strip() for key, colon, _ in pairs):
        return text
    record = "; ".join(
        f"{key.strip().replace('_', ' ').replace('-', ' ')}: {value.strip()}" for key, _, value in pairs
    )
    kept = ["", f"- {record}", *([""] * (end - 1)), *lines[end + 1 :]]
    return "\n".join(kept)


def _csv(text: str) -> str:
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error:
        return text
    if len(rows) < 2 or not rows[0]:
        return text
    return "\n".join(_row(row) if row else "" for row in rows)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.strip().replace("|", "/") for cell in cells) + " |"


def _json(text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return text
    objects = [o for o in (data if isinstance(data, list) else [data])[:MAX_OBJECTS]]
    starts = _object_lines(text) if isinstance(data, list) else [1]
    if len(set(starts)) < len(starts) or len(starts) != len(objects):  # several on one line
        starts = list(range(1, len(objects) + 1))  # then the n-th object stands on line n
    lines = [""] * max(text.count("\n") + 1, len(objects))
    for item, line in zip(objects, starts, strict=True):
        if isinstance(item, dict):
            lines[line - 1] = _object(item)
    return "\n".join(lines) if any(lines) else text


def _object_lines(text: str) -> list[int]:
    """The line each element of a top-level JSON list starts on."""
    starts: list[int] = []
    depth, line, quoted, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        if quoted:
            escaped, quoted = (not escaped and char == "\\"), quoted and (escaped or char != '"')
            continue
        if char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            if depth == 2:
                starts.append(line)
        elif char in "]}":
            depth -= 1
    return starts


def _object(item: dict[str, Any], prefix: str = "") -> str:
    pairs: list[str] = []
    for key, value in item.items():
        label = f"{prefix}{key}".replace("_", " ")
        if isinstance(value, dict):
            pairs.append(_object(value, f"{label} ").removeprefix("- "))
        elif isinstance(value, list):
            pairs.append(f"{label}: {', '.join(str(v) for v in value)}")
        else:
            pairs.append(f"{label}: {value}")
    return "- " + "; ".join(p for p in pairs if p)


__all__ = ["as_markdown"]
