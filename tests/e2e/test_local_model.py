"""A local OpenAI-compatible model server with no settings but `OPENAI_API_BASE` (issue 25): the
preflight learns whether it takes a strict JSON schema, every call of the task then asks for
what it takes, the choice is in the task's history, and the task completes. The server is the
loopback double of `tests/model_server.py`, once taking schemas as llama.cpp's does, once
refusing them as some servers do."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cairn.core import ModelProbed
from cairn.memory.log.workspace import Workspace
from cairn.tasks.calibration import Calibration, save_calibration
from cairn.tasks.messages.prompts import PromptError, parse_request
from cairn.tasks.messages.schemas import JudgeInput
from cairn.tasks.model.llm import ModelClient
from cairn.tasks.model.probe import _ASK
from tests.conftest import CORPUS, QUESTION_FILE, cairn
from tests.model_server import ModelServer

pytestmark = pytest.mark.e2e
QUESTION = QUESTION_FILE.read_text(encoding="utf-8").strip()


def _kind(request: dict[str, object]) -> str:
    try:
        return parse_request(request["messages"])[0]  # type: ignore[arg-type]
    except PromptError:
        return ""  # the preflight's own question


def _trusted(model: str) -> Calibration:
    fields: dict[str, object] = {"model": model, "proven": 0.9, "absent": 0.2, "target": 0.95}
    fields |= {"held_out_precision": 0.97, "held_out_lower": 0.95, "held_out_recall": 0.5}
    fields |= {"held_out_proven": 80, "fold_thresholds": [0.9], "precision": 0.97, "lower": 0.95}
    fields |= {"recall": 0.5, "absent_positives": 0.01, "absent_negatives": 0.3, "n": 240, "positives": 120}
    fields |= {"failed": 0, "graded": True, "labelled_set": "shipped", "measured": "2026-12-01"}
    return Calibration.model_validate(fields)


@pytest.mark.parametrize(("refuse_schema", "taken"), [(False, "json_schema"), (True, "json_object")])
def test_a_local_server_needs_nothing_but_its_address(
    prefect_server: str, tmp_path: Path, refuse_schema: bool, taken: str
) -> None:
    ws, task = tmp_path / "ws", "local"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIRN_", "OPENAI_"))}
    home = tmp_path / "home"  # a model `cairn calibrate` trusted: its yes/no is asked for
    save_calibration(_trusted("openai/small"), home)
    with ModelServer(refuse_schema=refuse_schema) as server:
        env.update({"PREFECT_API_URL": prefect_server, "OPENAI_API_BASE": server.url, "OPENAI_API_KEY": "x"})
        env["CAIRN_HOME"] = str(home)
        args = ["run", QUESTION, "--source", str(CORPUS), "--workspace", str(ws), "--task-id", task]
        proc = cairn([*args, "--model", "openai/small", "--json"], env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["complete"] is True
    (probed,) = [e.probe for e in Workspace(ws).task(task).read().events if isinstance(e, ModelProbed)]
    assert probed.response_format == taken and probed.tokens_per_s
    # Cairn's arithmetic proved the part (1,260,000 / 8,400 over quoted lines): the model is not
    # asked to judge what its word cannot change.
    assert not [r for r in server.requests if r.get("logprobs")]
    # Where it is asked, a `judge` call asks for one yes/no token and its odds, never for JSON.
    with ModelServer(refuse_schema=refuse_schema) as judging:
        client = ModelClient("openai/small", litellm_kwargs={"api_base": judging.url, "api_key": "x"})
        line = "At full supply level the reservoir holds 1,260,000 cubic metres of usable water."
        asked_judge = JudgeInput(
            question="What does the reservoir hold?", answer="1,260,000 cubic metres", line=line
        )
        said = client.call("judge", asked_judge)
    assert said.ok and [(r.get("logprobs"), r.get("response_format")) for r in judging.requests] == [
        (True, None)
    ]
    # A question asked plainly (`ask`) is answered in words, as a user asks it: no format either.
    asked = [r for r in server.requests if not r.get("logprobs") and _kind(r) == "ask"]
    assert asked and all(r.get("response_format") is None for r in asked)
    formats = [
        (r.get("response_format") or {}).get("type")
        for r in server.requests
        if not r.get("logprobs") and _kind(r) != "ask"
    ]
    tried = ["json_schema"] if refuse_schema else []  # the strict schema, tried once and refused
    assert formats == [*tried, *[taken] * (len(formats) - len(tried))] and len(formats) >= 2  # every call
    assert ("refused" in probed.reason) is refuse_schema
    # The preflight is made once: by the command, under its claim; the flow trusts it (issue 34).
    probes = [r for r in server.requests if _ASK in str(r.get("messages"))]
    assert len(probes) == len(tried) + 1
