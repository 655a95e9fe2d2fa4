"""Compression: each vs batch, the skip list, cost per call, redaction, settings."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.core import CallCost, CallKey, PlannedCall
from cairn.flows.loop.iteration import run_iteration
from cairn.flows.loop.results import _keep_full_output
from cairn.flows.settings import Settings
from cairn.flows.steps.compression import compress_items
from cairn.flows.steps.session import open_session
from cairn.tasks.compress import Finished, compress_input, needs_model
from cairn.tasks.messages.schemas import (
    CallKind,
    Candidate,
    CompressBatchInput,
    CompressBatchOutput,
    CompressInput,
    CompressOutput,
    PlanInput,
    Schema,
)
from cairn.tasks.model.llm import LLMResult, ModelClient
from cairn.tasks.tools.base import ToolOutput
from tests.unit.scripted import ScriptedModel, ScriptedTools, create_task, register, workspace_config

KEY = "sk-proj-" + "a1b2c3d4e5f6g7h8i9j0k1l2"
COST = CallCost(prompt_tokens=301, completion_tokens=30, usd=0.03, seconds=0.9)


def items(n: int) -> list[Finished]:
    return [
        (
            CallKey(task_id="t", iteration=1, index=i + 1, kind="tool"),
            PlannedCall(tool="read_file", params={"path": f"f{i}.md"}),
            ToolOutput(text=f"text {i} " * 50),
        )
        for i in range(n)
    ]


def one(payload: CompressInput) -> LLMResult[Any]:
    out = CompressOutput(insights=f"read {payload.params['path']}", relevance="high")
    return LLMResult[Any](kind="compress", model="m", output=out, ok=True, cost=COST)


def unused(payload: CompressBatchInput) -> LLMResult[Any]:
    raise AssertionError("no batch expected")


class Script:
    """The step's `ask`, answering from the test's functions; it keeps what it was asked, in order."""

    def __init__(
        self,
        each: Callable[[CompressInput], LLMResult[Any]] = one,
        batch: Callable[[CompressBatchInput], LLMResult[Any]] = unused,
    ) -> None:
        self.each, self.batch = each, batch
        self.asked: list[tuple[str, list[int], Schema]] = []  # (kind, the tool calls' indexes, payload)

    def __call__(self, key: CallKey, kind: CallKind, payload: Schema, name: str) -> LLMResult[Any]:
        if kind == "compress_batch":
            indexes = [int(i) for i in key.kind.partition(":")[2].split(",")]
            self.asked.append((kind, indexes, payload))
            assert isinstance(payload, CompressBatchInput)
            return self.batch(payload)
        self.asked.append((kind, [key.index], payload))
        assert isinstance(payload, CompressInput)
        return self.each(payload)


def test_batch_is_one_call_whose_cost_is_split_exactly() -> None:
    def batch(payload: CompressBatchInput) -> LLMResult[Any]:
        results = [CompressOutput(insights=f"b {c.params['path']}", relevance="low") for c in payload.calls]
        return LLMResult[Any](
            kind="compress_batch", model="m", output=CompressBatchOutput(results=results), ok=True, cost=COST
        )

    model = Script(batch=batch)
    out = compress_items("goal", items(3), "ACTIVE RULES AND ISSUES:\n- [Constraint] x", model)
    assert [(kind, calls) for kind, calls, _ in model.asked] == [("compress_batch", [1, 2, 3])]
    seen = model.asked[0][2]
    assert (
        isinstance(seen, CompressBatchInput)
        and seen.context.endswith("[Constraint] x")
        and all(not c.context for c in seen.calls)
    )
    assert [c.insights for c, _ in out] == ["b f0.md", "b f1.md", "b f2.md"]
    costs = [cost for _, cost in out]
    assert sum(c.prompt_tokens for c in costs) == 301 and sum(c.completion_tokens for c in costs) == 30
    assert abs(sum(c.usd for c in costs) - 0.03) < 1e-12


def test_a_batch_with_the_wrong_count_falls_back_to_one_call_each(caplog: pytest.LogCaptureFixture) -> None:
    def short(payload: CompressBatchInput) -> LLMResult[Any]:
        return LLMResult[Any](
            kind="compress_batch",
            model="m",
            ok=True,
            cost=COST,
            output=CompressBatchOutput(results=[CompressOutput(insights="only one")]),
        )

    model = Script(batch=short)
    out = compress_items("goal", items(2), "", model)
    each = [calls for kind, calls, _ in model.asked if kind == "compress"]
    assert each == [[1], [2]] and [c.insights for c, _ in out] == ["read f0.md", "read f1.md"]
    assert sum(cost.prompt_tokens for _, cost in out) == 2 * 301 + 301  # the wasted batch is counted too
    said = [r.getMessage() for r in caplog.records if r.name == "cairn.model"]
    assert said == [  # never silent: what failed, and what it cost
        "model reply unusable: compress_batch t/1/0/compress_batch:1,2 (m) gave 1 results for 2 calls; "
        "asking for each (the batch cost 331 tokens, 0.9 s)"
    ]


def test_a_single_result_is_compressed_on_its_own() -> None:
    model = Script()
    out = compress_items("goal", items(1), "", model)
    assert [(kind, calls) for kind, calls, _ in model.asked] == [("compress", [1])]
    assert [c.insights for c, _ in out] == ["read f0.md"]


def test_a_failed_model_call_keeps_a_mechanical_compression() -> None:
    failed = LLMResult[Any](kind="compress", model="m", ok=False, error="down", cost=COST)
    [(compression, cost)] = compress_items("goal", items(1), "", Script(each=lambda p: failed))
    assert compression.insights.startswith("read_file:") and cost == COST


def test_skip_list_and_deep_mode() -> None:
    assert not needs_model("list_directory", ("list_directory",), "fast")
    assert needs_model("list_directory", ("list_directory",), "deep")


def test_secrets_never_reach_the_compressor_or_the_kept_output(tmp_path: Path) -> None:
    _, planned, _ = items(1)[0]
    payload = compress_input("g", planned, ToolOutput(text=f"OPENAI_API_KEY={KEY}\n" + "x" * 2000))
    assert KEY not in payload.output
    path = _keep_full_output(tmp_path, "call-1-1", f"token {KEY} " + "y" * 2000, ())
    assert path == "outputs/call-1-1.txt"
    kept = (tmp_path / "call-1-1.txt").read_text(encoding="utf-8")
    assert KEY not in kept and "REDACTED" in kept and len(kept) > 2000


def test_compression_settings_come_from_the_environment(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setenv("CAIRN_COMPRESS", "batch")
    monkeypatch.setenv("CAIRN_SKIP_COMPRESS", "list_directory, search_memory")
    config = Settings(workspace=tmp_path).run_config()
    assert config.compress == "batch" and config.skip_compress == ("list_directory", "search_memory")
    monkeypatch.setenv("CAIRN_SKIP_COMPRESS", "")
    assert Settings(workspace=tmp_path).run_config().skip_compress == ()
    monkeypatch.delenv("CAIRN_SKIP_COMPRESS")
    default = ("list_directory", "write_file", "answer", "run_tests", "lint")
    assert Settings(workspace=tmp_path).run_config().skip_compress == default


def read_three(payload: PlanInput) -> list[Candidate]:
    return [Candidate(tool="read_file", params={"path": f"f{i}.md"}) for i in range(3)]


class Recording(ScriptedTools):
    """Every model call the executor is asked for, as (key, kind, run name); tool outputs scripted."""

    def __init__(self, client: ModelClient) -> None:
        super().__init__(client, lambda call: ToolOutput(text=f"{call.params['path']} holds a note. " * 20))
        self.asked: list[tuple[str, CallKind, str]] = []

    def ask(self, key: CallKey, kind: CallKind, payload: Schema, name: str) -> LLMResult[Any]:
        self.asked.append((str(key), kind, name))
        return super().ask(key, kind, payload, name)


@pytest.fixture()
def reads_three() -> Iterator[ScriptedModel]:
    model = ScriptedModel(read_three)
    undo = register(model)
    yield model
    undo()


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "each",
            [
                ("t/1/1/compress", "compress", "compress-1-1"),
                ("t/1/2/compress", "compress", "compress-1-2"),
                ("t/1/3/compress", "compress", "compress-1-3"),
            ],
        ),
        ("batch", [("t/1/0/compress_batch:1,2,3", "compress_batch", "compress-batch-1")]),
    ],
)
def test_the_loop_keys_and_names_each_compression_after_the_calls_it_compresses(
    tmp_path: Path, reads_three: ScriptedModel, mode: str, expected: list[tuple[str, str, str]]
) -> None:
    """Results are cached and resumed by these keys (a 0.2 workspace's too): they must not change."""
    config = workspace_config(tmp_path, compress=mode)
    create_task(config, "t", "Summarise the notes.")
    executor = Recording(ModelClient(config.model, max_attempts=1))
    run_iteration(open_session(config, "t"), 1, "fast", False, executor)
    assert [asked for asked in executor.asked if asked[1].startswith("compress")] == expected
    recorded = open_session(config, "t").state.model_calls
    assert [call.key for call in recorded if call.kind.startswith("compress")] == [
        key for key, _, _ in expected
    ]
