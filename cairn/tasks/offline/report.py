"""The offline deliverable: an extractive answer built from the notes, every sentence cited.

>>> from cairn.tasks.messages.schemas import Note, PlanInput
>>> inp = PlanInput(goal="How big is the lake?", task_type="simple_question", iteration=3, tools=[],
...     notes=[Note(source="lake.md", text="lake.md: The lake covers 48 hectares.", relevance="high")])
>>> "The lake covers 48 hectares. [source: lake.md]" in build_report(inp)
True
"""

from __future__ import annotations

import math
import re

from cairn.tasks.grounding import split_goal
from cairn.tasks.grounding.lexicon import SCALE_WORDS
from cairn.tasks.messages.schemas import Note, PlanInput
from cairn.tasks.offline import text

MAX_SENTENCES = 8
MIN_SCORE = 0.12  # weighted share of the goal's terms below which a sentence is off-topic
SOURCE_SHARE = 0.4  # a source is cited when its best sentence scores at least this share of the best


def citable_notes(inp: PlanInput) -> list[Note]:
    """Notes about files (not listings or call ids) that are at least medium relevance."""
    files = {f.path for f in inp.files if not f.path.endswith("/")}
    roots = {".", *inp.sources}
    return [
        n
        for n in inp.notes
        if n.relevance != "low"
        and n.source not in roots
        and (n.source in files or _looks_like_file(n.source))
    ]


def _looks_like_file(source: str) -> bool:
    name = source.rsplit("/", 1)[-1]
    return "." in name.strip(".") and not source.startswith("call-")


def _asked(goal: str) -> str:
    """The goal's questions, without its standing rules ("Always cite the source of every
    figure." is how to answer, not what: its words chose off-topic sentences)."""
    questions = [part for part in split_goal(goal) if part.rstrip().endswith("?")]
    return " ".join(questions) or goal


def build_report(inp: PlanInput) -> str:
    """Markdown: a title, the cited answer sentences, and a `## Sources` section."""
    labels = {rule.split(":", 1)[0] for rule in inp.requirements}
    named = [m for m in inp.missing if m not in labels]  # "every claim supported" names no content
    query = " ".join([_asked(inp.goal), *named])
    notes = citable_notes(inp)
    chosen = _every_file(notes) if text.asks_summary(inp.goal) else _choose(query, notes)
    question = inp.task_type == "simple_question"
    head = [
        "# Answer" if question else f"# Report: {text.clip(inp.goal, 80)}",
        "",
        f"{'Question' if question else 'Goal'}: {inp.goal}",
        "",
        "## Answer" if question else "## Findings",
        "",
    ]
    if not chosen:
        body = ["No file read so far contains facts that answer this goal."]
    else:
        body = [f"- {sentence} [source: {source}]" for _, sentence, source in chosen]
        every = [(0.0, sentence, n.source) for n in notes for sentence in _sentences(n)]
        body = derived(inp.goal, chosen + every) + body  # the stock may be in a sentence not chosen
    cited = list(dict.fromkeys(source for _, _, source in chosen))
    read = sum(1 for f in inp.files if f.read)
    tail = [
        "",
        "## Sources",
        "",
        *([f"- {s}" for s in cited] or ["- none"]),
        "",
        f"Files read: {read} of {len(inp.files)} known.",
    ]
    return "\n".join(head + body + tail) + "\n"


def _choose(query: str, notes: list[Note]) -> list[tuple[float, str, str]]:
    """Sentences within half the best score: the best of each source first, most relevant first."""
    weights = _term_weights(query, notes)
    bonus = {"high": 0.05, "medium": 0.0, "low": -0.05}
    pool = sorted(
        {
            (_score(sentence, weights, query) + bonus[n.relevance], sentence, n.source)
            for n in notes
            for sentence in _sentences(n)
        },
        key=lambda item: (-item[0], item[2], item[1]),
    )
    if not pool:
        return []
    floor = max(MIN_SCORE, SOURCE_SHARE * pool[0][0])
    chosen: list[tuple[float, str, str]] = []
    for item in pool:  # first pass: one sentence per source, so every relevant file is cited
        if item[0] >= floor and item[2] not in {c[2] for c in chosen}:
            chosen.append(item)
    for item in pool:
        if item[0] >= floor and item not in chosen and item[1] not in {c[1] for c in chosen}:
            chosen.append(item)
    chosen.sort(key=lambda item: (-item[0], item[2], item[1]))
    return chosen[:MAX_SENTENCES]


def _every_file(notes: list[Note]) -> list[tuple[float, str, str]]:
    """A summary's sentences: each file's noted facts, file by file, in the order they were read."""
    latest = {n.source: n for n in notes}  # a file read twice: its latest note
    return [(1.0, sentence, n.source) for n in latest.values() for sentence in _sentences(n)][:MAX_SENTENCES]


def _sentences(note: Note) -> list[str]:
    body = note.text.removeprefix(f"{note.source}: ")
    return text.sentences(body) or [body.strip()]


def _term_weights(query: str, notes: list[Note]) -> dict[str, float]:
    # Inverse document frequency over the sources: a term every file mentions (the town's name)
    # says little about which sentence answers the question.
    seen = [
        set(text.terms(" ".join(n.text for n in notes if n.source == src)))
        for src in {n.source for n in notes}
    ]
    return {t: math.log((len(seen) + 1) / max(1, sum(t in s for s in seen))) for t in text.goal_terms(query)}


def _score(sentence: str, weights: dict[str, float], query: str) -> float:
    total = sum(weights.values()) or 1.0
    words = set(text.terms(sentence))
    score = sum(w for t, w in weights.items() if t in words) / total
    if text.asks_quantity(query) and text.has_figure(sentence):
        score *= 1.3  # "how many ..." is answered by on-topic sentences that state numbers
    return score


# --- one derived figure: "how many days does a stock last at a daily rate" ----------------------

_AMOUNT = re.compile(
    rf"(\d[\d,]*(?:\.\d+)?)\s*({'|'.join(SCALE_WORDS)})?\s*"
    r"(cubic met(?:re|er)s|m3|m³|litres|liters|gallons|megalit(?:re|er)s|tonnes|kwh)",
    re.IGNORECASE,
)
_RATE = re.compile(r"\b(?:daily|per day|a day|each day|/day|every day)\b", re.IGNORECASE)


def derived(goal: str, chosen: list[tuple[float, str, str]]) -> list[str]:
    """'About N days' from the best cited stock and daily rate in the same unit, else nothing."""
    if not re.search(r"\bhow (?:many days|long)\b", goal, re.IGNORECASE):
        return []
    # Clauses, not sentences: "holds 1,260,000 m3; the daily use was 8,400 m3" is a stock and a rate.
    clauses = [(c, src) for _, s, src in chosen for c in s.split(";")]
    stocks = [(a, c, src) for c, src in clauses if not _RATE.search(c) for a in _amounts(c)]
    rates = [(a, c, src) for c, src in clauses if _RATE.search(c) for a in _amounts(c)]
    # The stock and the rate the goal names ("the reservoir hold", "average daily consumption"),
    # not the first amounts read (a peak day's use, a plant's capacity).
    stocks.sort(key=lambda found: -text.overlap(goal, found[1]))
    rates.sort(key=lambda found: -text.overlap(goal, found[1]))
    for (stock, unit), _, stock_src in stocks:
        for (rate, rate_unit), _, rate_src in rates:
            if unit == rate_unit and rate > 0:
                cites = " ".join(f"[source: {src}]" for src in dict.fromkeys([stock_src, rate_src]))
                return [
                    f"- About {stock / rate:,.0f} days: {stock:,.0f} {unit} held / {rate:,.0f} {unit} "
                    f"used per day. {cites}"
                ]
    return []


def _amounts(sentence: str) -> list[tuple[float, str]]:
    found = []
    for number, scale, unit in _AMOUNT.findall(sentence):
        value = float(number.replace(",", "")) * SCALE_WORDS.get(scale.lower(), 1.0)
        found.append((value, _unit(unit)))
    return found


def _unit(unit: str) -> str:
    lowered = unit.lower().replace("meter", "metre").replace("liter", "litre")
    return "cubic metres" if lowered in ("m3", "m³") else lowered
