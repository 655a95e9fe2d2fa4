"""The "no value given" grader: for a question whose answer no source states (a near miss, a house
task marked `unanswerable`, a LoCoMo category-5 question), an answer is correct when it gives no
value: it is empty, or it says plainly that the sources do not state the answer; and, either
way, it states none of the values a wrong answer would give (the original question's answer, the
near neighbour's: each suite says how it recognises them).

"Says plainly" is one of a short, general set of phrasings, read after contractions are spelt out
("doesn't" is "does not"):

- `not stated`, `not mentioned`, `not given`, `not specified`, `not provided`, `not listed`,
  `not named`, `not recorded`, `not said`, `not found`, `not known`, `not available`;
- `not in the files` (sources, documents, conversation, excerpts, text, notes, transcript);
- `do`/`does`/`did not` `say`, `state`, `mention`, `specify`, `give`, `name`, `list`, `include`,
  `contain`, `provide`, `indicate`, `tell`;
- `no information`, `no mention`, `no record`, `no data`, `no detail(s)`, `no indication`;
- `cannot be answered` (determined, found, known, said, told), `cannot answer` (determine, find,
  tell, say, know); `could not find` (determine, tell), `unable to find` (determine, answer, tell);
- `unknown`, `nowhere`.

A hedge that still names a value ("not stated, but probably Lisbon") is wrong by the second
rule, not the first: the grader never guesses what a value is, it only looks for the ones given.

>>> lisbon = lambda answer: "Lisbon" in answer
>>> graded("The files do not say which office Team Kestrel sits in.", lisbon).correct
True
>>> graded("Team Kestrel sits in the Lisbon office.", lisbon).why
'states a value a wrong answer would give'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_suites.common import Grade

_SOURCES = r"(?:files?|sources?|documents?|docs|conversation|excerpts?|text|notes|transcripts?)"
_PHRASES = (
    r"not (?:stated|mentioned|given|specified|provided|listed|named|recorded|said|found|known|available)",
    rf"not in (?:the|these|those|any of the|my) {_SOURCES}",
    r"(?:do|does|did) not (?:say|state|mention|specify|give|name|list|include|contain|provide|indicate|tell)",
    r"no (?:information|mention|record|data|details?|indication)",
    r"cannot be (?:answered|determined|found|known|said|told)",
    r"cannot (?:answer|determine|find|tell|say|know)",
    r"(?:could not|unable to) (?:find|determine|answer|tell)",
    r"unknown",
    r"nowhere",
)
NOT_STATED = re.compile(r"\b(?:" + "|".join(_PHRASES) + r")\b")
_CONTRACTIONS = (("can't", "cannot"), ("can not", "cannot"), ("won't", "will not"), ("n't", " not"))


def says_not_stated(answer: str) -> bool:
    """Whether the answer says plainly that the sources do not state it (see the module docstring).

    >>> says_not_stated("The conversation doesn't mention it."), says_not_stated("It is 400 ms.")
    (True, False)
    """
    text = answer.lower().replace("’", "'")
    for short, long in _CONTRACTIONS:
        text = text.replace(short, long)
    return NOT_STATED.search(text) is not None


def graded(answer: str, states_a_value: Callable[[str], bool]) -> Grade:
    """Correct when the answer gives no value: empty or saying the sources do not state it, and
    stating nothing `states_a_value` recognises (the original answer, a near neighbour's)."""
    if states_a_value(answer):
        return Grade(correct=False, why="states a value a wrong answer would give")
    if answer.strip() and not says_not_stated(answer):
        return Grade(correct=False, why="gives an answer without saying the sources do not state it")
    return Grade(correct=True)  # no score: a value given or not, nothing in between
