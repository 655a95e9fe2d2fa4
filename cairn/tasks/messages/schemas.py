"""What Cairn asks a model and what it expects back: one input and one output model per call kind.

Every model call sends an input model (rendered into the prompt by `cairn.tasks.messages.prompts`) and
validates the reply against the output model. The offline provider (`cairn.tasks.offline`) reads the
same input from the prompt's JSON block and fulfils the same output schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from cairn.core import EvidenceType, IterationMode, JsonValue, Progress, Relevance, TaskType, content_hash
from cairn.core import ResponseFormat as ResponseFormat  # a setting of the run: kept here for the client

CallKind = Literal[
    "plan",
    "compress",
    "compress_batch",
    "synthesize",
    "extract_constraint",
    "detect_task_type",
    "deliver",
    "calculate",
    "write",
    "judge",
    "ask",
    "docstring",
    "ledger",
    "act",
    "replan",
]


class Schema(BaseModel):
    model_config = ConfigDict(extra="ignore")


# --- inputs -------------------------------------------------------------------------------------


class ToolSpec(Schema):
    """A tool as the planner sees it. `params` is the compact form (name -> type and description,
    required ones marked); `input_schema` is the full JSON schema, given only when `params` cannot
    say it all (nested objects, enums: see `needs_schema`). `read_only` false: calling it changes
    something (a file, a repository, a service), so it runs at most once across crashes."""

    name: str
    description: str
    params: dict[str, str]  # parameter name -> description
    read_only: bool = True
    destructive: bool = False  # may delete or overwrite (MCP's destructiveHint)
    input_schema: dict[str, JsonValue] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _compact(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)  # prompts stay short: defaults are left out
        if not self.input_schema:
            data.pop("input_schema", None)
        if not self.destructive:
            data.pop("destructive", None)
        return data


def needs_schema(schema: dict[str, JsonValue]) -> bool:
    """Whether a JSON schema says more than a flat list of named, typed parameters.

    >>> needs_schema({"type": "object", "properties": {"path": {"type": "string"}}})
    False
    >>> needs_schema({"type": "object", "properties": {"unit": {"enum": ["s", "ms"]}}})
    True
    """
    props = schema.get("properties")
    return isinstance(props, dict) and not all(_flat(prop) for prop in props.values())


def _flat(prop: JsonValue) -> bool:
    """A string, number, boolean (or null), or an array of them, with no enum or reference."""
    if not isinstance(prop, dict) or "enum" in prop or "$ref" in prop:
        return False
    options = prop.get("anyOf")
    if isinstance(options, list):
        return all(_flat(option) for option in options)
    items = prop.get("items", {})
    if prop.get("type") == "array":
        return isinstance(items, dict) and items.get("type") != "array" and _flat(items)
    return prop.get("type") in ("string", "integer", "number", "boolean", "null", None)


class KnownFile(Schema):
    path: str  # as the tools address it (`source:NAME/...` or a workspace path)
    size: int = 0
    read: bool = False


class DoneCall(Schema):
    """A call already made, as JSON values (a string never re-escaped), with how it went.
    `key` identifies it exactly, whatever was shortened for the prompt."""

    tool: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    outcome: str = "success"
    key: str = ""

    @staticmethod
    def key_of(signature: str) -> str:
        return content_hash(signature, 12)


class Note(Schema):
    """A finding the planner may use: an insight and where it came from."""

    source: str  # file path or call id
    text: str
    relevance: Relevance = "medium"


class Excerpt(Schema):
    """A file's own words, as read (the start of it): figures a compressed note may have lost."""

    source: str
    text: str


class PlanInput(Schema):
    goal: str
    task_type: TaskType
    iteration: int
    mode: IterationMode = "fast"
    candidates: int = 3  # how many candidate actions to propose
    tools: list[ToolSpec]
    sources: list[str] = Field(default_factory=list)  # read-only roots as tools address them: source:NAME
    files: list[KnownFile] = Field(default_factory=list)  # directories end with "/"
    notes: list[Note] = Field(default_factory=list)
    # A coding task writes code from what it read (a spec, a failing test): notes are too short.
    excerpts: list[Excerpt] = Field(default_factory=list)
    requirements: list[str] = Field(default_factory=list)  # what "done" means: the suite's requirements
    missing: list[str] = Field(default_factory=list)  # requirements not met yet (all, at first)
    done_calls: list[DoneCall] = Field(default_factory=list)
    written: list[str] = Field(default_factory=list)  # artifacts already written
    context: str = ""  # the CONTEXT block: rules, hot issues, snippets, reasoning history
    recovery: bool = False  # the loop is stuck: propose something different
    feedback: list[str] = Field(default_factory=list)  # user feedback new this iteration
    rejected: list[str] = Field(default_factory=list)  # why the last proposal could not be used
    unmet: list[str] = Field(default_factory=list)  # the last verdict's failed checks, in words
    lines: list[str] = Field(default_factory=list)  # lines of the files read that the answer needs

    @property
    def done_keys(self) -> set[str]:
        return {call.key for call in self.done_calls}


class CompressInput(Schema):
    goal: str
    tool: str
    params: dict[str, JsonValue]
    outcome: str
    output: str  # truncated raw output
    context: str = ""  # active rules and hot issues (`cairn.memory.context.relevant.rules_block`)


class CompressBatchInput(Schema):
    goal: str
    calls: list[CompressInput]  # each without its own `context`: the batch carries it once
    context: str = ""


class SynthesizeInput(Schema):
    goal: str
    iteration: int
    calls: list[str]  # one-line records of this iteration
    previous: list[str] = Field(default_factory=list)  # earlier syntheses, oldest first
    new_evidence: int = 0
    missing: list[str] = Field(default_factory=list)
    context: str = ""  # active rules and hot issues
    feedback: list[str] = Field(default_factory=list)  # user feedback this iteration took in


class DeliverInput(Schema):
    """Do the notes answer the goal yet? Asked before planning once notes exist, so a model that
    holds the answer says so in one focused reply instead of planning yet another read."""

    goal: str
    task_type: TaskType
    deliverable: str  # the file the answer goes to
    notes: list[Note]
    excerpts: list[Excerpt] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)  # requirements not met yet
    context: str = ""  # active rules and hot issues
    worked: list[str] = Field(default_factory=list)  # "expression = value", worked out by Cairn
    # After an answer the validator found wanting: that answer, what was wrong with it ("6.43 ms is
    # in no file read", "not answered: who leads it?"), and the lines of the files to answer from.
    previous: str = ""
    unmet: list[str] = Field(default_factory=list)
    lines: list[str] = Field(default_factory=list)


class CalculateInput(Schema):
    """The calculation a goal's number needs. Asked when a part of the goal asks for a number
    the draft answer does not ground: a small model names the sum it cannot do."""

    goal: str
    excerpts: list[Excerpt] = Field(default_factory=list)
    answer: str = ""  # the draft answer, whose number for that part is not in any file


class WriteInput(Schema):
    """Write the files now. Asked for a coding task when the planner has nothing new to propose:
    a small model that has read a spec keeps proposing to read it again, yet writes its files
    when asked for them alone."""

    goal: str
    excerpts: list[Excerpt] = Field(default_factory=list)  # the files read, in their own words
    notes: list[Note] = Field(default_factory=list)
    written: list[str] = Field(default_factory=list)  # files of the workspace already written
    missing: list[str] = Field(default_factory=list)  # requirements not met yet
    context: str = ""  # active rules and hot issues
    unmet: list[str] = Field(default_factory=list)  # the last verdict's failed checks, in words
    current: list[Excerpt] = Field(default_factory=list)  # the code files as written so far
    tests: str = ""  # the output of the last test run, when it failed
    wanted: list[str] = Field(default_factory=list)  # only these files, when the rest is done
    bodies: list[str] = Field(default_factory=list)  # functions just written without a body
    phrasing: int = 0  # which words ask for those bodies (`cairn.tasks.messages.prompts.body_ask`)
    # "plain": one file to complete or fix and one line of ask, no instructions to parrot
    # (`cairn.flows.steps.redraw`); `draw` n > 0 asks for the model's nth sample, not its likeliest.
    form: Literal["full", "plain"] = "full"
    draw: int = 0
    # two samples of the function return different values for one input (`cairn.tasks.probes`)
    disagreement: str = ""
    # "lines": only the lines that go after the docstring (a piece: the 1.5B's whole-file reply
    # repeated the docstring, two thirds of its tokens); "function": a piece's first draw, asked
    # as a user asks the model without Cairn (`cairn.tasks.messages.prompts.FUNCTION_ASK`)
    reply: Literal["file", "lines", "function"] = "file"


class DocstringInput(Schema):
    """The docstring of one function, asked for alone: a coding task whose code passed its tests
    but not its suite's documentation requirement (`cairn.flows.steps.docstring`)."""

    path: str  # the file that defines it
    name: str
    code: str  # the function as written, its decorators included


class ExtractConstraintInput(Schema):
    message: str


class DetectTaskTypeInput(Schema):
    goal: str


# --- outputs ------------------------------------------------------------------------------------


class Candidate(Schema):
    tool: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    rationale: str = ""
    expected_evidence: list[EvidenceType] = Field(default_factory=list)


class Plan(Schema):
    candidates: list[Candidate] = Field(min_length=1)


class CompressOutput(Schema):
    insights: str
    learning: str = ""
    relevance: Relevance = "medium"
    next_suggested_actions: str = ""


class CompressBatchOutput(Schema):
    results: list[CompressOutput]


class SynthesizeOutput(Schema):
    synthesis: str
    progress_assessment: Progress = "advancing"


class DeliverOutput(Schema):
    # One field: a small model under a schema of several (figures, arithmetic, sources, a
    # judgement) copied the schema's examples and dropped parts of a two-part question it
    # answered right as plain text. Cairn finds the sources from the answer's claims and asks
    # for arithmetic apart (`CalculateOutput`), only when a part needs a number.
    answer: str = Field(
        default="",
        description="the answer to the goal, with the names and figures exactly as the files "
        "write them; for a report or a summary, the whole report in Markdown",
    )


class CalculateOutput(Schema):
    calculation: str = Field(
        default="",
        description="the calculation that gives the number the goal asks for, written with the "
        "files' numbers and + - * / only",
    )


class FileDraft(Schema):
    path: str = Field(description="a path in the task's workspace, e.g. 'tank.py'")
    content: str = Field(description="the file's whole text")


class WriteOutput(Schema):
    files: list[FileDraft] = Field(default_factory=list)


class DocstringOutput(Schema):
    docstring: str  # its text, without quotes or indentation (`cairn.tasks.messages.docstrings`)


class ExtractConstraintOutput(Schema):
    rule: str  # one imperative sentence, or "N/A"

    @property
    def found(self) -> bool:
        return self.rule.strip().upper().rstrip(".") not in ("N/A", "NA", "")


class DetectTaskTypeOutput(Schema):
    task_type: TaskType
    rationale: str = ""


class JudgeInput(Schema):
    """A served model asked whether one line says that a value answers a question (yes or no):
    one input of the answer verifier (`cairn.tasks.verify`)."""

    question: str
    answer: str
    line: str  # the quoted line, after what it stands under


class JudgeOutput(Schema):
    p_yes: float = Field(ge=0.0, le=1.0)  # the probability the model gives its first token `yes`


class AskInput(Schema):
    """A question asked plainly, as a user would ask the model with the files pasted in: the
    model's own answer, which Cairn gives (unverified) wherever it cannot prove another."""

    question: str
    files: list[Excerpt]


class AskOutput(Schema):
    answer: str  # the reply as written


class LedgerInput(Schema):
    """One row of a coverage goal's ledger, asked of a served model: the item, one question per
    field, and every line read about the item, in reading order, each with where it stands and
    the day it was written when the lines say (a later note may change an earlier value)."""

    item: str
    questions: list[str]
    lines: list[str]  # `source:path:line (2026-03-02): headings › text`


class LedgerOutput(Schema):
    answers: list[str]  # one per question, in order: the value as the lines write it, "" when none


class ActInput(Schema):
    """An action goal and the tools it may use, nothing else: the plan is made before any tool
    output is read, so no text a tool returns can add a call to it."""

    goal: str
    tools: list[ToolSpec]


class ReplanInput(Schema):
    """An action goal whose plan did not go as planned: the goal, the tools, and what became of
    each step (`tried`: made, refused and why, failed), in Cairn's words. No tool output and no
    value read from one is shown, so no text a tool returns can add a call here either."""

    goal: str
    tools: list[ToolSpec]
    tried: list[str]


class PlannedStep(Schema):
    tool: str
    args: dict[str, JsonValue] = Field(default_factory=dict)  # values the goal itself gives
    inputs: dict[str, str] = Field(default_factory=dict)  # argument -> what to read from earlier results
    why: str = ""


class ActOutput(Schema):
    asks_for_change: bool = True  # false: the goal only asks to find something out, so only reads run
    steps: list[PlannedStep]


OUTPUTS: dict[CallKind, type[Schema]] = {
    "plan": Plan,
    "compress": CompressOutput,
    "compress_batch": CompressBatchOutput,
    "synthesize": SynthesizeOutput,
    "extract_constraint": ExtractConstraintOutput,
    "detect_task_type": DetectTaskTypeOutput,
    "deliver": DeliverOutput,
    "calculate": CalculateOutput,
    "write": WriteOutput,
    "judge": JudgeOutput,
    "ask": AskOutput,
    "docstring": DocstringOutput,
    "ledger": LedgerOutput,
    "act": ActOutput,
    "replan": ActOutput,
}
INPUTS: dict[CallKind, type[Schema]] = {
    "plan": PlanInput,
    "compress": CompressInput,
    "compress_batch": CompressBatchInput,
    "synthesize": SynthesizeInput,
    "extract_constraint": ExtractConstraintInput,
    "detect_task_type": DetectTaskTypeInput,
    "deliver": DeliverInput,
    "calculate": CalculateInput,
    "write": WriteInput,
    "judge": JudgeInput,
    "ask": AskInput,
    "docstring": DocstringInput,
    "ledger": LedgerInput,
    "act": ActInput,
    "replan": ReplanInput,
}
