"""An Agent Framework agent that learns a preference in one session and uses it in a later one.

    pip install 'cairn-agents[agent-framework]'
    python examples/agent_framework_memory.py                     # offline, scripted model
    python examples/agent_framework_memory.py --db memory.db --user alice
    OPENAI_API_KEY=sk-... python examples/agent_framework_memory.py --model gpt-4o-mini
                                     # a real model (needs `pip install agent-framework-openai` too)

Session 1: the user states a preference; `CairnContextProvider.after_run` stores it in the user's
memory. The session is then saved as JSON and restored, the way a session store would. Session 2
is a new conversation: `before_run` finds the preference and adds it to the instructions, and the
answer uses it. Offline, the model is `FunctionChatClient` with a scripted reply built from those
instructions, so the example runs anywhere, including the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from agent_framework import Agent, AgentSession, Message

from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.integrations.agent_framework import CairnContextProvider, FunctionChatClient
from cairn.memory.store.backends import open_store

INSTRUCTIONS = "You are a concise travel assistant."
LEARN = "I prefer aisle seats on long flights."
ASK = "Please book me a seat on the flight to Lisbon."


def scripted_reply(messages: Sequence[Message], instructions: str) -> str:
    """The offline model: acknowledge, or book using what memory supplied."""
    recalled = [line.split("] ", 1)[-1] for line in instructions.splitlines() if line.startswith("- [")]
    if not recalled:
        return "Noted, I will keep that in mind."
    return "Booked your Lisbon flight. From memory: " + "; ".join(recalled) + "."


def chat_client(model: str) -> Any:
    """OpenAI through the framework's own client when a key and the package are there; else offline."""
    if os.environ.get("OPENAI_API_KEY"):
        try:
            from agent_framework.openai import OpenAIChatClient

            return OpenAIChatClient(model=model)
        except ModuleNotFoundError:
            print("(agent-framework-openai is not installed: running offline)", file=sys.stderr)
    return FunctionChatClient(scripted_reply)


def restored(session: AgentSession) -> AgentSession:
    """A JSON round trip of the session: what a session store does between two requests."""
    return AgentSession.from_dict(json.loads(json.dumps(session.to_dict())))


async def run(db: str, user: str, model: str) -> str:
    store = open_store("sqlite", path=db, embedder=HashingEmbedder())
    memory = CairnContextProvider(store, scope="user", user_id=user, min_relevance=0.15)
    agent = Agent(chat_client(model), INSTRUCTIONS, name="concierge", context_providers=[memory])
    try:
        first = agent.create_session()
        print(f"[session 1] user: {LEARN}\n[session 1] agent: {(await agent.run(LEARN, session=first)).text}")
        state = restored(first).state[memory.source_id]["memory"]
        print(f"[session 1] saved state: turns={state.turns} learned={len(state.learned)} memory")
        later = agent.create_session()
        answer = (await agent.run(ASK, session=later)).text
        print(f"[session 2] user: {ASK}\n[session 2] agent: {answer}")
        return answer
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=":memory:", help="SQLite file holding the memories")
    parser.add_argument("--user", default="alice", help="whose memory: sessions of one user share it")
    parser.add_argument(
        "--model", default="gpt-4o-mini", help="OpenAI model, used when OPENAI_API_KEY is set"
    )
    args = parser.parse_args(argv)
    answer = asyncio.run(run(args.db, args.user, args.model))
    return 0 if "aisle" in answer.lower() else 1


if __name__ == "__main__":
    sys.exit(main())
