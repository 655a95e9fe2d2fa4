"""An answer as sentences and clauses, without its Markdown, citations and sources list.

>>> body = answer_body("# Answer\\n\\nTeam Falcon owns it [source: a.md].\\n\\n## Sources\\n- a.md\\n")
>>> body
'Team Falcon owns it.'
>>> clauses("Team Falcon owns the billing service, and its budget is 180 ms.")
['Team Falcon owns the billing service', 'its budget is 180 ms.']
"""

from __future__ import annotations

import re

from cairn.memory.embed.embeddings import tokens

UNVERIFIED = "> **Unverified**"  # the banner an incomplete task's kept answer opens with
UNPROVEN = "Unverified: "  # what Cairn writes before a value it gives but cannot prove
_SOURCES = re.compile(r"^#+\s*(?:sources|references|proof|ledger)\s*$", re.I | re.M)
_CITE = re.compile(r"\s*\[source:[^\]]*\]")
# Not after an initial or a short capitalised abbreviation (`J. Smith`, `St. Bartholomew's`).
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)(?<!\b[A-Z][a-z]\.)\s+(?=[\"'“(\[*A-Z0-9])")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_CLAUSE = re.compile(r"\s*;\s*|,\s*(?:and|but|while|whereas)\s+|\s+-{1,2}\s+|\s+[—–]\s+")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")


def answer_body(markdown: str) -> str:
    """The answer's own words: no headings, no Sources or Proof section, no `[source: ...]` marks,
    no banner of an unverified answer."""
    text = _SOURCES.split(markdown, maxsplit=1)[0]
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith(("#", ">")):
            continue
        lines.append(_EMPHASIS.sub(r"\2", _CITE.sub("", line)).rstrip())
    return "\n".join(lines).strip()


def sentences(body: str) -> list[str]:
    """One entry per sentence, list item or table row."""
    found: list[str] = []
    for line in body.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line or set(line) <= set("|-: "):
            continue
        found += [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
    return found


def clauses(sentence: str) -> list[str]:
    """A sentence cut where it joins two statements (`, and`, `;`, a dash)."""
    return [c.strip() for c in _CLAUSE.split(sentence) if c.strip()]


def terms(text: str) -> set[str]:
    """Stemmed content words, compared across an answer, a goal and the files read."""
    return set(tokens(text))
