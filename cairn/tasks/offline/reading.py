"""Offline compression and synthesis: extractive readings of tool results and iterations.

`compress` keeps the 1-2 output sentences most similar to the goal (prefixed with the file they
came from), rates relevance with the thresholds of `cairn.tasks.offline.text`, and suggests the next
step. `synthesize` judges an iteration from its one-line call records: `advancing` with new
evidence or a relevant success, `regressing` with more failures than the previous iteration,
otherwise `stuck`.
"""

from __future__ import annotations

import re

from cairn.core import Progress, main_argument
from cairn.tasks.messages.schemas import (
    CompressBatchInput,
    CompressBatchOutput,
    CompressInput,
    CompressOutput,
    SynthesizeInput,
    SynthesizeOutput,
)
from cairn.tasks.offline import spec_code, text

CHECK_TOOLS = ("run_tests", "lint")
_FAILED_LINE = re.compile(r"-> (?:failure|error|timeout)\b")
_FAILED_COUNT = re.compile(r"\b(\d+) failed\b")
_SIZE = re.compile(r"\s+\(?\d[\d,.]*\s*(?:bytes|b|kb|kib|mb|mib)?\)?$", re.IGNORECASE)


def compress(inp: CompressInput) -> CompressOutput:
    target = main_argument(inp.params) or inp.tool
    if inp.outcome != "success":
        return _failure(inp, target)
    if inp.tool == "list_directory":
        return _listing(inp, target)
    if inp.tool == "write_file":
        return CompressOutput(
            insights=f"Wrote {target}: {text.clip(inp.output, 120)}",
            learning=f"{target} now exists; the validator decides whether it is complete.",
            relevance="high",
            next_suggested_actions="Validate the deliverable and address anything it still misses.",
        )
    if inp.tool in CHECK_TOOLS:
        return CompressOutput(
            insights=f"{inp.tool}({target}) passed: {text.clip(inp.output, 140)}",
            learning=f"{target} passes {inp.tool}.",
            relevance="high",
            next_suggested_actions="Move on to what the goal still needs.",
        )
    return _reading(inp, target)


def compress_batch(inp: CompressBatchInput) -> CompressBatchOutput:
    return CompressBatchOutput(results=[compress(call) for call in inp.calls])


def _failure(inp: CompressInput, target: str) -> CompressOutput:
    first = next((line.strip() for line in inp.output.splitlines() if line.strip()), inp.outcome)
    missing = re.search(r"not found|no such file|does not exist", inp.output, re.IGNORECASE)
    learning = (
        f"{target} does not exist; list its directory for valid paths."
        if missing
        else f"{inp.tool} on {target} fails ({inp.outcome}); do not repeat it unchanged."
    )
    check = inp.tool in CHECK_TOOLS
    return CompressOutput(
        insights=f"{inp.tool}({target}) {inp.outcome}: {text.clip(first, 160)}",
        learning=learning,
        relevance="high" if check else "low",
        next_suggested_actions=(
            "Fix the failing check, then run it again." if check else "Try a different path or tool."
        ),
    )


def _listing(inp: CompressInput, target: str) -> CompressOutput:
    lines = [line.strip() for line in inp.output.splitlines()]
    entries = [_SIZE.sub("", line.lstrip("-* ")) for line in lines if line and not line.startswith("[")]
    if not entries:
        return CompressOutput(
            insights=f"{target} is empty.",
            learning=f"Nothing to read in {target}.",
            relevance="low",
            next_suggested_actions="List another source.",
        )
    dirs = [e for e in entries if e.endswith("/")]
    ranked = sorted(entries, key=lambda e: (-text.similarity(inp.goal, _words(e)), e))
    best = [e for e in ranked if text.similarity(inp.goal, _words(e)) >= text.MEDIUM][:3]
    shown = ", ".join(entries[:8]) + (", ..." if len(entries) > 8 else "")
    insights = f"{target} lists {len(entries)} entries: {shown}."
    if best:
        insights += f" Likely relevant: {', '.join(best)}."
    return CompressOutput(
        insights=insights,
        learning=f"Listing {target} shows {len(entries) - len(dirs)} files and {len(dirs)} directories.",
        relevance="medium" if best else "low",
        next_suggested_actions=f"Read {', '.join(best or ranked[:2])}.",
    )


def _reading(inp: CompressInput, target: str) -> CompressOutput:
    if not inp.output.strip():
        return CompressOutput(
            insights=f"{target} is empty.",
            learning=f"{target} holds nothing (file empty).",
            relevance="low",
            next_suggested_actions="Read another file.",
        )
    if inp.tool == "read_file" and (blocks := spec_code.file_blocks(inp.output)):
        return CompressOutput(
            insights=spec_code.note(target, blocks),
            learning=f"{target} gives the code of {', '.join(blocks)}.",
            relevance="high",
            next_suggested_actions=f"Write {', '.join(blocks)} as given, then run the tests.",
        )
    if text.asks_summary(inp.goal) and (key := text.key_sentences(inp.output, 2)):
        return CompressOutput(
            insights=f"{target}: {' '.join(key)}",
            learning=f"{target} is part of what the goal asks to summarise.",
            relevance="high",
            next_suggested_actions="Summarise these facts with the other files' in the report.",
        )
    best = text.best_sentences(inp.goal, inp.output, 2)
    if not best:
        best = [(text.similarity(inp.goal, inp.output), text.clip(inp.output, 200))]
    score = best[0][0]
    kept = [s for sc, s in best if sc >= min(score, text.MEDIUM) or s == best[0][1]]
    matched = text.matched_words(inp.goal, inp.output)
    learning = (
        f"{target} holds facts about {', '.join(matched[:6])}."
        if matched
        else f"{target} does not address the goal's terms."
    )
    return CompressOutput(
        insights=f"{target}: {' '.join(kept)}",
        learning=learning,
        relevance=text.relevance(score),
        next_suggested_actions=(
            "Use these facts in the answer; read files that may hold the rest."
            if score >= text.MEDIUM
            else f"Skip {target}; read other files."
        ),
    )


def _words(entry: str) -> str:
    return re.sub(r"[/_.-]+", " ", entry)


def synthesize(inp: SynthesizeInput) -> SynthesizeOutput:
    failed = [line for line in inp.calls if _FAILED_LINE.search(line)]
    good = [line for line in inp.calls if line not in failed]
    relevant = sorted(
        (line for line in good if _informative(inp.goal, line)),
        key=lambda line: -text.similarity(inp.goal, line),
    )
    before = _failed_before(inp.previous)
    progress: Progress
    if inp.new_evidence > 0 or relevant:
        progress = "advancing"
    elif len(failed) > before:
        progress = "regressing"
    else:
        progress = "stuck"
    best = f" Best: {text.clip(relevant[0], 140)}" if relevant else ""
    missing = f" Still missing: {'; '.join(inp.missing)}." if inp.missing else ""
    summary = (
        f"Iteration {inp.iteration}: {len(inp.calls)} calls, {len(failed)} failed, "
        f"{inp.new_evidence} new evidence.{best}{missing}"
    )
    return SynthesizeOutput(synthesis=summary, progress_assessment=progress)


def _informative(goal: str, line: str) -> bool:
    """A successful call that found something: goal terms, or a listing that revealed files."""
    if re.search(r" is empty\b|\bno results\b", line):
        return False
    return text.overlap(goal, line) >= 0.3 or bool(re.search(r"\blists [1-9]\d* entries", line))


def _failed_before(previous: list[str]) -> int:
    match = _FAILED_COUNT.search(previous[-1]) if previous else None
    return int(match.group(1)) if match else 0
