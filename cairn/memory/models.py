"""The data Cairn keeps: frozen pydantic models for tasks, calls, evidence, files and memories.

Everything here is plain data. Transitions live in `cairn.memory.log.state` (a fold over events) and
storage in `cairn.memory.log.workspace` / `cairn.memory.store.protocol`.

>>> Evidence(type="synthesis", content="Answer written", source="call-1-0").confidence
1.0
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cairn.memory.fsnames import displayable

TaskType = Literal["simple_question", "coding_task", "research_task", "general_task"]
TASK_TYPES: tuple[TaskType, ...] = ("simple_question", "coding_task", "research_task", "general_task")
EvidenceType = Literal[
    "file_creation", "code_implementation", "documentation", "synthesis", "execution", "validation"
]
Relevance = Literal["high", "medium", "low"]
Outcome = Literal["success", "failure", "timeout", "error"]
Progress = Literal["advancing", "stuck", "regressing"]
IterationMode = Literal["fast", "deep"]
FileType = Literal["code", "documentation", "data", "config", "output"]
MemoryKind = Literal[
    "evidence", "constraint", "hot_issue", "document_chunk", "fact", "preference", "insight", "iteration"
]
MemoryLevel = Literal["working", "episodic", "semantic", "procedural"]
# `incomplete`: the loop stopped a task whose checks were not met (its best answer is kept, marked
# unverified); `stopped`: what tasks that ended so before 0.3 recorded.
TaskStatus = Literal["running", "complete", "incomplete", "stopped", "failed"]
ClaimKind = Literal["figure", "date", "name", "quote", "phrase"]
ClaimStatus = Literal["supported", "computed", "unsupported"]

# A tool argument or a metadata value: JSON scalars and lists of them.
JsonScalar = str | int | float | bool | None
JsonValue = JsonScalar | list[Any] | dict[str, Any]


def now() -> float:
    """Seconds since the epoch; one place so tests can reason about time."""
    return time.time()


def content_hash(text: str, length: int = 16) -> str:
    """Stable short hash of content (sha256 hex prefix)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def __setstate__(self, state: dict[Any, Any]) -> None:
        """Unpickle a result persisted by an older Cairn: fields added since then take their
        defaults (pydantic restores `__dict__` as pickled, so a new field would be missing)."""
        super().__setstate__(state)
        for name, field in type(self).model_fields.items():
            if name not in self.__dict__ and not field.is_required():
                self.__dict__[name] = field.get_default(call_default_factory=True)


class CallCost(Frozen):
    """What one call cost: model tokens, money and wall time."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0
    seconds: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: CallCost) -> CallCost:
        return CallCost(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            usd=self.usd + other.usd,
            seconds=self.seconds + other.seconds,
        )


class ModelCall(Frozen):
    """One model call of any kind (plan, compress, synthesize, detect, extract): what it was for,
    whether it worked, why not, and what it cost. Every one is in the task's history."""

    key: str  # task_id/iteration/index/kind: one record per call, however often a run resumes
    kind: str
    model: str
    iteration: int = 0
    ok: bool = True
    error: str | None = None
    attempts: int = 1
    cost: CallCost = CallCost()


class ModelProbe(Frozen):
    """What the model preflight learnt of the model's server before a run: the reply format it
    takes (how Cairn asks for JSON), why, and how fast it answered (which scales the timeouts)."""

    model: str
    response_format: Literal["json_schema", "json_object", "none"]
    reason: str  # one line: litellm knew it, or what the tried strict schema met
    tokens_per_s: float | None = None  # the probe reply's tokens over its wall time; None: unknown
    seconds: float = 0.0


class Compression(Frozen):
    """The model's reading of one tool result (docs/design.md, "Reflection and context")."""

    insights: str = ""
    learning: str = ""
    relevance: Relevance = "medium"
    next_suggested_actions: str = ""


class PlannedCall(Frozen):
    """One candidate action of the BFS frontier."""

    tool: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    rationale: str = ""
    expected_evidence: list[EvidenceType] = Field(default_factory=list)
    score: float = 0.0
    # Its whole output goes to the answer in its own words: its note is the lines that hold the
    # goal's words, with no model call (`cairn.tasks.opening.extractive`).
    extractive: bool = False

    @property
    def signature(self) -> str:
        """Identity of a call for duplicate detection: tool plus canonical params."""
        import json

        return f"{self.tool}:{json.dumps(self.params, sort_keys=True, default=str)}"


class CheckOutcome(Frozen):
    """One named check inside a tool result (a test id, a linted file): the unit of a hot issue."""

    check_id: str
    passed: bool
    detail: str = ""


class ToolCall(Frozen):
    """One executed tool call with its raw (truncated) output and its compression."""

    call_id: str
    iteration: int
    index: int
    tool: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    raw_output: str = ""
    output_path: str | None = None  # full output kept as a workspace file when truncated
    outcome: Outcome = "success"
    execution_time: float = 0.0
    cost: CallCost = CallCost()
    compression_cost: CallCost = CallCost()
    tool_selection_rationale: str = ""
    insights: str = ""
    learning: str = ""
    relevance: Relevance = "medium"
    next_suggested_actions: str = ""
    error: str | None = None
    checks: list[CheckOutcome] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)  # files this call listed, read or wrote
    timestamp: float = Field(default_factory=now)
    exercised: list[str] = Field(default_factory=list)  # workspace functions a test run called

    def one_line(self) -> str:
        """The compressed, prompt-sized line of this call (layer 2)."""
        arg = main_argument(self.params)
        head = f"{self.tool}({arg})" if arg else self.tool
        text = self.insights or self.error or self.raw_output[:120].replace("\n", " ")
        learned = f"; learned: {self.learning}" if self.learning else ""
        return f"{head} -> {self.outcome}: {text}{learned}"


def main_argument(params: dict[str, JsonValue]) -> str:
    """The argument that names a call best (a path, a query, a command)."""
    for name in ("path", "query", "target", "command", "code", "question"):
        value = params.get(name)
        if isinstance(value, str) and value:
            return value if len(value) <= 60 else value[:57] + "..."
    return ""


class IterationRecord(Frozen):
    """Layer 1: the full record of one BFS iteration."""

    iteration: int
    mode: IterationMode = "fast"
    tool_calls: list[ToolCall] = Field(default_factory=list)
    synthesis: str = ""
    progress_assessment: Progress = "advancing"
    user_feedback: str = ""
    timestamp: float = Field(default_factory=now)


class FileMetadata(Frozen):
    language: str | None = None
    functions: list[str] = Field(default_factory=list)
    classes: list[str] = Field(default_factory=list)
    imports: list[str] = Field(default_factory=list)
    purpose: str | None = None
    documentation: str | None = None


class FileReference(Frozen):
    """A file the agent wrote, in the task's file registry."""

    file_id: str
    path: str  # relative to the task's artifacts/
    file_type: FileType
    size: int
    checksum: str
    created_by: str  # call id
    created_at: float = Field(default_factory=now)
    modified_at: float = Field(default_factory=now)
    metadata: FileMetadata = FileMetadata()


class ParameterDoc(Frozen):
    name: str
    annotation: str = ""
    default: str | None = None


class FunctionDoc(Frozen):
    name: str
    parameters: list[ParameterDoc] = Field(default_factory=list)
    return_type: str = ""
    description: str = ""
    complexity: int = 1
    line_start: int = 0
    line_end: int = 0


class ClassDoc(Frozen):
    name: str
    methods: list[FunctionDoc] = Field(default_factory=list)
    bases: list[str] = Field(default_factory=list)
    description: str = ""
    line_start: int = 0
    line_end: int = 0


class CodeReference(Frozen):
    """Code documentation extracted from a code file."""

    code_id: str
    file_id: str
    language: str
    functions: list[FunctionDoc] = Field(default_factory=list)
    classes: list[ClassDoc] = Field(default_factory=list)
    imports: list[str] = Field(default_factory=list)
    documentation: str = ""
    complexity: int = 1


class EvidenceMetadata(Frozen):
    file_path: str | None = None
    file_type: FileType | None = None
    language: str | None = None
    size: int | None = None
    function_count: int | None = None
    documented_share: float | None = None  # share of public functions with docstrings
    cites: list[str] = Field(default_factory=list)  # sources a document cites
    tool: str | None = None
    passed: int | None = None
    failed: int | None = None


class Evidence(Frozen):
    """A fact about progress, with its confidence and where it came from."""

    evidence_id: str = ""
    type: EvidenceType
    content: str
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str  # call id or validation id
    iteration: int = 0
    timestamp: float = Field(default_factory=now)
    metadata: EvidenceMetadata = EvidenceMetadata()

    def model_post_init(self, __context: Any) -> None:
        if not self.evidence_id:
            ident = content_hash(f"{self.type}|{self.source}|{self.content}", 12)
            object.__setattr__(self, "evidence_id", f"ev-{ident}")


class Claim(Frozen):
    """A fact the deliverable states (a figure, a date, a name, a quoted value, or the words of a
    short answer), and whether what the task read states it too.

    `computed`: not stated anywhere, but the result of Cairn's arithmetic over stated figures.
    `where`: the file (or tool output) that states it, or the arithmetic that gives it.
    """

    text: str
    kind: ClaimKind
    status: ClaimStatus
    where: str = ""
    line: str = ""  # the line of `where` that states it (with its heading or table column)
    clause: str = ""  # the part of the answer's sentence it sits in

    @property
    def supported(self) -> bool:
        return self.status != "unsupported"

    def reason(self) -> str:
        """One line for the verdict: where it comes from, or that nothing read states it."""
        if self.status == "unsupported":
            return f"{self.text} is in no file read"
        return f"{self.text}: {self.where}"


class QuotedLine(Frozen):
    """A line the task read, quoted as proof: where it is and what it says (with the headings or
    label it stands under)."""

    source: str  # the file as the tools name it (`source:docs/teams.md`), or the call that returned it
    line: int  # 1-based
    text: str
    context: str = ""

    def shown(self) -> str:
        """`source:docs/slo.md:7 › | billing | 180 | 99.95% |` (headings before the line)."""
        where = f"{self.source}:{self.line}"
        return f"{where} {self.context} › {self.text}" if self.context else f"{where} {self.text}"


class PartCheck(Frozen):
    """One part of the goal (a question it asks, a thing it asks for), and its proof: the value the
    answer gives and the lines read that state it, or why it is not proven.

    `not_stated`: every source was read (or searched for the part's words) and no line states it.
    """

    part: str
    answered: bool
    clause: str = ""
    why: str = ""  # what is missing when it is not answered
    value: str = ""  # the answer to this part, as the quoted lines write it
    quotes: list[QuotedLine] = Field(default_factory=list)
    not_stated: bool = False


class LedgerCell(Frozen):
    """One field of one item of a coverage goal: the value its source states, quoted; or that the
    sources read do not give it (`missing`), or several values none of which is the latest."""

    value: str = ""
    quotes: list[QuotedLine] = Field(default_factory=list)
    status: Literal["quoted", "not_given", "conflict", "open"] = "open"
    note: str = ""  # why (`corrects 180 ms`, `two values: ...`)


class LedgerRow(Frozen):
    """One item a coverage goal ranges over (`for every service ...`) and its fields, in the goal's
    order."""

    item: str
    source: str = ""  # where it was first found (`source:corpus/svc-001.md:3`)
    cells: list[LedgerCell] = Field(default_factory=list)

    @property
    def done(self) -> bool:
        """Every field quoted, or stated as not given by the sources read."""
        return bool(self.cells) and all(c.status in ("quoted", "not_given") for c in self.cells)


class Coverage(Frozen):
    """How far a task got through what its goal ranges over."""

    sources: int = 0  # source files the task can read
    read: int = 0  # of them, read whole (or searched for every question's words)
    kind: str = ""  # what a coverage goal ranges over (`service`), "" for other goals
    fields: list[str] = Field(default_factory=list)
    items: int = 0
    done: int = 0  # items with every field quoted or not given

    def line(self) -> str:
        """`97 of 240 sources read; 95 services, 93 with owner and budget quoted`."""
        head = f"{self.read} of {self.sources} sources read"
        if not self.kind:
            return head
        asked = " and ".join(self.fields)
        return f"{head}; {self.items} {self.kind} items found, {self.done} with {asked} quoted or not given"

    @property
    def complete(self) -> bool:
        return self.read >= self.sources and (not self.kind or self.done == self.items)


class FunctionCheck(Frozen):
    """A function the goal names, and the passing test run that called it (a coding task)."""

    name: str
    defined: bool = False  # a file the task wrote defines it
    exercised: bool = False  # the last test run after the last code change passed and called it
    test_run: str = ""  # that run's call id


class Verdict(Frozen):
    """The validator's judgement of a task's evidence against its suite.

    `unmet` names each check that failed in words a person can act on ("6.43 ms is in no file
    read"); the next plan sees them. `confidence` comes from the checks, not from row counts.
    """

    complete: bool
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str
    satisfied: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    suite: str = ""
    validation_id: str = ""
    iteration: int = 0
    unmet: list[str] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    parts: list[PartCheck] = Field(default_factory=list)
    functions: list[FunctionCheck] = Field(default_factory=list)
    deliverable: str = ""  # the file judged (relative to the artifacts), and its text then
    answer: str = ""


class Memory(Frozen):
    """A searchable record of the memory index (layer 2).

    `key` is hierarchical, `{domain}:{task_type}:{sha256(content)[:16]}` (see `memory_key`), so the
    same content in the same domain and task type is one memory; `agents` records who stored it.
    `tenant` is the task id, or `shared` for cross-task learning. `context` is text around the
    record that helps find it without being it (a dialog turn's neighbouring turns): keyword search
    weighs its words below `content`'s (`cairn.memory.store.fusion.CONTEXT_WEIGHT`), and it is never embedded.
    """

    key: str
    kind: MemoryKind
    content: str
    tenant: str
    domain: str = "general"
    task_type: str = "general"
    subtype: str | None = None  # evidence type for kind="evidence"
    level: MemoryLevel = "episodic"
    active: bool = True
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: str | None = None
    file_path: str | None = None
    thread_id: str | None = None
    agents: list[str] = Field(default_factory=list)
    access_count: int = 0
    created_at: float = Field(default_factory=now)
    updated_at: float = Field(default_factory=now)
    expires_at: float | None = None
    context: str | None = None

    @field_validator("key", "content", "source", "file_path", "context")
    @classmethod
    def _valid_unicode(cls, value: str | None) -> str | None:
        # A name that is not UTF-8 (lone surrogates) as `\xNN`: stores hold valid Unicode only.
        return displayable(value) if value else value


def memory_key(content: str, domain: str | None = None, task_type: str | None = None) -> str:
    """Hierarchical memory key: domain, task type, content hash (docs/design.md, "Memory intelligence").

    >>> memory_key("use pyproject.toml", "python", "coding_task")
    'python:coding_task:beab83d39b88a5c9'
    """
    return f"{_key_part(domain)}:{_key_part(task_type)}:{content_hash(content)}"


def _key_part(part: str | None) -> str:
    cleaned = (part or "general").strip().lower().replace(":", "_")
    return cleaned or "general"
