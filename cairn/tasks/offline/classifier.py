"""Classification by a text's own words, no model: the task type of a goal (`task_type_by_words`)
and the rule a person's message states (`rule_by_words`).

The offline model answers `detect_task_type` and `extract_constraint` calls with these. The task
loop's `cairn.flows.loop.start.detect_task_type` asks the run's model, and takes
`task_type_by_words` when that call fails or says `coding_task` of a goal that asks for no code.

>>> task_type_by_words("Fix the bug in parser.py and add a test").task_type
'coding_task'
>>> rule_by_words("When writing about Tesla's future, never mention Elon Musk.").rule
"Never mention Elon Musk when writing about Tesla's future."
>>> rule_by_words("What is the capital of France?").rule
'N/A'
"""

from __future__ import annotations

import re

from cairn.tasks.grounding.lexicon import CODE_WORDS, QUESTION_OPENERS, RESEARCH_VERBS, RESEARCH_WORDS
from cairn.tasks.messages.schemas import DetectTaskTypeOutput, ExtractConstraintOutput

_WORD = re.compile(r"[a-z0-9']+")


def task_type_by_words(goal: str) -> DetectTaskTypeOutput:
    """coding > research (verbs) > short question > research (nouns) > general."""
    words = _WORD.findall(goal.lower())
    found = set(words)
    if hits := sorted(found & CODE_WORDS):
        return DetectTaskTypeOutput(task_type="coding_task", rationale=f"code words: {', '.join(hits)}")
    if hits := sorted(found & RESEARCH_VERBS):
        return DetectTaskTypeOutput(task_type="research_task", rationale=f"research verbs: {', '.join(hits)}")
    if words and words[0] in QUESTION_OPENERS and (goal.strip().endswith("?") or len(words) <= 20):
        return DetectTaskTypeOutput(task_type="simple_question", rationale="a short factual question")
    if hits := sorted(found & RESEARCH_WORDS):
        return DetectTaskTypeOutput(task_type="research_task", rationale=f"research words: {', '.join(hits)}")
    return DetectTaskTypeOutput(task_type="general_task", rationale="no coding, research or question cues")


# --- constraints ---------------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LEAD = re.compile(
    r"^(?:(?:please|also|and|so|ok|okay|from now on|going forward|in future|in the future|for now|"
    r"from here on|as a rule|important|note)\b[,:]?\s*)+",
    re.IGNORECASE,
)
_PERSISTENT = re.compile(
    r"\b(?:from now on|going forward|in (?:the )?future|every time|each time|whenever|any new|all new|"
    r"all future|for now|as a rule)\b",
    re.IGNORECASE,
)
_SUBJECT = re.compile(
    r"^(?:(?:you|the assistant|the agent)\s+(?=(?:should|must|shall|will|are to|are never)\b)|"
    r"(?:i|we)\s+(?:want|need|would like|'d like)\s+you\s+to\s+|make sure (?:that )?you\s+|"
    r"remember to\s+|be sure to\s+|(?:i|we)\s+(?=prefer\b))",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"(?:[,;:]\s+|\bso\s+)")
_CONDITION = re.compile(
    r"^((?:when|whenever|while|if|before|after|unless)\b[^,]{2,120}),\s*(.+)$", re.IGNORECASE
)
# Modal phrasings normalised to an imperative opening; order matters (longest first).
_MODALS: tuple[tuple[str, str], ...] = (
    (r"(?:should|must|shall|will) (?:never|not ever)", "Never"),
    (r"(?:should|must|shall) always", "Always"),
    (r"(?:must not|mustn't|should not|shouldn't|shall not|are not to|are never to|do not|don't)", "Do not"),
    (r"must", "Always"),
    (r"never", "Never"),
    (r"always", "Always"),
    (r"avoid", "Avoid"),
    (r"prefer", "Prefer"),
    (r"only(?=\s+(?:use|write|cite|answer|respond|reply))", "Only"),
)


def rule_by_words(message: str) -> ExtractConstraintOutput:
    """The first persistent rule in the message as one imperative sentence, or 'N/A'."""
    text = message.replace("\u2019", "'").strip()
    for sentence in _SENTENCE.split(text):
        rule = _rule(sentence.strip())
        if rule:
            return ExtractConstraintOutput(rule=rule)
    return ExtractConstraintOutput(rule="N/A")


def _rule(sentence: str) -> str | None:
    if not sentence or sentence.endswith("?"):
        return None  # questions ask; they do not rule
    body = sentence.rstrip(".!;: ")
    condition = ""
    if match := _CONDITION.match(body):
        condition, body = match.group(1), match.group(2)
    core = _core(body, sentence)
    # A request may follow a preamble: "I see a bug, so for now, please add X to any new function".
    for clause in _CLAUSE.finditer(body):
        if core:
            break
        rest = body[clause.end() :]
        if _LEAD.match(rest):
            core = _core(rest, sentence)
    if not core:
        return None
    tail = f" {condition[:1].lower()}{condition[1:]}" if condition else ""
    return f"{core}{tail}."


def _core(body: str, sentence: str) -> str | None:
    lead = _LEAD.match(body)
    said_please = bool(lead and "please" in lead.group(0).lower())
    body = _SUBJECT.sub("", body[lead.end() if lead else 0 :].strip(), count=1)
    core = _imperative(body)
    if core is None and said_please and _PERSISTENT.search(sentence):
        core = body[:1].upper() + body[1:]  # "please add X to any new function" is a standing request
    return core


def _imperative(body: str) -> str | None:
    for pattern, opening in _MODALS:
        if match := re.match(rf"{pattern}\s+(\S.*)$", body, re.IGNORECASE):
            return f"{opening} {match.group(1)}"
    if re.match(r"(?:use|should use)\s+\S.*\b(?:instead of|rather than|instead)\b", body, re.IGNORECASE):
        return "Use " + re.sub(r"^(?:should\s+)?use\s+", "", body, flags=re.IGNORECASE)
    return None
