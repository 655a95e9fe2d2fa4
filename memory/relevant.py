"""`relevant_context(state)`: the CONTEXT block every prompt carries (seed: state-and-context §5.3).

Active constraints and hot issues always; then the top memories for the goal and the last user
message; then the reasoning history, one compressed line per call, relevance-tiered and fitted
to a token budget.
"""

from __future__ import annotations

from memory.reasoning import reasoning_lines
from memory.state import TaskState
from memory.store import MemoryStore, SearchFilter, SearchQuery

SNIPPETS = 5


def relevant_context(state: TaskState, store: MemoryStore, *, budget_tokens: int = 2000) -> str:
    rules = [f"- [Constraint] {c.rule}" for c in state.active_constraints]
    rules += [f"- [Constraint] {m.content}" for m in _shared_constraints(store, {c.key for c in state.constraints})]
    rules += [f"- [Hot Issue] {h.content}" for h in state.active_hot_issues]
    query = " ".join([state.goal, *(m.text for m in state.messages[-1:])])
    tenants = [state.task_id, *state.related]
    hits = store.search(
        SearchQuery(text=query, k=SNIPPETS, filter=SearchFilter(tenants=tenants, kinds=["document_chunk", "insight"]))
    ) if query.strip() else []
    snippets = [f"- [Source: {h.memory.file_path or h.memory.source}] {h.memory.content[:300]}" for h in hits]
    history = reasoning_lines(state, budget_tokens=budget_tokens)
    return "\n".join(
        [
            "CONTEXT:",
            "---",
            "ACTIVE RULES AND ISSUES:",
            *(rules or ["- (none)"]),
            "",
            "RELEVANT DOCUMENT SNIPPETS:",
            *(snippets or ["- (none)"]),
            "",
            "REASONING HISTORY:",
            *(history or ["- (nothing yet)"]),
            "---",
        ]
    )


def _shared_constraints(store: MemoryStore, known: set[str]) -> list:  # type: ignore[type-arg]
    found = store.list(SearchFilter(tenants=["shared"], kinds=["constraint"], active=True), limit=200)
    return [m for m in found if m.key not in known]
