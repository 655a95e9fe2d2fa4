"""A plain litellm chat loop with long-term memory (`cairn.memory.context.provider.MemoryContextProvider`).

Each line on stdin is a user turn. Before the model call the provider adds the relevant memories
to the system prompt; after it, the provider stores the facts and preferences the user stated.

    python examples/chat_with_memory.py                          # offline: litellm's mock_response
    python examples/chat_with_memory.py --model gpt-4o-mini --db chat.db --thread alice

Offline (`--model mock`, the default) the reply is scripted from what memory supplied, so the loop
runs anywhere, including the test suite. `--extractor model` asks the chat model to extract facts
instead of the built-in heuristics.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import litellm

from cairn.memory.context.extract import ChatMessage, Extracted, heuristic_facts
from cairn.memory.context.provider import MemoryContextProvider
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.store.sqlite_store import SQLiteStore

SYSTEM = "You are a helpful assistant."
EXTRACT_PROMPT = (
    "List the facts and preferences the user states about themselves in these messages, in the third "
    'person. Answer JSON only: {"items": [{"kind": "fact" | "preference", "content": "..."}]}'
)


def chat(model: str, messages: list[ChatMessage], offline_reply: str) -> str:
    """One model call; `mock` answers with `offline_reply` through litellm's mock_response."""
    if model == "mock":
        response: Any = litellm.completion(
            model="gpt-4o-mini", messages=messages, mock_response=offline_reply
        )
    else:
        response = litellm.completion(model=model, messages=messages)
    return str(response.choices[0].message.content or "")


def model_extractor(model: str):  # type: ignore[no-untyped-def]
    """An LLM extractor for the provider: the same call signature as `heuristic_facts`."""

    def extract(messages: Sequence[ChatMessage]) -> list[Extracted]:
        if model == "mock":
            return heuristic_facts(messages)
        prompt = [
            {"role": "system", "content": EXTRACT_PROMPT},
            {"role": "user", "content": json.dumps([dict(m) for m in messages])},
        ]
        try:
            items = json.loads(chat(model, prompt, ""))["items"]
            return [Extracted.model_validate(item) for item in items]
        except (ValueError, KeyError, TypeError):
            return heuristic_facts(messages)  # a malformed answer costs the memory, not the chat

    return extract


def scripted_reply(instructions: str | None) -> str:
    """The offline model's answer: what memory supplied, or an acknowledgement."""
    if not instructions:
        return "Noted."
    recalled = [line[2:] for line in instructions.splitlines() if line.startswith("- ")]
    return "From memory: " + "; ".join(recalled)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mock", help="any litellm model, or 'mock' (offline)")
    parser.add_argument("--db", default=":memory:", help="SQLite file holding the memories")
    parser.add_argument("--thread", default="demo", help="conversation id: memories are kept per thread")
    parser.add_argument("--extractor", choices=["heuristic", "model"], default="heuristic")
    parser.add_argument("--min-relevance", type=float, default=0.15)
    args = parser.parse_args(argv)

    store = SQLiteStore(args.db, HashingEmbedder())
    extractor = model_extractor(args.model) if args.extractor == "model" else heuristic_facts
    provider = MemoryContextProvider(
        store, args.thread, extractor=extractor, min_relevance=args.min_relevance
    )
    history: list[ChatMessage] = []
    for line in sys.stdin:
        if not line.strip():
            continue
        history.append({"role": "user", "content": line.strip()})
        context = provider.before_run(history)
        system = SYSTEM + ("\n\n" + context.instructions if context.instructions else "")
        reply = chat(
            args.model,
            [{"role": "system", "content": system}, *history],
            scripted_reply(context.instructions),
        )
        provider.after_run(history, [{"role": "assistant", "content": reply}])
        history.append({"role": "assistant", "content": reply})
        print(f"user> {line.strip()}\nassistant> {reply}", flush=True)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
