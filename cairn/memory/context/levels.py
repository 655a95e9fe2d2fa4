"""Memory levels and shared learning (docs/design.md, "Memory intelligence").

Levels: `working` (hot issues: this task, now), `episodic` (what happened once: every new memory
starts here), `semantic` (what held across episodes: promoted by `promote`), `procedural` (how to
do things: rules). A memory's key is `{domain}:{task_type}:{sha256(content)[:16]}`, so the same
content in the same domain and task type is one memory whichever agent stores it; `remember` adds
the agent to `Memory.agents` and never demotes a level. `retrieve` lists one level of a domain or
task type ordered by the memories' learned value for a goal (`cairn.memory.context.values`).

>>> from cairn.memory.embed.embeddings import HashingEmbedder
>>> from cairn.memory.store.sqlite_store import SQLiteStore
>>> store = SQLiteStore(":memory:", HashingEmbedder(dim=32))
>>> a = remember(store, "Use pyproject.toml", domain="python", task_type="coding_task", agent="planner")
>>> b = remember(store, "Use pyproject.toml", domain="python", task_type="coding_task", agent="coder")
>>> a.key == b.key, b.agents
(True, ['planner', 'coder'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cairn.core import Memory, MemoryKind, MemoryLevel, memory_key, now
from cairn.memory.context.values import TDLambda, ValueTable, ValueUpdate
from cairn.memory.store.protocol import MemoryStore, SearchFilter

SHARED = "shared"
LEVELS: tuple[MemoryLevel, ...] = ("working", "episodic", "semantic", "procedural")
_RANK = {"working": 0, "episodic": 1, "semantic": 2, "procedural": 3}


def remember(
    store: MemoryStore,
    content: str,
    *,
    kind: MemoryKind = "insight",
    domain: str | None = None,
    task_type: str | None = None,
    agent: str | None = None,
    tenant: str = SHARED,
    level: MemoryLevel = "episodic",
    confidence: float = 1.0,
    source: str | None = None,
) -> Memory:
    """Store content as the one memory of its key, adding `agent`; returns the stored record."""
    key = memory_key(content, domain, task_type)
    domain_part, type_part, _ = key.split(":")
    existing = store.get(key, tenant)
    if existing is not None and _RANK[existing.level] > _RANK[level]:
        level = existing.level  # a promoted memory stays promoted when an agent stores it again
    at = now()
    memory = Memory(
        key=key,
        kind=kind,
        content=content,
        tenant=tenant,
        domain=domain_part,
        task_type=type_part,
        level=level,
        confidence=confidence,
        source=source,
        agents=[agent] if agent else [],
        created_at=existing.created_at if existing else at,
        updated_at=at,
    )
    store.upsert([memory])
    return store.get(key, tenant) or memory


def retrieve(
    store: MemoryStore,
    values: ValueTable,
    *,
    goal: str,
    level: MemoryLevel,
    domain: str | None = None,
    task_type: str | None = None,
    tenants: Sequence[str] = (SHARED,),
    top_k: int = 10,
    learner: TDLambda | None = None,
) -> list[Memory]:
    """One level's memories of a domain and/or task type, highest value for `goal` first.

    Retrieval is access: the store's access counts go up and `learner` (if any) traces the keys.
    """
    where = SearchFilter(tenants=list(tenants), domain=_part(domain), task_type=_part(task_type))
    found = [m for m in store.list(where, limit=100_000) if m.level == level]
    learned = values.values(goal, (m.key for m in found))
    best = sorted(found, key=lambda m: (-learned[m.key], m.key))[:top_k]
    for tenant in {m.tenant for m in best}:
        store.record_access([m.key for m in best if m.tenant == tenant], tenant)
    if learner is not None:
        learner.access(m.key for m in best)
    return best


def promote(store: MemoryStore, keys: Iterable[str], tenant: str = SHARED) -> list[Memory]:
    """Move episodic memories to the semantic level; returns the ones promoted."""
    promoted = []
    for key in keys:
        memory = store.get(key, tenant)
        if memory is not None and memory.level == "episodic":
            promoted.append(memory.model_copy(update={"level": "semantic", "updated_at": now()}))
    if promoted:
        store.upsert(promoted)
    return promoted


def apply_promotions(
    store: MemoryStore, updates: Sequence[ValueUpdate], tenant: str = SHARED
) -> list[Memory]:
    """Promote the keys an episode's value updates flagged (`ValueUpdate.promote`)."""
    return promote(store, [u.key for u in updates if u.promote], tenant)


def _part(value: str | None) -> str | None:
    return memory_key("", value, None).split(":")[0] if value is not None else None
