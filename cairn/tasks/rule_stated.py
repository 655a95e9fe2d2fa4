"""Whether a person stated the rule a model extracted: only people make rules, and only by saying so.

A model asked "does this message hold a rule?" may answer with a rule either way; a small one
turned the goal "How many days of water...?" into "Extract the number of days of water...". A rule
stands only if the message states one (a sentence that is not a question, with the words rules
are made of: never, always, must, avoid, prefer, from now on, ...) and the rule is the message's
own: most of its content words occur in the message.

>>> stated("Never cite Wikipedia.", "Summarise the notes. Never cite Wikipedia.")
True
>>> stated("Extract the number of days of water.", "How many days of water does it hold?")
False
"""

from __future__ import annotations

import re

from cairn.tasks.grounding.lexicon import RULE_PHRASING, RULE_WORDS
from cairn.tasks.offline.text import terms

SUPPORT = 0.6  # share of the rule's content words that must occur in the message
_PHRASES = re.compile(r"\b(?:from now on|going forward|in (?:the )?future|as a rule|every time)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z']+")
_CODE = re.compile(r"`[^`]*`|\b\w+_\w+\b")  # inline code and identifiers: `make_palindrome` is no "make"


def stated(rule: str, message: str) -> bool:
    """Whether `message` states a rule and `rule` is made of its words."""
    return states_a_rule(message) and supported(rule, message)


def states_a_rule(message: str) -> bool:
    """A sentence that is not a question and speaks the language of rules (its code aside).

    >>> states_a_rule("Make sure every file ends with a newline."), states_a_rule("Write `make_it` in a.py.")
    (True, False)
    """
    for sentence in _SENTENCE.split(message.strip()):
        sentence = _CODE.sub(" ", sentence).strip()
        if not sentence or sentence.endswith("?"):
            continue
        if _PHRASES.search(sentence) or set(_WORD.findall(sentence.lower())) & RULE_WORDS:
            return True
    return False


def supported(rule: str, message: str) -> bool:
    """Most of the rule's content words (stemmed, rule phrasing aside) occur in the message."""
    words = set(terms(rule)) - set(terms(" ".join(sorted(RULE_PHRASING))))
    if not words:
        return False
    return len(words & set(terms(message))) >= SUPPORT * len(words)
