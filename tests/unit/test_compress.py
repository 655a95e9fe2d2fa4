"""Compression: each vs batch, the skip list, cost per call, redaction, settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.flows.loop.results import _keep_full_output
from cairn.flows.settings import Settings
from cairn.memory.models import CallCost, PlannedCall
from cairn.tasks import compress
from cairn.tasks.messages.schemas import (
    CompressBatchInput,
    CompressBatchOutput,
    CompressInput,
    CompressOutput,
)
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools.base import ToolOutput

KEY = "sk-proj-" + "a1b2c3d4e5f6g7h8i9j0k1l2"
COST = CallCost(prompt_tokens=301, completion_tokens=30, usd=0.03, seconds=0.9)


def items(n: int) -> list[tuple[PlannedCall, ToolOutput]]:
    return [
        (PlannedCall(tool="read_file", params={"path": f"f{i}.md"}), ToolOutput(text=f"text {i} " * 50))
        for i in range(n)
    ]


def one(payload: CompressInput) -> LLMResult[Any]:
    out = CompressOutput(insights=f"read {payload.params['path']}", relevance="high")
    return LLMResult[Any](kind="compress", model="m", output=out, ok=True, cost=COST)


def test_batch_is_one_call_whose_cost_is_split_exactly() -> None:
    seen: list[CompressBatchInput] = []

    def batch(payload: CompressBatchInput) -> LLMResult[Any]:
        seen.append(payload)
        results = [CompressOutput(insights=f"b {c.params['path']}", relevance="low") for c in payload.calls]
        return LLMResult[Any](
            kind="compress_batch", model="m", output=CompressBatchOutput(results=results), ok=True, cost=COST
        )

    out = compress.compress_many(
        "goal", items(3), "ACTIVE RULES AND ISSUES:\n- [Constraint] x", batch, lambda n, p: one(p)
    )
    assert (
        len(seen) == 1
        and seen[0].context.endswith("[Constraint] x")
        and all(not c.context for c in seen[0].calls)
    )
    assert [c.insights for c, _ in out] == ["b f0.md", "b f1.md", "b f2.md"]
    costs = [cost for _, cost in out]
    assert sum(c.prompt_tokens for c in costs) == 301 and sum(c.completion_tokens for c in costs) == 30
    assert abs(sum(c.usd for c in costs) - 0.03) < 1e-12


def test_a_batch_with_the_wrong_count_falls_back_to_one_call_each() -> None:
    def short(payload: CompressBatchInput) -> LLMResult[Any]:
        return LLMResult[Any](
            kind="compress_batch",
            model="m",
            ok=True,
            cost=COST,
            output=CompressBatchOutput(results=[CompressOutput(insights="only one")]),
        )

    asked: list[int] = []
    out = compress.compress_many("goal", items(2), "", short, lambda n, p: (asked.append(n), one(p))[1])
    assert asked == [0, 1] and [c.insights for c, _ in out] == ["read f0.md", "read f1.md"]
    assert sum(cost.prompt_tokens for _, cost in out) == 2 * 301 + 301  # the wasted batch is counted too


def test_a_failed_model_call_keeps_a_mechanical_compression() -> None:
    failed = LLMResult[Any](kind="compress", model="m", ok=False, error="down", cost=COST)
    compression, cost = compress.compress_one("goal", *items(1)[0], "", lambda p: failed)
    assert compression.insights.startswith("read_file:") and cost == COST


def test_skip_list_and_deep_mode() -> None:
    assert not compress.needs_model("list_directory", ("list_directory",), "fast")
    assert compress.needs_model("list_directory", ("list_directory",), "deep")


def test_secrets_never_reach_the_compressor_or_the_kept_output(tmp_path: Path) -> None:
    planned, _ = items(1)[0]
    payload = compress.compress_input("g", planned, ToolOutput(text=f"OPENAI_API_KEY={KEY}\n" + "x" * 2000))
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
