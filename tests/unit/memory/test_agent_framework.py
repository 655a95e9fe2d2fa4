"""Cairn's memory as a Microsoft Agent Framework context provider (issue 9).

Everything runs through agent-framework-core's real classes (`Agent`, `AgentSession`,
`SessionContext`, `FileSessionStore`, a `BaseChatClient` subclass): nothing of the framework is
mocked. CI installs the `agent-framework` extra; without it every test here fails with the reason.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.core import Memory
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.protocol import MemoryStore
from cairn.memory.store.sqlite_store import SQLiteStore

try:
    from agent_framework import Agent, AgentSession, FileSessionStore, Message, SessionContext

    from cairn.memory.integrations.agent_framework import (
        CairnContextProvider,
        CairnMemoryState,
        FunctionChatClient,
        ScopeMismatchError,
    )

    MISSING: ModuleNotFoundError | None = None
except ModuleNotFoundError as exc:  # a missing framework must fail these tests, never skip them
    MISSING = exc

ROOT = Path(__file__).resolve().parents[3]
PREFERENCE = "I prefer aisle seats on long flights."
QUESTION = "Which seats do I prefer on long flights?"


@pytest.fixture(autouse=True)
def agent_framework_installed() -> None:
    if MISSING is not None:
        pytest.fail(
            f"agent-framework-core is not installed ({MISSING}); install the extra: "
            "pip install -e '.[agent-framework]'",
            pytrace=False,
        )


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(tmp_path / "memory.db", HashingEmbedder())
    yield opened
    opened.close()


def agent_for(
    store: MemoryStore, name: str = "concierge", **options: Any
) -> tuple[Agent, FunctionChatClient]:
    client = FunctionChatClient(lambda messages, instructions: "Noted.")
    provider = CairnContextProvider(store, **options)
    return Agent(client, "You are helpful.", name=name, context_providers=[provider]), client


def say(agent: Agent, text: str, session: AgentSession | None = None) -> AgentSession:
    session = session or agent.create_session()
    asyncio.run(agent.run(text, session=session))
    return session


def provider_of(agent: Agent) -> CairnContextProvider:
    return next(p for p in agent.context_providers if isinstance(p, CairnContextProvider))


def last_instructions(client: FunctionChatClient) -> str:
    return client.calls[-1][1]


# --- recall across sessions, isolation, relevance ---------------------------------------------


def test_a_fact_stated_in_session_1_is_in_session_2_instructions(store: SQLiteStore) -> None:
    agent, client = agent_for(store, scope="user", user_id="alice")
    first = say(agent, f"Hello! {PREFERENCE}")
    second = say(agent, QUESTION)

    assert second.session_id != first.session_id
    assert "- [preference] User prefers aisle seats on long flights" in last_instructions(client)
    assert last_instructions(client).startswith("You are helpful.")  # added to, never replacing
    [memory] = provider_of(agent).memories(second)
    assert (memory.tenant, memory.thread_id, memory.agents) == ("user:alice", first.session_id, ["concierge"])


def test_a_different_users_session_never_sees_it(store: SQLiteStore) -> None:
    alice, _ = agent_for(store, scope="user", user_id="alice")
    say(alice, PREFERENCE)
    bob, bob_client = agent_for(store, scope="user", user_id="bob")
    session = say(bob, QUESTION)
    say(bob, "User prefers aisle seats on long flights", session)  # alice's memory, verbatim

    assert [instructions for _, instructions in bob_client.calls] == ["You are helpful."] * 2
    assert provider_of(bob).memories(session) == []


def test_session_scope_keeps_a_fact_inside_its_session(store: SQLiteStore) -> None:
    agent, client = agent_for(store)  # scope="session" is the default
    first = say(agent, PREFERENCE)
    say(agent, QUESTION, first)
    assert "aisle seats" in last_instructions(client)

    say(agent, QUESTION)  # a new session of the same agent and user
    assert "aisle" not in last_instructions(client)


def test_a_session_of_one_user_is_refused_to_another(store: SQLiteStore) -> None:
    alice, _ = agent_for(store, scope="user", user_id="alice")
    session = say(alice, PREFERENCE)
    bob, _ = agent_for(store, scope="user", user_id="bob")
    with pytest.raises(ScopeMismatchError, match="user:alice"):
        say(bob, QUESTION, session)


def test_a_memory_below_the_minimum_relevance_is_not_injected(store: SQLiteStore) -> None:
    writer, _ = agent_for(store, scope="user", user_id="alice")
    say(writer, f"{PREFERENCE} I like long walks on the beach.")

    loose, loose_client = agent_for(store, scope="user", user_id="alice", min_relevance=0.1)
    say(loose, QUESTION)  # the premise: the weak memory matches the question a little
    assert "long walks" in last_instructions(loose_client)

    strict, strict_client = agent_for(store, scope="user", user_id="alice", min_relevance=0.3)
    say(strict, QUESTION)
    assert "aisle seats" in last_instructions(strict_client)
    assert "long walks" not in last_instructions(strict_client)


# --- agent-framework issue 6237: stored memories must come back ---------------------------------
# Mem0's provider once wrote with one scope (app id in metadata; facts tagged with the user OR the
# agent) and read with another (a top-level app id AND the user AND the agent), so every search came
# back empty. Here the write path and the read path are the provider's own, for every scope, with
# the identifiers that could diverge (agent name, provider instance, store connection) all changed
# between writing and reading: whatever was stored must be recalled when asked about verbatim.


@pytest.mark.parametrize("scope", ["session", "user"])
def test_every_stored_memory_is_recalled_by_a_fresh_provider(tmp_path: Path, scope: str) -> None:
    path = tmp_path / "memory.db"
    writer_store = SQLiteStore(path, HashingEmbedder())
    writer, _ = agent_for(writer_store, name="planner", scope=scope, user_id="alice")
    session = say(writer, f"{PREFERENCE} My sister is called Ana. I work as a nurse in Porto.")
    stored = provider_of(writer).memories(session)
    writer_store.close()
    assert len(stored) == 3

    reader_store = SQLiteStore(path, HashingEmbedder())  # another process, in effect
    reader, client = agent_for(reader_store, name="helper", scope=scope, user_id="alice", top_k=1)
    restored = AgentSession.from_dict(json.loads(json.dumps(session.to_dict())))
    for memory in stored:
        target = restored if scope == "session" else reader.create_session()
        say(reader, memory.content, target)
        assert f"] {memory.content}" in last_instructions(client), f"{memory.content!r} was not recalled"
        state = target.state[provider_of(reader).source_id]["memory"]
        assert state.recalled == [memory.key]
    reader_store.close()


def test_recall_does_not_depend_on_the_thread_that_stored_it(store: SQLiteStore) -> None:
    """User scope: a memory written in session A is found from session B (no thread filter)."""
    agent, client = agent_for(store, scope="user", user_id="alice")
    for n in range(3):
        say(agent, f"My locker number is {n + 40}.")  # three sessions, three thread ids
    say(agent, "What is my locker number?")
    assert last_instructions(client).count("User's locker number is") == 3


# --- extraction, dedup, rules of the workspace ---------------------------------------------------


def test_restating_a_fact_in_another_session_keeps_one_memory(store: SQLiteStore) -> None:
    agent, _ = agent_for(store, scope="user", user_id="alice")
    say(agent, PREFERENCE)
    later = say(agent, "i prefer aisle seats on long flights!")
    [memory] = provider_of(agent).memories(later)
    assert memory.thread_id == later.session_id  # the session that said it last
    assert later.state[provider_of(agent).source_id]["memory"].learned == [memory.key]


def test_active_constraints_and_open_hot_issues_are_in_every_run(store: SQLiteStore) -> None:
    def rule(key: str, content: str, **fields: Any) -> Memory:
        return Memory(key=key, kind="constraint", content=content, tenant="shared", domain="rules", **fields)

    store.upsert(
        [
            rule("rules:general:a", "Never use requirements.txt."),
            rule("rules:general:b", "never use requirements.txt"),  # the same rule, reworded case
            rule("rules:general:c", "Prefer tabs.", active=False),  # retired
            Memory(
                key="hot_issue:coding_task:run_tests:t1",
                kind="hot_issue",
                tenant="task-1",
                content="test_refund fails: KeyError 'amount'",
            ),
            Memory(
                key="hot_issue:coding_task:run_tests:t2",
                kind="hot_issue",
                tenant="task-1",
                content="test_login fails",
                active=False,
            ),  # resolved
        ]
    )
    agent, client = agent_for(store)
    say(agent, "Hello there.")
    instructions = last_instructions(client)
    assert instructions.count("requirements.txt") == 1
    assert "- [Hot Issue] test_refund fails: KeyError 'amount'" in instructions
    assert "tabs" not in instructions and "test_login" not in instructions

    quiet, quiet_client = agent_for(store, include_rules=False)
    say(quiet, "Hello there.")
    assert last_instructions(quiet_client) == "You are helpful."


def test_input_without_text_never_reaches_the_search(store: SQLiteStore) -> None:
    """A turn with no text (a tool approval, say) must not embed an empty query; rules still apply."""
    store.upsert([Memory(key="rules:general:a", kind="constraint", content="Be brief.", tenant="shared")])
    provider = CairnContextProvider(store)
    agent = Agent(FunctionChatClient(lambda m, i: ""), context_providers=[provider])
    session = AgentSession()
    context = SessionContext(session_id=session.session_id, input_messages=[Message("user", [])])
    asyncio.run(provider.before_run(agent=agent, session=session, context=context, state={}))
    assert context.instructions == [f"{provider.rules_block()}"]
    assert "Be brief." in context.instructions[0]


# --- session state persistence ------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*FileSessionStore is experimental")
def test_state_round_trips_through_the_frameworks_file_session_store(
    store: SQLiteStore, tmp_path: Path
) -> None:
    agent, client = agent_for(store, scope="user", user_id="alice")
    session = say(agent, PREFERENCE)
    sessions = FileSessionStore(tmp_path / "sessions")
    asyncio.run(sessions.set(session.session_id, session))
    loaded = asyncio.run(sessions.get(session.session_id))

    assert loaded is not None
    state = loaded.state[provider_of(agent).source_id]["memory"]
    assert isinstance(state, CairnMemoryState)
    assert (state.scope, state.tenant, state.turns, len(state.learned)) == ("user", "user:alice", 1, 1)
    say(agent, QUESTION, loaded)  # the restored session goes on: history and memory both
    assert "aisle seats" in last_instructions(client)
    assert loaded.state[provider_of(agent).source_id]["memory"].turns == 2


def test_the_state_type_is_registered_at_import_for_a_cold_start(store: SQLiteStore) -> None:
    agent, _ = agent_for(store)
    payload = json.dumps(say(agent, PREFERENCE).to_dict())
    assert '"type": "cairn.memory_state"' in payload
    code = (
        "import json, sys\n"
        "from agent_framework import AgentSession\n"
        "import cairn.memory.integrations.agent_framework as cairn\n"
        "state = AgentSession.from_dict(json.loads(sys.stdin.read())).state['cairn_memory']['memory']\n"
        "print(type(state).__name__, state.turns)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], input=payload, capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["CairnMemoryState", "1"]


# --- the example ----------------------------------------------------------------------------------


def test_the_example_runs_offline(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "agent_framework_memory.py"), "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert "saved state: turns=1 learned=1" in lines[2]
    assert lines[-1].startswith("[session 2] agent: Booked") and "aisle seats" in lines[-1]
