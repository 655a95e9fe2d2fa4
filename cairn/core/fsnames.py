"""Names that are not UTF-8: how Cairn carries a file name with undecodable bytes.

POSIX file names are bytes. Python hands a name that is not UTF-8 to us as a `str` holding lone
surrogates (`surrogateescape`: the byte 0xE9 becomes U+DCE9), and `os.fsencode` gives the exact
bytes back. Cairn keeps that `str` as it is, and each place where text becomes bytes says how:

- `history.jsonl` (the source of truth): JSON escapes (`"caf\\udce9.md"`), read back to the same
  string (`cairn.memory.log.history.envelope_line`); the hash chain hashes UTF-8 with `surrogatepass`;
- the memory index, the terminal, run names: `displayable`, the bytes as `\\xe9` escapes, since
  SQLite, Weaviate, Prefect's API and terminals take valid Unicode only. The index is rebuilt from
  the log, so nothing is lost there: `cairn reindex` writes the same escaped form again.

>>> import os
>>> name = os.fsdecode(b"caf\\xe9.md")
>>> displayable(name)
'caf\\\\xe9.md'
>>> os.fsencode(name)
b'caf\\xe9.md'
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """Whether `text` holds lone surrogates (a name that is not UTF-8), which UTF-8 cannot encode."""
    return _SURROGATE.search(text) is not None


def displayable(text: str) -> str:
    """`text` as valid Unicode: an undecodable byte as `\\xNN`, any other lone surrogate as
    `\\udNNN`; text without surrogates comes back unchanged (the same object)."""
    if not has_surrogates(text):
        return text
    return _SURROGATE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's range: one undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def displayable_data(value: object) -> object:
    """`displayable` applied to every string (keys too) of JSON-like data.

    >>> displayable_data({"paths": ["caf\\udce9.md"]})
    {'paths': ['caf\\\\xe9.md']}
    """
    if isinstance(value, str):
        return displayable(value)
    if isinstance(value, dict):
        return {displayable_data(k): displayable_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [displayable_data(v) for v in value]
    return value


_BYTE_ESCAPE = re.compile(r"\\x([89a-f][0-9a-f])")


def from_displayable(name: str) -> str:
    """The file-system name a `displayable` name stands for: each `\\xNN` (NN from 80 to ff) back
    to its byte, as Python holds it (`surrogateescape`). A person or a model who was shown
    `caf\\xe9.md` can hand that text back and reach the file.

    >>> import os
    >>> os.fsencode(from_displayable("caf\\\\xe9.md"))
    b'caf\\xe9.md'
    """
    return _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), name)
