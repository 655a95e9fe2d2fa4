"""Take secrets out of text before it is kept: history, memory index, UI pages, logs.

Two nets. Patterns catch credentials by their shape (provider key prefixes, bearer tokens, JWTs,
PEM private keys, `password=...` assignments). Exact values catch what no pattern knows: the values
of the user's own secret-looking environment variables, which the entry point reads once with
`secrets_from_env` and either passes in or registers for the whole process with `register_secrets`
(library code never reads `os.environ`). Every `redact` call also applies the registered values, so
a sink deep inside a Prefect task needs no secrets threaded through parameters that Prefect would
persist.

Each secret becomes `[REDACTED:<kind>]`. `redact` is idempotent: markers never match again.

>>> redact("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234")
'export OPENAI_API_KEY=[REDACTED:openai]'
>>> redact("db password is s3cr3t-value!", known_secrets={"s3cr3t-value!"})
'db password is [REDACTED:env]'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
MAX_PASSES = 32  # see `redact`
MIN_SECRET_LENGTH = 8  # shorter environment values ("1", "true", "en") would redact ordinary words
_MARKER = "[REDACTED:{}]"
_NOT_MARKER = r"(?!\[REDACTED:)"
_MARKER_RE = r"\[REDACTED:[a-z_]+\]"
_ENV_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
# The process's known secrets, set once by the entry point: a registry rather than a parameter,
# because flow and task parameters are persisted by Prefect and must never hold a secret.
_registered: frozenset[str] = frozenset()

# The name part of `name = value`: a keyword naming a secret, then up to 40 more name characters.
# It starts at the keyword (not at the start of the name) so the scan stays linear on long words;
# `token(?![a-z])` keeps `max_tokens` and `tokenizer` out.
_SECRET_WORD = (
    r"(?:passw(?:or)?d|passphrase|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|token(?![a-z])|credentials?)"
)
SECRET_KEY_NAME = re.compile(rf"(?i){_SECRET_WORD}")

# (kind, gates, pattern): the whole match is replaced, or only group v, w or x when one matched.
# Specific shapes come first, so a line like `OPENAI_API_KEY=sk-...` is labelled `openai`.
# Each pattern starts with a literal (the "not preceded by a word" check comes after it, as a
# lookbehind over the literal) so `re` can skip ahead with a fast scan; and a pattern runs only if
# one of its gates (lower-case literals it cannot match without) occurs in the case-folded text.
_PATTERNS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    (
        "private_key",
        ("private key",),
        re.compile(
            r"-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----"
            r"(?:[\s\S]{0,20000}?-----END [A-Z ]{0,20}PRIVATE KEY-----|[A-Za-z0-9+/=\s]*)"
        ),
    ),
    ("anthropic", ("sk-ant-",), re.compile(r"sk-ant-(?<![\w-]sk-ant-)[A-Za-z0-9_-]{20,}")),
    ("openai", ("sk-",), re.compile(r"sk-(?<![\w-]sk-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("aws_access_key", ("akia", "asia"), re.compile(r"A(?<![A-Z0-9]A)(?:KIA|SIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    (
        "aws_secret",
        ("secret",),
        re.compile(
            r"(?i)(?=a)aws_?secret(?:_access)?(?:_key)?[\"']?\s*[:=]\s*[\"']?"
            r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
    ("github", ("gh",), re.compile(r"gh[pousr]_(?<![\w-]gh[pousr]_)[A-Za-z0-9]{30,}")),
    ("github", ("github_pat_",), re.compile(r"github_pat_(?<![\w-]github_pat_)[A-Za-z0-9_]{22,}")),
    ("slack", ("xox",), re.compile(r"xox[abposr]-(?<![\w-]xox[abposr]-)[A-Za-z0-9-]{10,}")),
    ("google", ("aiza",), re.compile(r"AIza(?<![\w-]AIza)[0-9A-Za-z_-]{35}")),
    ("huggingface", ("hf_",), re.compile(r"hf_(?<![\w-]hf_)[A-Za-z0-9]{30,}")),
    ("jwt", ("eyj",), re.compile(r"eyJ(?<![\w-]eyJ)[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*")),
    # A bearer token has a digit or is long: "bearer responsibility" in prose is no token.
    (
        "bearer",
        ("bearer",),
        re.compile(
            rf"(?i)(?=b)\bbearer\s+{_NOT_MARKER}(?P<v>(?=[A-Za-z._~+/-]*\d)[A-Za-z0-9._~+/-]{{8,}}=*"
            r"|[A-Za-z0-9._~+/-]{20,}=*)"
        ),
    ),
    (
        "basic_auth",
        ("authorization",),
        re.compile(rf"(?i)(?=a)\bauthorization:\s*basic\s+{_NOT_MARKER}(?P<v>[A-Za-z0-9+/]{{8,}}=*)"),
    ),
    ("url_password", ("://",), re.compile(r"://[^/\s:@\[\]]{1,64}:(?P<v>[^/\s@\[\]]{1,128})@")),
    # `name = value` for a secret-named name: a quoted value (v, w), or a bare one (x) that is no
    # call, subscript or attribute (`token = os.environ["T"]` is code, not a secret), no keyword,
    # and no short number (`token_count: 12`).
    (
        "password",
        ("pass", "secret", "key", "token", "credential"),
        re.compile(
            rf"(?i)(?=[pstac]){_SECRET_WORD}[A-Za-z0-9_.-]{{0,40}}[\"']?[ \t]*[:=][ \t]*{_NOT_MARKER}"
            r"(?:\"(?P<v>[^\"\n]{1,4096})\"|'(?P<w>[^'\n]{1,4096})'"
            r"|(?!(?:None|null|true|false|True|False)\b)(?!\d{1,7}(?![^\s\"',;]))(?!=)"
            r"(?P<x>[^\s\"'`,;()\[\]{}<>]{1,4096})(?![(\[.\w]))"
        ),
    ),
]


def redact(text: str, known_secrets: Collection[str] = ()) -> str:
    """`text` with every credential it holds replaced by `[REDACTED:<kind>]`.

    >>> redact("Authorization: Bearer abcdef123456")
    'Authorization: Bearer [REDACTED:bearer]'
    """
    known = _known_pattern(_usable(frozenset(known_secrets) | _registered))
    # A key glued to the end of another is not "at a word start" until the first is replaced, so
    # each pass may expose one more of a chain: settle it. Markers never match again, so this ends;
    # a text still changing after MAX_PASSES (that many keys glued together) is withheld whole.
    for _ in range(MAX_PASSES):
        redacted = _redact_once(text, known)
        if redacted == text:
            return text
        text = redacted
    return _MARKER.format("unsettled") if _redact_once(text, known) != text else text


def redact_value(obj: T, known_secrets: Collection[str] = ()) -> T:
    """A copy of JSON-like data with every string redacted; a value under a secret-named key
    (`password`, `api_key`, `token`...) is replaced whole, whatever it looks like.

    >>> redact_value({"params": {"password": "hunter2", "path": "a.txt"}})
    {'params': {'password': '[REDACTED:password]', 'path': 'a.txt'}}
    """
    result: Any = _redact_any(obj, frozenset(known_secrets))
    return result  # type: ignore[no-any-return]


def redact_model(model: M) -> M:
    """A copy of a pydantic model with every string field redacted (the same object when clean).

    >>> class Out(BaseModel):
    ...     text: str
    >>> redact_model(Out(text="key sk-proj-abcdefghijklmnopqrstuvwx1234")).text
    'key [REDACTED:openai]'
    """
    data = model.model_dump(mode="json")
    clean = redact_value(data)
    return model if clean == data else type(model).model_validate(clean)


def register_secrets(secrets: Collection[str]) -> None:
    """Make `secrets` known to every later `redact` call in this process (entry points only)."""
    global _registered
    _registered = _registered | frozenset(secrets)


def registered_secrets() -> frozenset[str]:
    return _registered


def secrets_from_env(env: Mapping[str, str]) -> frozenset[str]:
    """Values of secret-named variables (KEY, TOKEN, SECRET, PASSWORD), for `known_secrets`.

    >>> sorted(secrets_from_env({"OPENAI_API_KEY": "abcdefgh123", "HOME": "/home/me", "MY_TOKEN": "x"}))
    ['abcdefgh123']
    """
    return frozenset(
        value.strip()
        for name, value in env.items()
        if _ENV_SECRET_NAME.search(name) and len(value.strip()) >= MIN_SECRET_LENGTH
    )


def _redact_once(text: str, known: re.Pattern[str] | None) -> str:
    if known is not None:
        text = known.sub(_replace_known, text)
    folded = text.casefold()  # casefold, not lower: `re` (?i) matches "ſ" as "s"; so does this
    for kind, gates, pattern in _PATTERNS:
        if any(gate in folded for gate in gates):
            text = pattern.sub(lambda m, kind=kind: _replace(m, kind), text)  # type: ignore[misc]
    return text


def _replace_known(match: re.Match[str]) -> str:
    found = match.group(0)
    return found if found.startswith("[REDACTED:") else _MARKER.format("env")


def _replace(match: re.Match[str], kind: str) -> str:
    """The match with its secret part (group v, w or x if present, else all of it) replaced."""
    marker = _MARKER.format(kind)
    for group in ("v", "w", "x"):
        if group in match.re.groupindex and match.group(group) is not None:
            start, end = match.span(group)
            base = match.start()
            whole = match.group(0)
            return whole[: start - base] + marker + whole[end - base :]
    return marker


def _usable(secrets: Collection[str]) -> frozenset[str]:
    """Known secrets worth matching: long enough, and unable to end inside a marker (which would
    make `redact` rewrite its own output)."""
    return frozenset(s for s in secrets if len(s) >= MIN_SECRET_LENGTH and not _ends_in_marker(s))


def _ends_in_marker(secret: str) -> bool:
    head = "[REDACTED:"
    if "[REDACTED" in secret:
        return True
    return any(head.startswith(secret[i:]) for i, ch in enumerate(secret) if ch == "[")


@lru_cache(maxsize=32)
def _known_pattern(secrets: frozenset[str]) -> re.Pattern[str] | None:
    if not secrets:
        return None
    # Markers first, so a secret is never matched inside one; then longest first, so a secret
    # that contains another is replaced whole.
    alternatives = sorted(secrets, key=len, reverse=True)
    return re.compile("|".join([_MARKER_RE, *(re.escape(s) for s in alternatives)]))


def _redact_any(obj: object, known: frozenset[str]) -> object:
    if isinstance(obj, str):
        return redact(obj, known)
    if isinstance(obj, Mapping):
        return {key: _redact_entry(key, value, known) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        items = [_redact_any(item, known) for item in obj]
        return tuple(items) if isinstance(obj, tuple) else items
    return obj


def _redact_entry(key: object, value: object, known: frozenset[str]) -> object:
    if isinstance(key, str) and isinstance(value, str) and value and SECRET_KEY_NAME.search(key):
        return value if value.startswith("[REDACTED:") else _MARKER.format("password")
    return _redact_any(value, known)
