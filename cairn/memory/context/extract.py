"""Facts and preferences a person states about themselves, found without a model.

`heuristic_facts(messages)` reads the *user* messages sentence by sentence: "I prefer/like/love/
enjoy/hate/use/want ..." is a preference, "I am / I'm / I work / I live / I have / I study / I
speak ...", "my X is Y" and "remember that ..." are facts. Questions are skipped. Each is restated
in the third person, so memories read the same whoever is asked later. An LLM extractor is any
callable with the same signature (`Extractor`), injected by the caller: `memory` imports no model.

>>> [(f.kind, f.content) for f in heuristic_facts([{"role": "user", "content": "I prefer window seats. "
...     "My sister is called Ana. What time is it?"}])]
[('preference', 'User prefers window seats'), ('fact', "User's sister is called Ana")]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

from cairn.core import Frozen

ChatMessage = Mapping[str, Any]  # {"role": ..., "content": ...}, OpenAI / litellm style
MAX_FACT_CHARS = 300
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_MOD = r"(?:\s+(?:really|also|usually|always|mostly|generally|still))?"
_THIRD = {
    "prefer": "prefers",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "hate": "hates",
    "dislike": "dislikes",
    "use": "uses",
    "want": "wants",
    "work": "works",
    "live": "lives",
    "have": "has",
    "study": "studies",
    "speak": "speaks",
}


class Extracted(Frozen):
    kind: Literal["fact", "preference"]
    content: str


class Extractor(Protocol):
    """Turns the new turn of a conversation into facts and preferences worth remembering."""

    def __call__(self, messages: Sequence[ChatMessage]) -> Sequence[Extracted]: ...


def heuristic_facts(messages: Sequence[ChatMessage]) -> list[Extracted]:
    """Facts and preferences stated in the user messages (see the module docstring)."""
    found: list[Extracted] = []
    for message in messages:
        if message_role(message) != "user":
            continue
        for sentence in _SENTENCES.split(message_text(message)):
            item = _read(sentence.strip())
            if item is not None and item not in found:
                found.append(item)
    return found


def message_text(message: ChatMessage) -> str:
    """A message's text; multi-part content keeps its text parts."""
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return " ".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))


def message_role(message: ChatMessage) -> str:
    return str(message.get("role", ""))


def _read(sentence: str) -> Extracted | None:
    if not sentence or sentence.endswith("?"):
        return None
    for pattern, kind, build in _PATTERNS:
        match = pattern.search(sentence)
        if match:
            content = build(match).strip().rstrip(".!;,")
            if 3 <= len(content) <= MAX_FACT_CHARS and len(content.split()) >= 3:
                return Extracted(kind=kind, content=content)
    return None


def _remembered(text: str) -> str:
    """'remember that my X ...' is about the user: say so; anything else is kept as stated."""
    text = _third_person(re.sub(r"^my\b", "User's", text, flags=re.I))
    return text[0].upper() + text[1:]


def _third_person(text: str) -> str:
    text = re.sub(r"\bmy\b", "their", text, flags=re.I)
    text = re.sub(r"\bI'm\b", "they are", text)
    return re.sub(r"\b(?:I|me)\b", "them", text)


Phrasing = tuple[re.Pattern[str], Literal["fact", "preference"], Callable[[re.Match[str]], str]]
_PATTERNS: list[Phrasing] = [
    (
        re.compile(r"^(?:please\s+)?remember(?:\s+that)?\s+(.+)", re.I),
        "fact",
        lambda m: _remembered(m[1]),
    ),
    (
        re.compile(rf"\bI{_MOD}\s+(?:do not|don't)\s+(like|want|use|eat|drink)\s+(.+)", re.I),
        "preference",
        lambda m: f"User does not {m[1].lower()} {_third_person(m[2])}",
    ),
    (
        re.compile(rf"\bI{_MOD}\s+(prefer|like|love|enjoy|hate|dislike|use|want)\s+(.+)", re.I),
        "preference",
        lambda m: f"User {_THIRD[m[1].lower()]} {_third_person(m[2])}",
    ),
    (
        re.compile(r"\bmy\s+([\w' -]{1,40}?)\s+(is|are|was)\s+(.+)", re.I),
        "fact",
        lambda m: f"User's {m[1]} {m[2]} {_third_person(m[3])}",
    ),
    (re.compile(rf"\bI(?:'m|{_MOD}\s+am)\s+(.+)", re.I), "fact", lambda m: f"User is {_third_person(m[1])}"),
    (
        re.compile(rf"\bI{_MOD}\s+(work|live|have|study|speak)\s+(.+)", re.I),
        "fact",
        lambda m: f"User {_THIRD[m[1].lower()]} {_third_person(m[2])}",
    ),
]
