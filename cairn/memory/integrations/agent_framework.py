"""Cairn's memory as a Microsoft Agent Framework context provider (issue 9; extra `agent-framework`).

`CairnContextProvider` is an `agent_framework.ContextProvider` built on `cairn.memory.context.provider`'s
`MemoryContextProvider`:

- `before_run` adds one instructions block: the top-k memories of the scope relevant to the new
  input (vector score, decayed, at or above `min_relevance`), then the workspace's active
  constraints (`shared` tenant) and open hot issues.
- `after_run` extracts the facts and preferences of the turn, deduplicated by key, and stores them
  with the session id as `thread_id`.
- Scope: `"session"` (tenant `chat:{session_id}`) or `"user"` (tenant `user:{user_id}`), chosen in
  the constructor. The read filter is the write tenant, and nothing else: no agent, application or
  thread id narrows a search (issue 6237 of agent-framework: a read filter the write never set
  returns nothing).
- Per-session state is a registered `CairnMemoryState` under `session.state[source_id]["memory"]`,
  so it survives `AgentSession.to_dict()` / `from_dict()` and the framework's session stores.

`FunctionChatClient` is an offline chat client on the framework's own `BaseChatClient`: its reply
is a Python function of the messages and the instructions (for examples and tests).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Literal

try:
    from agent_framework import (
        AgentSession,
        BaseChatClient,
        ChatResponse,
        ChatResponseUpdate,
        Content,
        ContextProvider,
        FunctionInvocationLayer,
        Message,
        SessionContext,
        SupportsAgentRun,
        register_state_type,
    )
except ModuleNotFoundError as exc:  # pragma: no cover - exercised only without the extra
    raise ModuleNotFoundError(
        "Cairn's Agent Framework integration needs agent-framework-core: "
        "pip install 'cairn-agents[agent-framework]'"
    ) from exc
from pydantic import Field

from cairn.core import Frozen, Memory, now
from cairn.memory.context.extract import ChatMessage, Extractor, heuristic_facts
from cairn.memory.context.provider import MemoryContextProvider
from cairn.memory.embed.embeddings import Embedder
from cairn.memory.store.protocol import MemoryStore, SearchFilter

Scope = Literal["session", "user"]
SHARED = "shared"
STATE_KEY = "memory"
KEPT_KEYS = 200  # keys remembered in a session's state, newest last
RULES_HEADER = "## Active rules and issues\nFollow these rules; keep these open issues in mind:"


class ScopeMismatchError(RuntimeError):
    """A session bound to one user's memory was run by a provider serving another user."""


class CairnMemoryState(Frozen):
    """What a session remembers about its memory: its scope and the keys it stored and recalled."""

    scope: Scope
    tenant: str
    turns: int = 0
    learned: list[str] = Field(default_factory=list)
    recalled: list[str] = Field(default_factory=list)

    def after_turn(self, stored: Sequence[Memory]) -> CairnMemoryState:
        learned = list(dict.fromkeys([*self.learned, *(m.key for m in stored)]))[-KEPT_KEYS:]
        return self.model_copy(update={"turns": self.turns + 1, "learned": learned})


register_state_type(CairnMemoryState, type_id="cairn.memory_state")


class CairnContextProvider(ContextProvider):
    """Long-term memory for an Agent Framework agent, kept in a Cairn `MemoryStore`.

    Usage (the preference stated in the first session is in the second one's instructions)::

        store = open_store("sqlite", path="cairn-workspace/memory.db", embedder=HashingEmbedder())
        memory = CairnContextProvider(store, scope="user", user_id="alice", top_k=5)
        agent = Agent(client, "You are helpful.", context_providers=[memory])
        await agent.run("I prefer aisle seats.", session=agent.create_session())
        await agent.run("Book my flight.", session=agent.create_session())
    """

    DEFAULT_SOURCE_ID = "cairn_memory"

    def __init__(
        self,
        store: MemoryStore,
        *,
        scope: Scope = "session",
        user_id: str | None = None,
        source_id: str = DEFAULT_SOURCE_ID,
        extractor: Extractor = heuristic_facts,
        embedder: Embedder | None = None,
        top_k: int = 5,
        min_relevance: float = 0.2,
        half_life_days: float | None = 30.0,
        ttl_seconds: float | None = None,
        include_rules: bool = True,
        tasks: Sequence[str] | None = None,
        rules_limit: int = 50,
        clock: Callable[[], float] = now,
    ) -> None:
        super().__init__(source_id)
        if scope == "user" and not user_id:
            raise ValueError("scope='user' needs a user_id: memories are kept per user")
        self.store, self.scope, self.user_id = store, scope, user_id
        self.include_rules, self.tasks, self.rules_limit = include_rules, tasks, rules_limit
        self.core_options: dict[str, Any] = {
            "extractor": extractor,
            "embedder": embedder,
            "top_k": top_k,
            "min_relevance": min_relevance,
            "half_life_days": half_life_days,
            "ttl_seconds": ttl_seconds,
            "clock": clock,
        }

    async def before_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Add the relevant memories, active rules and open issues to this run's instructions."""
        bound = self.bind(session, state)
        recalled = self.core(session, agent).before_run(plain(context.input_messages))
        blocks = [recalled.instructions, self.rules_block()]
        text = "\n\n".join(block for block in blocks if block)
        if text:
            context.extend_instructions(self.source_id, text)
        state[STATE_KEY] = bound.model_copy(update={"recalled": [h.memory.key for h in recalled.memories]})

    async def after_run(
        self,
        *,
        agent: SupportsAgentRun,
        session: AgentSession,
        context: SessionContext,
        state: dict[str, Any],
    ) -> None:
        """Store the facts and preferences of this turn, with the session id."""
        bound = self.bind(session, state)
        response = context.response.messages if context.response is not None else []
        stored = self.core(session, agent).after_run(plain(context.input_messages), plain(response))
        state[STATE_KEY] = bound.after_turn(stored)

    def tenant(self, session: AgentSession) -> str:
        """The tenant a session reads and writes: the user's, or the session's own."""
        return f"user:{self.user_id}" if self.scope == "user" else f"chat:{session.session_id}"

    def bind(self, session: AgentSession, state: dict[str, Any]) -> CairnMemoryState:
        """The session's memory state; a session of one user run for another user is refused."""
        tenant = self.tenant(session)
        current = state.get(STATE_KEY)
        if not isinstance(current, CairnMemoryState):
            return CairnMemoryState(scope=self.scope, tenant=tenant)
        if current.scope == "user" and self.scope == "user" and current.tenant != tenant:
            raise ScopeMismatchError(
                f"session {session.session_id} holds the memory of {current.tenant}; "
                f"this provider serves {tenant}"
            )
        return current.model_copy(update={"scope": self.scope, "tenant": tenant})

    def core(self, session: AgentSession, agent: SupportsAgentRun | None = None) -> MemoryContextProvider:
        """The context provider for one session: its tenant, the session id as thread id."""
        name = getattr(agent, "name", None) or "assistant"
        return MemoryContextProvider(
            self.store, session.session_id, tenant=self.tenant(session), agent=name, **self.core_options
        )

    def memories(self, session: AgentSession) -> list[Memory]:
        """Everything the session's scope remembers (unexpired), newest first."""
        return self.core(session).memories()

    def rules_block(self) -> str | None:
        """The workspace's active constraints and open hot issues, or None when there are none."""
        if not self.include_rules:
            return None
        lines = [f"- [Constraint] {text}" for text in self.constraints()]
        lines += [f"- [Hot Issue] {m.content}" for m in self.hot_issues()]
        return "\n".join([RULES_HEADER, *lines]) if lines else None

    def constraints(self) -> list[str]:
        """Active rules of the workspace, oldest first, each once whatever its wording's case."""
        found = self.store.list(
            SearchFilter(tenants=[SHARED], kinds=["constraint"], active=True), limit=self.rules_limit
        )
        unique = {_normal(m.content): m for m in sorted(found, key=lambda m: (m.created_at, m.key))}
        return [m.content for m in unique.values()]

    def hot_issues(self) -> list[Memory]:
        """Open hot issues of the workspace's tasks (all tasks, or those named in `tasks`)."""
        where = SearchFilter(tenants=list(self.tasks or []), kinds=["hot_issue"], active=True)
        return sorted(self.store.list(where, limit=self.rules_limit), key=lambda m: (m.created_at, m.key))


def plain(messages: Sequence[Message]) -> list[ChatMessage]:
    """Agent Framework messages as `{"role", "content"}` dicts; messages without text are left out
    (a tool approval has none, and an empty query must never reach the embedder)."""
    return [{"role": str(m.role), "content": m.text} for m in messages if m.text.strip()]


def _normal(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!")


Reply = Callable[[Sequence[Message], str], str]


class FunctionChatClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """An offline chat client: `reply(messages, instructions)` writes the assistant's answer.

    `calls` keeps what each request carried, `(messages, instructions)`, for tests to inspect.

    Usage: ``Agent(FunctionChatClient(lambda messages, instructions: "Noted."), context_providers=[...])``
    """

    OTEL_PROVIDER_NAME = "cairn.function"

    def __init__(self, reply: Reply) -> None:
        super().__init__()
        self.reply = reply
        self.calls: list[tuple[list[Message], str]] = []

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        instructions = str(options.get("instructions") or "")
        self.calls.append((list(messages), instructions))
        text = self.reply(messages, instructions)
        if stream:
            return self._build_response_stream(_updates(text))
        return _ready(ChatResponse(messages=[Message("assistant", [text])]))


async def _ready(response: ChatResponse[Any]) -> ChatResponse[Any]:
    return response


async def _updates(text: str) -> AsyncIterator[ChatResponseUpdate]:
    yield ChatResponseUpdate(role="assistant", contents=[Content.from_text(text)])
