"""A served model's ledger reading, resumed in a new process on a real Prefect server: the
process feeds its ledger every earlier read again, and each `ledger` request it makes meets its
answer in Prefect's cache, so no request reaches the model twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cairn.core import RunConfig
from cairn.flows.loop.policy import BUDGET
from cairn.flows.prefect.flow import run_task
from cairn.flows.steps import coverage
from cairn.memory.log.workspace import Workspace
from cairn.tasks.messages.prompts import PromptError, parse_request
from cairn.tasks.messages.schemas import LedgerInput, LedgerOutput
from tests.model_server import ModelServer

pytestmark = pytest.mark.e2e
GOAL = "For every service, list the team that owns it and its p95 latency budget."
TEAMS = ["Wren", "Kite", "Lark", "Finch", "Coot", "Rook"]
SERVICES = ["Alder", "Birch", "Cedar", "Damson", "Elm", "Fir"]


def test_a_resumed_ledger_asks_the_model_nothing_it_asked_before(
    prefect_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n, team in enumerate(TEAMS):
        said = f"On call for it: Team {team}. 95 of every 100 requests finish within {100 + n} ms."
        (docs / f"{SERVICES[n].lower()}.md").write_text(f"# {SERVICES[n]}\n\n{said}\n", encoding="utf-8")
    asked: list[str] = []

    def respond(messages: list[dict[str, Any]]) -> str | None:
        try:
            _, payload = parse_request(messages)
        except PromptError:  # the probe of whether the model answers at all
            return None
        if not isinstance(payload, LedgerInput):
            return None
        asked.append(payload.model_dump_json())
        n = SERVICES.index(payload.item)
        return LedgerOutput(answers=[f"Team {TEAMS[n]}", f"{100 + n} ms"]).model_dump_json()

    ws = tmp_path / "ws"
    with ModelServer() as server:
        server.respond = respond
        monkeypatch.setenv("OPENAI_API_BASE", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "x")
        config = RunConfig(
            workspace=str(ws), model="openai/m", read_batch=2, max_iterations=5, max_tokens=200
        )
        first = run_task(GOAL, config=config, task_id="t", sources=[str(docs)])
        assert first.iterations == 1 and str(first.stop_reason).startswith(BUDGET)
        before = len(asked)
        coverage._KEPT.clear()  # a new process: its ledger is fed every earlier read again
        resumed = run_task(GOAL, config=config.model_copy(update={"max_tokens": 100_000}), task_id="t")
    assert resumed.iterations > first.iterations, resumed.stop_reason
    assert 0 < before < len(asked) and len(asked) == len(set(asked))  # nothing asked twice
    rows = Workspace(ws).task("t").state().ledger
    assert [rows[name].cells[0].value for name in SERVICES] == [f"Team {t}" for t in TEAMS]
    calls = [json.loads(c.model_dump_json()) for c in Workspace(ws).task("t").state().model_calls]
    ledger_keys = [c["key"] for c in calls if c["kind"] == "ledger"]
    assert len(ledger_keys) == len(set(ledger_keys)) == len(set(asked))  # each recorded once
