"""Proper names and quoted values in text: the words an answer stakes on besides its figures.

A proper name is a run of capitalised words (`Team Falcon`, `Alder Creek Reservoir`, `Marta`);
a sentence's first word joins a run only when it is not a common sentence opener ("The", "Based",
"Yes"). Months and weekdays belong to dates, file names to citations: neither is a name. A quoted
value is what an answer puts in quotation marks or backticks.

>>> [n.text for n in names("Team Falcon owns it. The budget is set by Marta and the SLO group.")]
['Team Falcon', 'Marta', 'SLO']
>>> [q.text for q in quotes('The owner field reads "team-falcon" in `services.yaml`.')]
['team-falcon']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cairn.tasks.grounding.lexicon import NOT_NAMES, SENTENCE_OPENERS

_WORD = re.compile(r"[A-Za-z][\w'’&-]*")
_QUOTE = re.compile(r'"([^"\n]{2,120})"|“([^”\n]{2,120})”|`([^`\n]{2,120})`')
# Where a word opens a sentence or a clause: the start, or after a full stop, a colon or a dash
# (Markdown marks aside).
_OPENS = re.compile(r"(?:^|[:;—–.!?]|\s-)[\s*_\"“(#>-]*$")
_PATHISH = re.compile(r"[/\\]|\.\w{1,5}$|^source:")


@dataclass(frozen=True)
class Name:
    text: str
    words: tuple[str, ...]  # lowercase, possessive 's dropped
    start: int


@dataclass(frozen=True)
class Quote:
    text: str
    start: int


def names(sentence: str) -> list[Name]:
    """The proper names of one sentence (or fragment), in order."""
    found: list[Name] = []
    run: list[re.Match[str]] = []
    for match in _WORD.finditer(sentence):
        word = match.group(0)
        if run and sentence[run[-1].end() : match.start()].strip():  # punctuation ends a name
            found += _name(sentence, run)
            run = []
        opens = _OPENS.search(sentence[: match.start()]) is not None
        joins = _capitalised(word) and not (opens and word.lower() in SENTENCE_OPENERS)
        lowered = word.lower()
        dated = lowered in NOT_NAMES or lowered.removesuffix("s") in NOT_NAMES  # `Mondays`
        if joins and not dated and not _glued_to_path(sentence, match):
            run.append(match)
            continue
        found += _name(sentence, run)
        run = []
    return found + _name(sentence, run)


def _capitalised(word: str) -> bool:
    return word[0].isupper() and any(c.isalpha() for c in word)


def _glued_to_path(sentence: str, match: re.Match[str]) -> bool:
    """`slo.md`, `docs/Team.md`: part of a file name, not a name."""
    end, start = match.end(), match.start()
    after = sentence[end : end + 1]
    before = sentence[start - 1 : start] if start else ""
    return after in ("/", "\\") or before in ("/", "\\", ".") or bool(re.match(r"\.\w", sentence[end:]))


def _name(sentence: str, run: list[re.Match[str]]) -> list[Name]:
    if not run:
        return []
    text = sentence[run[0].start() : run[-1].end()]
    words = tuple(re.sub(r"['’]s$", "", m.group(0)).lower() for m in run)
    return [Name(text=re.sub(r"['’]s$", "", text), words=words, start=run[0].start())]


def quotes(text: str) -> list[Quote]:
    """Quoted values, file names and citations aside."""
    found = []
    for match in _QUOTE.finditer(text):
        value = next(group for group in match.groups() if group is not None).strip()
        if value and not _PATHISH.search(value):
            found.append(Quote(text=value, start=match.start()))
    return found
