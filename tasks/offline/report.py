"""The offline deliverable: an extractive answer built from the notes, every sentence cited.

>>> from tasks.schemas import Note, PlanInput
>>> inp = PlanInput(goal="How big is the lake?", task_type="simple_question", iteration=3, tools=[],
...                 notes=[Note(source="lake.md", text="lake.md: The lake covers 48 hectares.", relevance="high")])
>>> "The lake covers 48 hectares. [source: lake.md]" in build_report(inp)
True
"""

from __future__ import annotations

from tasks.offline import text
from tasks.schemas import Note, PlanInput

MAX_SENTENCES = 8
MIN_SCORE = 0.12  # below this a sentence is off-topic, unless it is its source's best


def citable_notes(inp: PlanInput) -> list[Note]:
    """Notes about files (not listings or call ids) that are at least medium relevance."""
    files = {f.path for f in inp.files if not f.path.endswith("/")}
    roots = {".", *inp.sources}
    return [
        n for n in inp.notes
        if n.relevance != "low" and n.source not in roots and (n.source in files or _looks_like_file(n.source))
    ]


def _looks_like_file(source: str) -> bool:
    name = source.rsplit("/", 1)[-1]
    return "." in name.strip(".") and not source.startswith("call-")


def build_report(inp: PlanInput) -> str:
    """Markdown: a title, the cited answer sentences, and a `## Sources` section."""
    query = " ".join([inp.goal, *inp.missing]) if inp.missing else inp.goal
    chosen = _choose(query, citable_notes(inp))
    question = inp.task_type == "simple_question"
    head = ["# Answer" if question else f"# Report: {text.clip(inp.goal, 80)}", "",
            f"{'Question' if question else 'Goal'}: {inp.goal}", "", "## Answer" if question else "## Findings", ""]
    if not chosen:
        body = ["No file read so far contains facts that answer this goal."]
    else:
        body = [f"- {sentence} [source: {source}]" for _, sentence, source in chosen]
    cited = list(dict.fromkeys(source for _, _, source in chosen))
    read = sum(1 for f in inp.files if f.read)
    tail = ["", "## Sources", "", *([f"- {s}" for s in cited] or ["- none"]), "",
            f"Files read: {read} of {len(inp.files)} known."]
    return "\n".join(head + body + tail) + "\n"


def _choose(query: str, notes: list[Note]) -> list[tuple[float, str, str]]:
    """The best sentence of each source, then the next best overall, most relevant first."""
    bonus = {"high": 0.1, "medium": 0.0, "low": -0.1}
    pool: list[tuple[float, str, str]] = []
    for note in notes:
        body = note.text.removeprefix(f"{note.source}: ")
        for sentence in text.sentences(body) or [body.strip()]:
            pool.append((text.similarity(query, sentence) + bonus[note.relevance], sentence, note.source))
    pool.sort(key=lambda item: (-item[0], item[2], item[1]))
    chosen: list[tuple[float, str, str]] = []
    for item in pool:  # first pass: one sentence per source, so every relevant file is cited
        if item[2] not in {c[2] for c in chosen}:
            chosen.append(item)
    for item in pool:
        if len(chosen) >= MAX_SENTENCES:
            break
        if item not in chosen and item[0] >= MIN_SCORE and item[1] not in {c[1] for c in chosen}:
            chosen.append(item)
    chosen.sort(key=lambda item: (-item[0], item[2], item[1]))
    return chosen[:MAX_SENTENCES]
