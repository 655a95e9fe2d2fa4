"""The rerank stage of hybrid search: what the fused scores cannot see, applied to the fused head.

Both backends run it on their fused hits before cutting to k (`SQLiteStore` over the best
`rerank_depth(k)`, reading only the dialog turns' speakers; `WeaviateStore` over the legs'
results), so they rank alike; a query with `rerank=False` gets the plain fusion.

One signal so far, **the participant the query names**. A dialog turn is said by someone
(`cairn.memory.dialog.speaker_of`); a question that names a participant of the conversation
("What did Caroline say about the parade?") is, most of the time, about what that person said.
The name itself cannot carry this through BM25: in a conversation of two it is in half the turns,
so its idf is near zero (FTS5 floors it), and in a vector it is one token among many. So a turn
whose speaker the query names gains `PARTICIPANT_BOOST` before the scores are rescaled to [0, 1]:
it outranks a turn by someone else unless that one's fused score is higher by more than the boost.
Records that are not dialog turns, and queries that name nobody, keep their fused order and scores.

>>> from cairn.memory.dialog import Turn, turn_memories
>>> ann, bo = turn_memories([Turn(speaker="Ann", text="I love tea"), Turn(speaker="Bo", text="Tea!")], "t")
>>> hits = [SearchHit(memory=bo, score=0.9), SearchHit(memory=ann, score=0.8)]
>>> [h.memory.content for h in sorted(rerank("What tea does Ann like?", hits), key=lambda h: -h.score)]
['Ann: I love tea', 'Bo: Tea!']
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from cairn.memory.dialog import speaker_of
from cairn.memory.store.protocol import SearchHit

# A turn by the participant the query names outranks another's unless that one's fused score is
# higher by more than this (fused scores are in [0, 1]). LoCoMo dev, recall@10 with the static
# embedder: 0.780 without, 0.797 / 0.801 / 0.801 at 0.2 / 0.25 / 0.3 (docs/design.md).
PARTICIPANT_BOOST = 0.25
MIN_DEPTH = 40  # fused candidates the stage sees at least (it can lift a turn from below the k-th)
_WORD = re.compile(r"\w+")
K = TypeVar("K", bound=Hashable)  # a record id: a row id, an object id, a position


def rerank_depth(k: int) -> int:
    """How many fused hits a store hands to `rerank` for a top-k query."""
    return min(1000, max(MIN_DEPTH, 2 * k))


def rerank(text: str, hits: Sequence[SearchHit]) -> list[SearchHit]:
    """`hits` re-scored by the signals above (order is left to the caller's sort)."""
    speakers = {i: speaker_of(hit.memory) for i, hit in enumerate(hits)}
    scores = participant_scores(text, {i: hit.score for i, hit in enumerate(hits)}, speakers)
    return [hit.model_copy(update={"score": scores[i]}) for i, hit in enumerate(hits)]


def participant_scores(
    text: str, scores: Mapping[K, float], speakers: Mapping[K, str | None]
) -> dict[K, float]:
    """Scores by record id, lifted for turns whose speaker `text` names (see the module docstring);
    `speakers` may leave out records that are not dialog turns. Unchanged when nobody is named."""
    named = named_participants(text, set(speakers.values()))
    if not named:
        return dict(scores)
    lifted = {
        key: score + (PARTICIPANT_BOOST if speakers.get(key) in named else 0.0)
        for key, score in scores.items()
    }
    return {key: score / (1.0 + PARTICIPANT_BOOST) for key, score in lifted.items()}


def named_participants(text: str, speakers: set[str | None]) -> set[str]:
    """The speakers whose whole name is in `text`, as words, in any case.

    >>> sorted(named_participants("what did caroline and Mel say?", {"Caroline", "Melanie", None}))
    ['Caroline']
    """
    words = " " + " ".join(_WORD.findall(text.lower())) + " "
    return {s for s in speakers if s and f" {' '.join(_WORD.findall(s.lower()))} " in words}
