"""`relevant_context(state, store)`: the CONTEXT block every prompt carries (docs/design.md,
"Reflection and context").

Four parts, in this order:

1. ACTIVE RULES AND ISSUES — always, in full: the task's active constraints, the workspace's active
   constraints learned in other tasks (the `shared` tenant), and the task's open hot issues.
2. RELEVANT DOCUMENT SNIPPETS — the top-k hybrid search hits for the goal and the last user message.
3. REASONING HISTORY — one compressed line per call, relevance-tiered, fitted to `budget_tokens`
   (`cairn.memory.context.reasoning`).

`rules_block` is part 1 alone: the cheap block that compress and synthesize prompts carry.

>>> store = SQLiteStore(":memory:", HashingEmbedder())  # doctest: +SKIP
>>> print(relevant_context(state, store, budget_tokens=500))  # doctest: +SKIP
CONTEXT:
---
ACTIVE RULES AND ISSUES:
- [Constraint] Never use requirements.txt.
...
"""

from __future__ import annotations

import re

from cairn.core import Memory, MemoryKind
from cairn.memory.context.reasoning import Count, approx_tokens, reasoning_lines
from cairn.memory.context.values import TDLambda, rerank
from cairn.memory.index.sources import source_tenants
from cairn.memory.log.state import TaskState
from cairn.memory.store.protocol import MemoryStore, SearchFilter, SearchQuery

SHARED = "shared"
SNIPPETS = 5
SNIPPET_CHARS = 300
SNIPPET_KINDS: list[MemoryKind] = ["document_chunk", "insight", "fact", "preference"]
SHARED_RULES_LIMIT = 200
OVERFETCH = 8  # search hits fetched per snippet kept, before filtering kinds
QUERY_TERMS = 8
_WORDS = re.compile(r"[a-z0-9_]+")


def relevant_context(
    state: TaskState,
    store: MemoryStore,
    *,
    budget_tokens: int = 2000,
    count: Count = approx_tokens,
    k: int = SNIPPETS,
    learner: TDLambda | None = None,
) -> str:
    """The CONTEXT block for the task's next prompt (see the module docstring).

    With a `learner`, snippets are re-ranked by their learned value for its goal next to their
    relevance, and the ones shown are traced for the episode's update.
    """
    snippets = [
        f"- [Source: {hit.file_path or hit.source or hit.kind}] {_clip(hit.content)}"
        for hit in search_snippets(state, store, k, learner)
    ]
    history = reasoning_lines(state, budget_tokens=budget_tokens, count=count)
    return "\n".join(
        [
            "CONTEXT:",
            "---",
            *_rules_section(state, store),
            "",
            "RELEVANT DOCUMENT SNIPPETS:",
            *(snippets or ["- (none)"]),
            "",
            "REASONING HISTORY (relevance-tiered, chronological within a tier):",
            *(history or ["- (nothing yet)"]),
            "---",
        ]
    )


def rules_block(state: TaskState, store: MemoryStore) -> str:
    """Only the active rules and hot issues: what every prompt must carry, whatever its size.

    >>> print(rules_block(TaskState(), store))  # doctest: +SKIP
    ACTIVE RULES AND ISSUES:
    - (none)
    """
    return "\n".join(_rules_section(state, store))


def rule_lines(state: TaskState, store: MemoryStore) -> list[str]:
    """Active constraints (the task's, then the workspace's) and open hot issues, one line each."""
    rules: list[str] = []
    seen: set[str] = set()
    for text in [c.rule for c in state.active_constraints] + [m.content for m in shared_rules(state, store)]:
        norm = _normal(text)
        if norm not in seen:  # the same rule said twice, in different words or tasks, shows once
            seen.add(norm)
            rules.append(f"- [Constraint] {text}")
    return rules + [f"- [Hot Issue] {h.content}" for h in state.active_hot_issues]


def shared_rules(state: TaskState, store: MemoryStore) -> list[Memory]:
    """Active constraints of the workspace this task does not hold itself (held ones, even retired,
    are the task's own decision)."""
    known = {c.key for c in state.constraints}
    found = store.list(
        SearchFilter(tenants=[SHARED], kinds=["constraint"], active=True), limit=SHARED_RULES_LIMIT
    )
    return sorted((m for m in found if m.key not in known), key=lambda m: (m.created_at, m.key))


def search_snippets(
    state: TaskState, store: MemoryStore, k: int = SNIPPETS, learner: TDLambda | None = None
) -> list[Memory]:
    """Top-k hybrid hits for the goal and the last user message, over the task, related tasks and
    the shared tenant; only document chunks, insights, facts and preferences."""
    query = search_terms(
        " ".join([state.goal, *(m.text for m in state.messages[-1:] if m.role == "feedback")])
    )
    if not query or k <= 0:
        return []
    tenants = [t for t in [state.task_id, *state.related, *source_tenants(state.sources), SHARED] if t]
    # Filter kinds here, not in the store: a tenant-only filter lets the store use its cached
    # vector matrix, while a metadata filter costs a scan of every matching row per search
    # (11 ms at 10k memories). Over-fetching keeps k hits in all but odd cases.
    wide = SearchQuery(text=query[:2000], k=min(1000, k * OVERFETCH), filter=SearchFilter(tenants=tenants))
    # Inactive: a retired rule's statement among what the user said (`cairn.memory.index.indexer`).
    hits = [hit for hit in store.search(wide) if hit.memory.kind in SNIPPET_KINDS and hit.memory.active]
    if learner is None:
        return [hit.memory for hit in hits[:k]]
    values = learner.values.values(learner.goal, [hit.memory.key for hit in hits])
    kept = [hit.memory for hit in rerank(hits, values)[:k]]
    learner.access([m.key for m in kept])
    return kept


def search_terms(text: str, limit: int = QUERY_TERMS) -> str:
    """The query's most specific words: no short or repeated words, the longest `limit` in order.

    BM25 over OR-ed terms costs time per matching document, and words like "use" or "fix" match
    most of a code base; long words carry the meaning and match few.

    >>> search_terms("Fix the refund so the payment tests pass; fix it", limit=3)
    'refund payment tests'
    """
    words = list(dict.fromkeys(w for w in _WORDS.findall(text.lower()) if len(w) > 3))
    keep = set(sorted(words, key=len, reverse=True)[:limit])
    return " ".join(w for w in words if w in keep)


def _rules_section(state: TaskState, store: MemoryStore) -> list[str]:
    return ["ACTIVE RULES AND ISSUES:", *(rule_lines(state, store) or ["- (none)"])]


def _normal(text: str) -> str:
    return " ".join(text.lower().replace("`", "").split()).rstrip(".!")


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 3] + "..."
