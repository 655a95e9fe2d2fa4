"""`MemoryContextProvider`: long-term memory for any chat loop.

Around each model call:

- `before_run(messages)` searches the thread's memories with the recent messages (vector search,
  so the score is an absolute similarity), multiplies each score by an exponential decay on the
  memory's age (`half_life_days`), keeps those at or above `min_relevance`, and returns the top
  `top_k` as instructions for the system prompt.
- `after_run(request, response)` extracts facts and preferences from the turn's new messages (the
  injected `extractor`, heuristics by default), deduplicates them by `memory_key` (restating a fact
  refreshes it instead of adding a copy), and stores them with the thread id and an optional TTL.

Isolation: every thread is its own tenant (`{namespace}:{thread_id}`), so one thread's memories
can never reach another's search, in either backend; records also carry `thread_id`.
`invoking` / `invoked` are the same two calls under their earlier names in Microsoft Agent Framework's
`ContextProvider`.

>>> from cairn.memory.embed.embeddings import HashingEmbedder
>>> from cairn.memory.store.sqlite_store import SQLiteStore
>>> provider = MemoryContextProvider(SQLiteStore(":memory:", HashingEmbedder()), thread_id="t1")
>>> _ = provider.after_run([{"role": "user", "content": "I prefer green tea in the morning."}], [])
>>> print(provider.before_run([{"role": "user", "content": "Which tea do I prefer?"}]).instructions)
## Memories
Consider the following memories when answering the user:
- [preference] User prefers green tea in the morning
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import Field

from cairn.core import Frozen, Memory, memory_key, now
from cairn.memory.context.extract import (
    ChatMessage,
    Extracted,
    Extractor,
    heuristic_facts,
    message_role,
    message_text,
)
from cairn.memory.embed.embeddings import Embedder
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchHit, SearchQuery

DEFAULT_CONTEXT_PROMPT = "## Memories\nConsider the following memories when answering the user:"
DAY = 86_400.0
OVERFETCH = 4  # hits fetched per kept memory: decay and the threshold drop some


class Context(Frozen):
    """What the provider adds to the next call: instructions (None when nothing is relevant)."""

    instructions: str | None = None
    memories: list[SearchHit] = Field(default_factory=list)


class MemoryContextProvider:
    """Remembers what a user says in one thread and recalls it when it becomes relevant.

    >>> provider = MemoryContextProvider(store, "alice-1", top_k=3, ttl_seconds=30 * 86400)  # doctest: +SKIP
    >>> context = provider.before_run(messages)  # doctest: +SKIP
    >>> system = context.instructions or ""  # doctest: +SKIP
    >>> provider.after_run(messages, [reply])  # doctest: +SKIP
    """

    def __init__(
        self,
        store: MemoryStore,
        thread_id: str,
        *,
        extractor: Extractor = heuristic_facts,
        embedder: Embedder | None = None,
        top_k: int = 5,
        min_relevance: float = 0.2,
        half_life_days: float | None = 30.0,
        ttl_seconds: float | None = None,
        recent: int = 3,
        namespace: str = "chat",
        domain: str = "chat",
        agent: str = "assistant",
        tenant: str | None = None,
        clock: Callable[[], float] = now,
    ) -> None:
        if not thread_id:
            raise ValueError("a thread id is required: memories are kept per thread")
        self.store, self.thread_id, self.extractor, self.embedder = store, thread_id, extractor, embedder
        self.top_k, self.min_relevance, self.recent = top_k, min_relevance, recent
        self.half_life_days, self.ttl_seconds = half_life_days, ttl_seconds
        # One tenant per thread by default; a caller may share one (a user's) across threads.
        self.tenant = tenant or f"{namespace}:{thread_id}"
        self.domain, self.agent, self.clock = domain, agent, clock

    def before_run(self, messages: Sequence[ChatMessage]) -> Context:
        """The memories relevant to the recent messages, as instructions."""
        query = "\n".join(message_text(m) for m in messages[-self.recent :]).strip()
        if not query:
            return Context()
        hits = self.search(query)
        if not hits:
            return Context()
        self.store.record_access([h.memory.key for h in hits], self.tenant)
        lines = [f"- [{h.memory.kind}] {h.memory.content}" for h in hits]
        return Context(instructions="\n".join([DEFAULT_CONTEXT_PROMPT, *lines]), memories=hits)

    def after_run(
        self, request: Sequence[ChatMessage], response: Sequence[ChatMessage] | ChatMessage | str
    ) -> list[Memory]:
        """Extract, deduplicate and store the facts of the turn's new messages; returns what was stored."""
        turn = [*new_messages(request), *_as_messages(response)]
        extracted = list({self.key(e): e for e in self.extractor(turn)}.items())
        if not extracted:
            return []
        memories = [self._memory(key, item) for key, item in extracted]
        vectors = self.embedder.embed([m.content for m in memories]).tolist() if self.embedder else None
        self.store.upsert(memories, vectors)
        return memories

    invoking = before_run
    invoked = after_run

    def search(self, query: str) -> list[SearchHit]:
        """Decayed, thresholded top-k hits of this thread for a query."""
        vector = self.embedder.embed([query])[0].tolist() if self.embedder else None
        wide = SearchQuery(
            text=query[:4000],
            mode="vector",
            k=self.top_k * OVERFETCH,
            filter=SearchFilter(tenants=[self.tenant]),
        )
        decayed = [
            h.model_copy(update={"score": h.score * self.decay(h.memory)})
            for h in self.store.search(wide, vector)
        ]
        kept = [h for h in decayed if h.score >= self.min_relevance]
        return sorted(kept, key=lambda h: (-h.score, h.memory.key))[: self.top_k]

    def memories(self) -> list[Memory]:
        """Everything this thread remembers (unexpired), newest first."""
        return self.store.list(SearchFilter(tenants=[self.tenant]))

    def decay(self, memory: Memory) -> float:
        """`0.5 ** (age / half-life)`, age counted from the memory's last statement."""
        if not self.half_life_days:
            return 1.0
        age_days = max(0.0, self.clock() - memory.updated_at) / DAY
        return float(0.5 ** (age_days / self.half_life_days))

    def key(self, item: Extracted) -> str:
        """One key per statement and thread: case, spacing and end punctuation do not matter."""
        normal = " ".join(item.content.lower().split()).rstrip(".!")
        return memory_key(normal, self.domain, item.kind)

    def _memory(self, key: str, item: Extracted) -> Memory:
        at = self.clock()
        existing = self.store.get(key, self.tenant)
        return Memory(
            key=key,
            kind=item.kind,
            content=item.content,
            tenant=self.tenant,
            domain=self.domain,
            task_type=item.kind,
            thread_id=self.thread_id,
            agents=[self.agent],
            source="conversation",
            created_at=existing.created_at if existing else at,
            updated_at=at,
            expires_at=at + self.ttl_seconds if self.ttl_seconds else None,
        )


def new_messages(request: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The turn's new messages: those after the last assistant message (a chat loop resends the
    whole history each turn; only the new part holds new facts)."""
    last = max((i for i, m in enumerate(request) if message_role(m) == "assistant"), default=-1)
    return list(request[last + 1 :])


def _as_messages(response: Sequence[ChatMessage] | ChatMessage | str) -> list[ChatMessage]:
    if isinstance(response, str):
        return [{"role": "assistant", "content": response}]
    if hasattr(response, "get") and not isinstance(response, Sequence):
        return [_plain(response)]
    return [_plain(m) for m in response]


def _plain(message: Any) -> ChatMessage:
    if hasattr(message, "get"):
        return {"role": message.get("role", "assistant"), "content": message.get("content") or ""}
    return {"role": getattr(message, "role", "assistant"), "content": getattr(message, "content", "") or ""}
