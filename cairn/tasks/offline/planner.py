"""Offline planning: explore the sources, read what looks relevant, then write a cited answer.

The policy, per iteration (every proposal already in `done_calls` is dropped):

1. nothing known yet -> `list_directory` each root ("." and `PlanInput.sources`), and any
   directory (a known path ending in "/") not listed yet;
2. read the unread files most similar to the goal (path plus any note about the file);
3. write the deliverable (`report.md`, or `answer.md` for a simple question) once the notes cover
   the goal's terms from at least two files, or nothing is left to read; rewrite it when the
   validator's `missing` list names something, folding those words into the sentence choice;
4. in `recovery` mode, or when everything above is done, search memory for the goal and for each
   missing item.
"""

from __future__ import annotations

from cairn.core import EvidenceType, JsonValue, PlannedCall
from cairn.tasks.messages.schemas import Candidate, DoneCall, KnownFile, Plan, PlanInput, ToolSpec
from cairn.tasks.offline import spec_code, text
from cairn.tasks.offline.report import build_report, citable_notes
from cairn.tasks.tools.base import deliverable_file

COVERED = 0.75  # share of the goal's terms the notes must contain before writing
MAX_READS = 12  # after this many files read, write with what is known
_LIST, _READ, _WRITE, _SEARCH = "list_directory", "read_file", "write_file", "search_memory"


def plan(inp: PlanInput) -> Plan:
    """Up to `inp.candidates` fresh candidates, best first (never empty)."""
    done = inp.done_keys
    proposals = _recovery(inp) + _proposals(inp) if inp.recovery else _proposals(inp)
    available = {t.name for t in inp.tools}
    fresh = _fresh(proposals, done, available) or _fresh(_recovery(inp), done, available)
    if not fresh:  # everything was tried: one last memory search, else the loop policy decides
        last = _call(
            inp,
            _SEARCH,
            f"{inp.goal} (iteration {inp.iteration})",
            "Every planned call was tried; search memory once more with a fresh query.",
            [],
        )
        fresh = [last if not available or last.tool in available else proposals[0]]
    return Plan(candidates=fresh[: max(1, inp.candidates)])


def _fresh(proposals: list[Candidate], done: set[str], available: set[str]) -> list[Candidate]:
    """Proposals with an available tool, not done before, without duplicates, in order."""
    fresh: dict[str, Candidate] = {}
    for cand in proposals:
        if not available or cand.tool in available:
            fresh.setdefault(done_key(cand), cand)
    return [cand for key, cand in fresh.items() if key not in done]


def done_key(cand: Candidate) -> str:
    """The key the loop gives the same call in `done_calls` (of `PlannedCall.signature`)."""
    return DoneCall.key_of(PlannedCall(tool=cand.tool, params=cand.params).signature)


def _proposals(inp: PlanInput) -> list[Candidate]:
    if code := _coding(inp):
        return code
    listings = _listings(inp)
    files = [f for f in inp.files if not f.path.endswith("/") and f.path not in inp.written]
    if not files:
        return listings or [_write(inp)]
    reads = _reads(inp, files)
    if _ready(inp, reads):
        # Not "." beside the write: a batch's calls run at once, and a listing of the workspace
        # raced the file being written (a resumed run listed it, its reference had not).
        sources = [c for c in listings if c.params.get("path") != "."]
        return [_write(inp), *reads, *sources]
    return [*reads, *listings, _write(inp)] if citable_notes(inp) else [*reads, *listings]


def _coding(inp: PlanInput) -> list[Candidate]:
    """For a coding task whose notes spell out files: write each, then run the tests."""
    if inp.task_type != "coding_task":
        return []
    spelled = {name: code for n in inp.notes for name, code in spec_code.file_blocks(n.text).items()}
    writes = [
        _tool(
            inp,
            _WRITE,
            {"path": name, "content": code},
            f"The spec gives {name}; write it as given.",
            ["file_creation", "code_implementation"],
        )
        for name, code in spelled.items()
        if name not in inp.written
    ]
    if writes:
        return writes
    if any(spec_code.is_test(path) for path in inp.written):
        return [_call(inp, "run_tests", ".", "Run the tests after the last change.", ["execution"])]
    return []


def _listings(inp: PlanInput) -> list[Candidate]:
    roots = [".", *inp.sources, *(f.path for f in inp.files if f.path.endswith("/"))]
    return [
        _call(inp, _LIST, root, f"List {root} to learn which files exist before reading any.", ["execution"])
        for root in dict.fromkeys(roots)
    ]


def _reads(inp: PlanInput, files: list[KnownFile]) -> list[Candidate]:
    unread = [f for f in files if not f.read]
    scored = sorted(unread, key=lambda f: (-_file_score(inp, f), f.path))
    return [
        _call(
            inp,
            _READ,
            f.path,
            f"{f.path} looks relevant to the goal (score {_file_score(inp, f):.2f}); "
            "read it for facts to cite.",
            ["execution"],
        )
        for f in scored
    ]


def _file_score(inp: PlanInput, file: KnownFile) -> float:
    about = " ".join(
        [file.path.replace("/", " ").replace("-", " ").replace("_", " ")]
        + [n.text for n in inp.notes if file.path in n.text]
    )
    return text.similarity(inp.goal, about)


def _ready(inp: PlanInput, reads: list[Candidate]) -> bool:
    notes = citable_notes(inp)
    two_sources = len({n.source for n in notes}) >= 2
    if not reads or sum(1 for f in inp.files if f.read) >= MAX_READS:
        return True
    if inp.missing and deliverable_file(inp.task_type) in inp.written:
        return two_sources  # revise the written deliverable with what the validator misses
    return two_sources and text.coverage(inp.goal, (n.text for n in notes)) >= COVERED


def _write(inp: PlanInput) -> Candidate:
    path = deliverable_file(inp.task_type)
    content = build_report(inp)
    why = (
        f"Rewrite {path} to address: {'; '.join(inp.missing)}."
        if inp.missing and path in inp.written
        else f"The notes cover the goal; write {path} citing the files the facts come from."
    )
    return _tool(
        inp, _WRITE, {"path": path, "content": content}, why, ["file_creation", "synthesis", "documentation"]
    )


def _recovery(inp: PlanInput) -> list[Candidate]:
    queries = [inp.goal, *inp.missing, " ".join(sorted(text.goal_terms(inp.goal)))]
    return [
        _call(inp, _SEARCH, q, "Search memory for what earlier iterations found on this.", [])
        for q in dict.fromkeys(q for q in queries if q.strip())
    ]


def _call(inp: PlanInput, kind: str, arg: str, rationale: str, evidence: list[EvidenceType]) -> Candidate:
    spec = _spec(inp.tools, kind)
    name = next(iter(spec.params), "path") if spec else ("query" if kind == _SEARCH else "path")
    return _tool(inp, kind, {name: arg}, rationale, evidence)


def _tool(
    inp: PlanInput, kind: str, params: dict[str, JsonValue], rationale: str, evidence: list[EvidenceType]
) -> Candidate:
    spec = _spec(inp.tools, kind)
    if spec and kind == _WRITE and set(params) - set(spec.params):
        # The loop's write tool names its parameters differently: map ours onto its, in order.
        params = dict(zip(spec.params, params.values(), strict=False))
    return Candidate(
        tool=spec.name if spec else kind, params=params, rationale=rationale, expected_evidence=evidence
    )


def _spec(tools: list[ToolSpec], kind: str) -> ToolSpec | None:
    verb = kind.split("_")[0]
    return next((t for t in tools if t.name == kind), None) or next(
        (t for t in tools if verb in t.name), None
    )
