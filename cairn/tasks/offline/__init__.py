"""`cairn/offline`: a deterministic, extractive model, reached through litellm as provider `cairn`.

It reads the request back with `cairn.tasks.messages.prompts.parse_request` and fulfils the call's
schema with extractive logic (`classifier`, `planner`, `reading`, `spec_code`,
`docstring_line`), so a research or question task over local files completes with no model at
all. `litellm_provider` registers it in litellm; it is the only module here that imports litellm
(seconds), loaded only by a client of the offline model.

>>> from cairn.tasks.messages.prompts import render
>>> from cairn.tasks.messages.schemas import DetectTaskTypeInput
>>> respond(render("detect_task_type", DetectTaskTypeInput(goal="Refactor the parser module")))
'{"task_type":"coding_task","rationale":"code words: module, refactor"}'
"""

from __future__ import annotations

from cairn.tasks.messages.file_reply import files_reply
from cairn.tasks.messages.prompts import PromptError, parse_request
from cairn.tasks.messages.schemas import (
    AskInput,
    CalculateInput,
    CalculateOutput,
    CompressBatchInput,
    CompressInput,
    DeliverInput,
    DetectTaskTypeInput,
    DocstringInput,
    ExtractConstraintInput,
    JudgeInput,
    PlanInput,
    Schema,
    SynthesizeInput,
    WriteInput,
)
from cairn.tasks.offline.answers import deliver
from cairn.tasks.offline.classifier import rule_by_words, task_type_by_words
from cairn.tasks.offline.docstring_line import docstring
from cairn.tasks.offline.planner import plan
from cairn.tasks.offline.reading import compress, compress_batch, synthesize
from cairn.tasks.offline.spec_code import write

__all__ = ["OFFLINE_MODEL", "PROVIDER", "respond"]

PROVIDER = "cairn"
OFFLINE_MODEL = "cairn/offline"


def respond(messages: list[dict[str, str]]) -> str:
    """The offline model's reply (JSON text) to rendered Cairn messages."""
    kind, payload = parse_request(messages)
    if isinstance(payload, JudgeInput):  # a word, not JSON: the line holds the answer or it does not
        return "yes" if payload.answer.lower() in payload.line.lower() else "no"
    if isinstance(payload, AskInput):  # words, not JSON: the answer it would deliver
        asked = DeliverInput(goal=payload.question, task_type="simple_question", deliverable="answer.md",
                             notes=[], excerpts=payload.files)  # fmt: skip
        return deliver(asked).answer
    if isinstance(payload, DocstringInput):  # words in triple quotes, as a model writes one
        return f'"""{docstring(payload)}"""'
    output: Schema
    if isinstance(payload, PlanInput):
        output = plan(payload)
    elif isinstance(payload, CompressInput):
        output = compress(payload)
    elif isinstance(payload, CompressBatchInput):
        output = compress_batch(payload)
    elif isinstance(payload, SynthesizeInput):
        output = synthesize(payload)
    elif isinstance(payload, ExtractConstraintInput):
        output = rule_by_words(payload.message)
    elif isinstance(payload, DetectTaskTypeInput):
        output = task_type_by_words(payload.goal)
    elif isinstance(payload, DeliverInput):
        output = deliver(payload)  # a question's value from the files' words; a report is the planner's
    elif isinstance(payload, CalculateInput):
        output = CalculateOutput()  # never asked: the offline model delivers no answers
    elif isinstance(payload, WriteInput):
        return files_reply({f.path: f.content for f in write(payload).files})
    else:  # pragma: no cover - INPUTS and this dispatch list change together
        raise PromptError(f"no offline handler for {kind}")
    return output.model_dump_json()
