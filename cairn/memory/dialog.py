"""Conversation turns as searchable `Memory` records.

A single chat turn rarely says what it is about ("Yes, it was amazing!"), so each turn is stored
with what is needed to understand it. Its `content` is who spoke, when the conversation took place,
what they said and the caption of an image they shared; its `context` holds the neighbouring turns
of the same session, which keyword search matches at half the weight of the turn's own words
(`cairn.memory.store.fusion.CONTEXT_WEIGHT`): "Yes, it was amazing!" is found by the question its neighbour
asked, yet a turn that says the words itself ranks first. Its vector (`turn_vectors`) embeds the
turn alone: an embedding of five turns blurs into their average. The record's key and `source`
identify the turn alone, so re-indexing a conversation is idempotent.

A reply is about the question it answers: "Three times a week." says nothing until one knows it
answers "How often do you work out?". So when the turn before is someone else asking something,
that question counts twice in the reply's context (once as the question answered, once as a
neighbour) and the reply's vector leans towards it (`ANSWER_WEIGHT`).

>>> turns = [Turn(speaker="Ann", text="I adopted a dog!", turn_id="D1:1", session="s1"),
...          Turn(speaker="Bo", text="Congrats! What breed?", turn_id="D1:2", session="s1")]
>>> memories = turn_memories(turns, tenant="chat-1")
>>> memories[1].content, memories[1].context
('Bo: Congrats! What breed?', 'Ann: I adopted a dog!')
>>> memories[1].source, memories[1].thread_id
('D1:2', 's1')
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from cairn.core import Memory, memory_key, now
from cairn.memory.embed.embeddings import Embedder, Vectors

DEFAULT_CONTEXT = 2  # neighbouring turns on each side indexed with a turn
ANSWER_WEIGHT = 0.3  # the share of the question a reply answers in the reply's vector
SUBTYPE = "dialog_turn"
_HEAD = re.compile(r"(?:\[[^\]\n]*\] )?([^:\n]{1,80}): ")  # `turn_content`: "[when] Speaker: "


class Turn(BaseModel):
    """One utterance of a conversation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    speaker: str
    text: str
    turn_id: str | None = None  # stable id within the conversation, e.g. "D3:12"
    session: str | None = None  # one sitting of the conversation; neighbours never cross it
    when: str | None = None  # the session's date as people write it, e.g. "8 May, 2023"
    timestamp: float | None = None  # seconds since the epoch; the record's created_at
    image_caption: str | None = None  # description of an image shared with the turn


def turn_line(turn: Turn) -> str:
    """The turn as one line: speaker, text and any shared image.

    >>> turn_line(Turn(speaker="Ann", text="Look!", image_caption="a dog on a beach"))
    'Ann: Look! [shares an image: a dog on a beach]'
    """
    image = f" [shares an image: {turn.image_caption}]" if turn.image_caption else ""
    return f"{turn.speaker}: {turn.text}{image}"


def turn_memories(
    turns: Sequence[Turn],
    tenant: str,
    *,
    context: int = DEFAULT_CONTEXT,
    domain: str = "conversation",
    task_type: str = "dialog",
    agent: str | None = None,
    answered: bool = True,
) -> list[Memory]:
    """One `document_chunk` memory per non-empty turn, with `context` neighbours on each side (and
    the question it answers, unless `answered` is False)."""
    return [
        _memory(
            turns,
            index,
            tenant,
            turn_context(turns, index, context, answered=answered),
            domain,
            task_type,
            agent,
        )
        for index, turn in enumerate(turns)
        if _indexable(turn)
    ]


def turn_vectors(turns: Sequence[Turn], embedder: Embedder, *, answered: bool = True) -> Vectors:
    """Vectors for `turn_memories(turns, ...)`, row for row: each embeds its turn's own line, and
    a reply's leans towards the question it answers unless `answered` is False (unit length).

    >>> from cairn.memory.embed.embeddings import HashingEmbedder
    >>> turn_vectors([Turn(speaker="Ann", text="Hi")], HashingEmbedder(dim=8)).shape
    (1, 8)
    """
    kept = [index for index, turn in enumerate(turns) if _indexable(turn)]
    own = embedder.embed([turn_line(turns[index]) for index in kept])
    row_of = {index: row for row, index in enumerate(kept)}
    # A question is a turn of its own (it has a "?"), so its vector is already in `own`.
    replies = [(row, row_of[index - 1]) for row, index in enumerate(kept) if question_answered(turns, index)]
    if not (answered and replies):
        return own
    vectors = own.copy()
    rows, questions = (list(column) for column in zip(*replies, strict=True))
    vectors[rows] += ANSWER_WEIGHT * own[questions]
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return vectors


def question_answered(turns: Sequence[Turn], index: int) -> Turn | None:
    """The turn before `index` if it is someone else asking something in the same session.

    >>> ask, say = Turn(speaker="Bo", text="How often?"), Turn(speaker="Ann", text="Daily.")
    >>> question_answered([ask, say], 1) == ask, question_answered([say, ask], 1)
    (True, None)
    """
    turn, before = turns[index], turns[index - 1] if index > 0 else None
    if before and before.session == turn.session and before.speaker != turn.speaker and "?" in before.text:
        return before
    return None


def _indexable(turn: Turn) -> bool:
    return bool(turn.text.strip() or turn.image_caption)


def turn_content(turn: Turn) -> str:
    """What a turn's record says: the date, then the turn's line.

    >>> turn_content(Turn(speaker="Ann", text="Hi", when="8 May, 2023"))
    '[8 May, 2023] Ann: Hi'
    """
    head = f"[{turn.when}] " if turn.when else ""
    return head + turn_line(turn)


def speaker_of(memory: Memory) -> str | None:
    """Who said a dialog turn (from its content, as `turn_content` wrote it); None for other records.

    >>> speaker_of(turn_memories([Turn(speaker="Ann", text="Hi", when="8 May, 2023")], "t")[0])
    'Ann'
    """
    return speaker_in(memory.content) if memory.subtype == SUBTYPE else None


def speaker_in(content: str) -> str | None:
    """The speaker at the head of a turn's content (see `turn_content`), if any."""
    head = _HEAD.match(content)
    return head.group(1) if head else None


def turn_context(
    turns: Sequence[Turn], index: int, context: int = DEFAULT_CONTEXT, *, answered: bool = True
) -> str | None:
    """The question turn `index` answers, if any (and `answered`), then the lines of up to
    `context` turns on each side within its session; None with `context` 0 (the turn alone).

    >>> turns = [Turn(speaker="Bo", text="How often?"), Turn(speaker="Ann", text="Daily.")]
    >>> print(turn_context(turns, 1, context=1))
    Bo: How often?
    Bo: How often?
    """
    if context <= 0:
        return None
    question = question_answered(turns, index) if answered else None
    lines = [turn_line(turns[i]) for i in _neighbours(turns, index, context)]
    return "\n".join([turn_line(question), *lines] if question else lines) or None


def _neighbours(turns: Sequence[Turn], index: int, context: int) -> list[int]:
    """Indexes of up to `context` turns before and after `index` in the same session."""
    session = turns[index].session
    window = range(max(0, index - context), min(len(turns), index + context + 1))
    return [i for i in window if i != index and turns[i].session == session]


def _memory(
    turns: Sequence[Turn],
    index: int,
    tenant: str,
    context: str | None,
    domain: str,
    task_type: str,
    agent: str | None,
) -> Memory:
    turn = turns[index]
    identity = f"{turn.session}|{turn.turn_id or index}|{turn_line(turn)}"
    created = turn.timestamp if turn.timestamp is not None else now()
    return Memory(
        key=memory_key(identity, domain, task_type),
        kind="document_chunk",
        subtype=SUBTYPE,
        content=turn_content(turn),
        context=context,
        tenant=tenant,
        domain=domain,
        task_type=task_type,
        source=turn.turn_id,
        thread_id=turn.session,
        agents=[agent] if agent else [],
        created_at=created,
        updated_at=created,
    )
