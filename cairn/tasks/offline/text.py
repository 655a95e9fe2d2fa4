"""Text helpers for the offline provider: sentences, goal terms, similarity, relevance.

Similarity blends two cheap signals: the share of the goal's content words found in a text
(stemmed token overlap, which rewards answering the question) and the cosine of the deterministic
hashing embeddings (which catches word pieces such as 'consum' in 'consumption'/'consumed').

Relevance thresholds on that score (0..1): `high` >= 0.40 (most of the goal's terms present),
`medium` >= 0.18 (some terms), `low` otherwise.

>>> similarity("reservoir capacity", "The reservoir holds 1.2 million m3 at full capacity.") > 0.4
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from cairn.core import Relevance
from cairn.memory.embed.embeddings import HashingEmbedder, Vectors, tokens
from cairn.tasks.grounding.lexicon import GOAL_FILLER, MONTH_ABBREVIATIONS, NUMBER_WORDS

HIGH = 0.40
MEDIUM = 0.18
_EMBEDDER = HashingEmbedder(256)
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


# Adjectives of time units name the unit: "days of water at daily consumption". Keys are stems
# as `tokens` leaves them ("daily" -> "dai"; "weekly" -> "week" needs no entry).
_UNIT_STEMS = {"dai": "day", "annual": "year"}


def terms(text: str) -> list[str]:
    """Stemmed content words (`cairn.memory.embed.embeddings.tokens`) with time-unit adjectives unified."""
    return [_UNIT_STEMS.get(t, t) for t in tokens(text)]


def goal_terms(goal: str) -> frozenset[str]:
    """The goal's content words, stemmed, without the question's frame words."""
    wanted = frozenset(terms(goal)) - {t for w in GOAL_FILLER for t in terms(w)}
    return wanted or frozenset(terms(goal))


def overlap(goal: str, text: str) -> float:
    """Share of the goal's terms that occur in `text` (0..1)."""
    wanted = goal_terms(goal)
    return len(wanted & set(terms(text))) / len(wanted) if wanted else 0.0


def matched_words(goal: str, text: str) -> list[str]:
    """The goal's own words (unstemmed, in order) whose stems occur in `text`."""
    present = set(terms(text)) & goal_terms(goal)
    words = [w for w in re.findall(r"[A-Za-z0-9][\w'-]*", goal) if terms(w) and terms(w)[0] in present]
    return list(dict.fromkeys(words))


@lru_cache(maxsize=4096)
def _vector(text: str) -> Vectors:
    return _EMBEDDER.embed([text])[0:1]


def cosine(a: str, b: str) -> float:
    return float(np.dot(_vector(a)[0], _vector(b)[0]))


def similarity(goal: str, text: str) -> float:
    """Goal-relevance of a text, 0..1 (see the module docstring)."""
    if not text.strip():
        return 0.0
    score = 0.7 * overlap(goal, text) + 0.3 * max(0.0, cosine(goal, text))
    if asks_quantity(goal) and has_figure(text):
        score += 0.1  # a figure is what a "how many" question needs
    return min(1.0, score)


_QUANTITY = re.compile(
    r"\b(?:how (?:many|much|long|big|large|often|far|old)|number of|capacity|amount|percent(?:age)?|"
    r"what (?:is|was) the (?:size|volume|rate|cost|price|level))\b",
    re.IGNORECASE,
)


_FIGURE = re.compile(r"(?<![\w.,])(?!(?:18|19|20)\d\d\b)\d[\d,.]*")


def has_figure(text: str) -> bool:
    """Whether the text states a number other than a bare year."""
    return bool(_FIGURE.search(text))


def asks_quantity(goal: str) -> bool:
    """Whether the goal asks for a number (sentences with figures then answer it best)."""
    return bool(_QUANTITY.search(goal))


_SUMMARY = re.compile(r"\b(?:summari[sz]e|summary|overview|digest|recap)\b", re.IGNORECASE)


def asks_summary(goal: str) -> bool:
    """Whether the goal asks to summarise material: then every file's key facts matter, not only
    the sentences that echo the goal's words."""
    return bool(_SUMMARY.search(goal))


def key_sentences(text: str, count: int) -> list[str]:
    """The sentences a summary keeps: those stating figures or dates first, in reading order.

    >>> key_sentences("The team met. The budget is 42,000 euros. Two designers join in May.", 2)
    ['The budget is 42,000 euros.', 'Two designers join in May.']
    """
    found = sentences(text)
    ranked = sorted(range(len(found)), key=lambda i: (not _informative(found[i]), i))[:count]
    return [found[i] for i in sorted(ranked)]


_MONTH = re.compile(
    rf"\b(?:{'|'.join(MONTH_ABBREVIATIONS)})[a-z]*\b|\b(?:{'|'.join(NUMBER_WORDS[:5])})\b", re.I
)


def _informative(sentence: str) -> bool:
    return has_figure(sentence) or bool(_MONTH.search(sentence))


def relevance(score: float) -> Relevance:
    return "high" if score >= HIGH else "medium" if score >= MEDIUM else "low"


def coverage(goal: str, texts: Iterable[str]) -> float:
    """Share of the goal's terms found anywhere in `texts`."""
    return overlap(goal, " ".join(texts))


def sentences(text: str) -> list[str]:
    """Prose sentences of a (markdown) text: headings (also ALL-CAPS lines), fences, `---` lines dropped."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        for unit in _units(block):
            out += [s.strip() for s in _SPLIT.split(unit) if len(s.split()) >= 3]
    return out


def _units(block: str) -> list[str]:
    # Bullet items stand alone; other consecutive lines are one wrapped paragraph.
    units: list[str] = []
    for line in block.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "```", "|---", "---")) or stripped.isupper():
            continue
        if _BULLET.match(line) or not units:
            units.append(_BULLET.sub("", stripped))
        else:
            units[-1] += " " + stripped
    return [u.strip("| ").replace(" | ", "; ") for u in units]


def best_sentences(goal: str, text: str, count: int) -> list[tuple[float, str]]:
    """The `count` sentences most similar to the goal, best first."""
    scored = sorted(((similarity(goal, s), s) for s in sentences(text)), key=lambda p: -p[0])
    return scored[:count]


def clip(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
