"""`relevant_context`: rules and issues always, search hits, the fitted history — as one CONTEXT block."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.core import IterationRecord, Memory, ToolCall, UserMessage
from cairn.memory.context.relevant import relevant_context, rules_block
from cairn.memory.embed.embeddings import HashingEmbedder
from cairn.memory.log.state import Constraint, HotIssue, TaskState
from cairn.memory.store.sqlite_store import SQLiteStore


@pytest.fixture()
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "memory.db", HashingEmbedder(dim=64))


def state_with(**update: object) -> TaskState:
    base = TaskState(
        task_id="task-a",
        goal="How is the refund computed in the payment module?",
        messages=[UserMessage(text="How is the refund computed?", role="goal")],
    )
    return base.model_copy(update=update)


def chunk(key: str, content: str, tenant: str = "task-a", path: str = "src/pay.py") -> Memory:
    return Memory(key=key, kind="document_chunk", content=content, tenant=tenant, file_path=path)


def test_block_has_rules_issues_snippets_and_history_in_order(store: SQLiteStore) -> None:
    store.upsert(
        [
            chunk("c1", "def refund(amount): return amount * 0.9  # refund keeps a 10% fee"),
            chunk("c2", "The weather today is sunny.", path="notes/weather.md"),
        ]
    )
    calls = [
        ToolCall(
            call_id="call-1-1",
            iteration=1,
            index=1,
            tool="read_file",
            params={"path": "src/pay.py"},
            insights="refund keeps a 10% fee",
            relevance="high",
        )
    ]
    state = state_with(
        constraints=[Constraint(key="k1", rule="Never use requirements.txt.")],
        hot_issues=[
            HotIssue(tool="run_tests", check_id="t::a", content="run_tests failing: t::a", opened_by="c")
        ],
        iterations=[IterationRecord(iteration=1, tool_calls=calls)],
    )
    text = relevant_context(state, store, budget_tokens=500)
    parts = [
        "CONTEXT:",
        "ACTIVE RULES AND ISSUES:",
        "- [Constraint] Never use requirements.txt.",
        "- [Hot Issue] run_tests failing: t::a",
        "RELEVANT DOCUMENT SNIPPETS:",
        "[Source: src/pay.py] def refund",
        "REASONING HISTORY",
        "- [high] it1 read_file(src/pay.py) -> success: refund keeps a 10% fee",
    ]
    positions = [text.index(p) for p in parts]
    assert positions == sorted(positions)


def test_other_tasks_rules_join_once_and_retired_or_other_tenants_do_not(store: SQLiteStore) -> None:
    shared = [
        Memory(key="k1", kind="constraint", content="Never use requirements.txt.", tenant="shared"),
        Memory(key="k2", kind="constraint", content="Always cite sources.", tenant="shared"),
        Memory(key="k3", kind="constraint", content="Old rule.", tenant="shared", active=False),
        Memory(key="k4", kind="constraint", content="never use  requirements.txt", tenant="shared"),
    ]
    store.upsert([*shared, chunk("x", "secret plan of task b about refund", tenant="task-b")])
    state = state_with(constraints=[Constraint(key="k1", rule="Never use requirements.txt.")])
    block = rules_block(state, store)
    assert block.count("requirements.txt") == 1  # same key, and same words in another key: once
    assert "Always cite sources." in block and "Old rule." not in block
    assert "task b" not in relevant_context(state, store)


def test_a_rule_this_task_retired_stays_out_even_if_shared_is_active(store: SQLiteStore) -> None:
    store.upsert([Memory(key="k1", kind="constraint", content="Never use tabs.", tenant="shared")])
    state = state_with(constraints=[Constraint(key="k1", rule="Never use tabs.", active=False)])
    assert "tabs" not in rules_block(state, store)


def test_feedback_steers_the_search(store: SQLiteStore) -> None:
    store.upsert([chunk("c1", "Currency conversion uses the ECB daily rate table.", path="src/fx.py")])
    plain = relevant_context(state_with(), store, k=1)
    asked = relevant_context(
        state_with(messages=[UserMessage(text="look at currency conversion rates")]), store, k=1
    )
    assert "src/fx.py" in asked and ("src/fx.py" not in plain or plain.count("ECB") <= asked.count("ECB"))


def test_assembly_over_thousands_of_memories_stays_bounded(store: SQLiteStore) -> None:
    # Speed is measured in bench/context.py; here: the block stays small and keeps what matters.
    store.upsert(
        [chunk(f"c{i}", f"chunk {i} about payments, refunds and fees number {i % 97}") for i in range(3000)]
    )
    state = state_with(
        iterations=[
            IterationRecord(
                iteration=n,
                tool_calls=[
                    ToolCall(
                        call_id=f"call-{n}-1",
                        iteration=n,
                        index=1,
                        tool="read_file",
                        params={"path": f"f{n}.py"},
                        insights=f"file {n} has refund logic",
                    )
                ],
            )
            for n in range(1, 201)
        ]
    )
    block = relevant_context(state, store, budget_tokens=500)
    assert block.count("[Source:") <= 10
    assert len(block) // 4 < 1500  # snippets + a 500-token history, not 3,000 chunks and 200 calls
    assert "it200" in block  # the most recent call survives the budget
