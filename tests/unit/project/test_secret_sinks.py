"""Each place Cairn keeps text redacts it first: unit-level proofs, one per sink, no Prefect engine.

tests/e2e/test_secrets.py proves the same end to end; these pin each sink to the line that cleans
it, so a refactor that drops one fails here in seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn import redact
from cairn.core import PythonToolConfig, ToolsConfig
from cairn.flows.loop.results import _keep_full_output
from cairn.flows.runtime import protect_secrets
from cairn.memory.index.indexer import records_for
from cairn.memory.log.state import TaskState
from cairn.tasks.calls import ToolCrashed, redact_result, run_tool_call
from cairn.tasks.messages.schemas import CompressOutput
from cairn.tasks.model.llm import LLMResult
from cairn.tasks.tools import tool
from cairn.tasks.tools.base import ToolContext
from tests.unit.project.test_properties import file_envelope

KEY = "sk-proj-" + "Ab3" * 14
ENV_VALUE = "Zq8wPl2mXr5tYv9n"  # no pattern knows this shape: only the registry catches it


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(redact, "_registered", frozenset())
    redact.register_secrets({ENV_VALUE})
    yield


def test_registered_secrets_reach_every_redact_call() -> None:
    assert redact.redact(f"value {ENV_VALUE} here") == "value [REDACTED:env] here"
    assert redact.redact_value({"a": [ENV_VALUE]}) == {"a": ["[REDACTED:env]"]}


def test_protect_secrets_registers_the_environment_and_redacts_log_records(
    caplog: pytest.LogCaptureFixture,
) -> None:
    before = logging.getLogRecordFactory()
    try:
        protect_secrets({"MY_SERVICE_TOKEN": "tok-9f8e7d6c5b4a", "HOME": "/home/me"})
        assert "tok-9f8e7d6c5b4a" in redact.registered_secrets()
        with caplog.at_level(logging.INFO, logger="cairn.test"):
            logging.getLogger("cairn.test").info("read %s and %s", KEY, "tok-9f8e7d6c5b4a")
            try:
                raise ValueError(f"bad key {KEY}")
            except ValueError:
                logging.getLogger("cairn.test").exception("crashed")
        text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
        assert KEY not in text and "tok-9f8e7d6c5b4a" not in text
        assert "[REDACTED:openai]" in text and "[REDACTED:env]" in text
    finally:
        logging.setLogRecordFactory(before)


def tool_context(tmp_path: Path) -> ToolContext:
    (tmp_path / "artifacts").mkdir()
    (tmp_path / "artifacts" / "notes.md").write_text(f"key {KEY}\nvalue {ENV_VALUE}\n", encoding="utf-8")
    return ToolContext(task_id="t-1", artifacts=tmp_path / "artifacts")


def test_a_tool_output_is_redacted_before_prefect_persists_it(tmp_path: Path) -> None:
    from cairn.core import PlannedCall

    output = run_tool_call(tool_context(tmp_path), PlannedCall(tool="read_file", params={"path": "notes.md"}))
    assert KEY not in output.text and ENV_VALUE not in output.text
    assert "[REDACTED:openai]" in output.text and "[REDACTED:env]" in output.text


@tool(read_only=True)
def leaky_tool() -> None:
    """Fails, quoting a key."""
    raise OSError(f"cannot reach https://api.example.com with {KEY}")


@tool
def leaky_writer() -> None:
    """Fails, quoting a key, after perhaps changing something."""
    raise OSError(f"half-written with {KEY}")


def leaky_context(tmp_path: Path) -> ToolContext:
    functions = [f"{__name__}:leaky_tool", f"{__name__}:leaky_writer"]
    tools = ToolsConfig(python=[PythonToolConfig(function=f) for f in functions])
    return tool_context(tmp_path).model_copy(update={"tools": tools})


def test_a_crashing_tool_raises_a_redacted_message(tmp_path: Path) -> None:
    from cairn.core import PlannedCall

    with pytest.raises(ToolCrashed) as caught:
        run_tool_call(leaky_context(tmp_path), PlannedCall(tool="leaky_tool", params={}))
    assert KEY not in str(caught.value) and "OSError" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_crashing_tool_with_side_effects_is_a_redacted_failure_not_a_retry(tmp_path: Path) -> None:
    from cairn.core import PlannedCall

    output = run_tool_call(leaky_context(tmp_path), PlannedCall(tool="leaky_writer", params={}))
    assert output.outcome == "error" and "OSError" in output.text
    assert KEY not in output.model_dump_json()


def test_a_model_result_is_redacted_before_prefect_persists_it() -> None:
    output = CompressOutput(
        insights=f"the file holds {KEY}", learning="", relevance="high", next_suggested_actions=""
    )
    result = LLMResult[CompressOutput](
        kind="compress",
        model="m",
        output=output,
        ok=True,
        raw=f'{{"insights": "{KEY}"}}',
        error=f"401 {ENV_VALUE}",
    )
    clean = redact_result(result)
    assert KEY not in clean.model_dump_json() and ENV_VALUE not in clean.model_dump_json()
    assert isinstance(clean.output, CompressOutput) and clean.output.relevance == "high"


def test_a_kept_full_output_is_redacted(tmp_path: Path) -> None:
    text = "x" * 5000 + f"\nkey {KEY} and {ENV_VALUE}\n"
    path = _keep_full_output(tmp_path, "call-1-1", text)
    assert path == "outputs/call-1-1.txt"
    kept = (tmp_path / "call-1-1.txt").read_text(encoding="utf-8")
    assert KEY not in kept and ENV_VALUE not in kept and kept.startswith("x" * 5000)


def test_document_chunks_read_from_artifacts_are_redacted(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(f"# Notes\n\nkey {KEY}\n\nvalue {ENV_VALUE}\n", encoding="utf-8")
    chunks = records_for(TaskState(task_id="t-1"), file_envelope("notes.md"), tmp_path)
    text = "\n".join(c.content for c in chunks)
    assert chunks and KEY not in text and ENV_VALUE not in text and "[REDACTED:openai]" in text
