"""The first iteration of a task with sources: read them whole when they fit, else search them.

A small model given a handful of short files and a question answers it in one reply; the same
model asked to plan, read one file at a time and note what each said lost the files' words (a
table row became "6.43 ms"). So when every source file fits the answer's share of the model's
context, the first iteration reads them all, with no planning call, and their notes are the lines
that hold the goal's words (`extractive`), not a model's paraphrase: the answer is then written from
the files themselves. Sources too large to read whole are searched, once per part of the goal: for
every line holding the words each question asks of its subject (`find_lines`, so a line stating the
answer cannot be missed), and by meaning (`search_memory`, for the words the files use instead).

>>> files = [KnownFile(path="source:d/a.md", size=900), KnownFile(path="source:d/b.md", size=700)]
>>> [c.params["path"] for c in opening_calls(files, ["Who?"], budget_chars=4000)]
['source:d/a.md', 'source:d/b.md']
>>> [c.tool for c in opening_calls(files, ["Who owns it?", "What is its budget?"], budget_chars=1000)]
['find_lines', 'find_lines', 'search_memory', 'search_memory']
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.core import Compression, JsonValue, PlannedCall, displayable, main_argument
from cairn.tasks.grounding.asked import parse
from cairn.tasks.grounding.parts import is_question
from cairn.tasks.grounding.reads import spelled_tables
from cairn.tasks.messages.schemas import KnownFile
from cairn.tasks.offline import text  # extractive reading: the offline model's compressor's tools
from cairn.tasks.tools.base import ToolOutput

MAX_FILES = 16  # more files than this are searched even when small: a listing is a better start
SEARCH_HITS = 8
CHARS_PER_TOKEN = 3.5
WORDS_SHARE = 0.4  # of the model's input window, for the files' own words in the answer's prompt
MAX_WORDS_CHARS = 24_000
READ_WHY = "Opening: the sources fit the answer's context budget, so every file is read whole."
SEARCH_WHY = "Opening: the sources are too large to read whole; search them for this part of the goal."
FIND_WHY = "Opening: the sources are too large to read whole; find every line holding this question's words."


def words_budget(window_tokens: int) -> int:
    """Characters of the files' own words an answer's prompt may hold, for a model's window.

    >>> words_budget(8192), words_budget(128_000)
    (11468, 24000)
    """
    return min(MAX_WORDS_CHARS, int(window_tokens * WORDS_SHARE * CHARS_PER_TOKEN))


def opening_calls(files: Sequence[KnownFile], parts: Sequence[str], budget_chars: int) -> list[PlannedCall]:
    """Read every source file when they fit `budget_chars`, else one search per part."""
    sources = [f for f in files if f.path.startswith("source:") and not f.path.endswith("/")]
    if not sources:
        return []
    if sum(f.size for f in sources) <= budget_chars and len(sources) <= MAX_FILES:
        return [_read(f.path) for f in sources]
    roots = list(dict.fromkeys("/".join(f.path.split("/")[:1]) for f in sources))
    asked = [words for part in dict.fromkeys(parts) if is_question(part) and (words := _asked_words(part))]
    found = [_find(root, words) for words in dict.fromkeys(asked) for root in roots]
    return found + [_search(part) for part in dict.fromkeys(parts)]


def _asked_words(part: str) -> str:
    """The words a line answering `part` must hold: what it asks and the names it asks about."""
    return " ".join(sorted(parse(part).attribute))


def _find(root: str, words: str) -> PlannedCall:
    return _opening_call("find_lines", {"path": root, "words": words}, FIND_WHY)


def _read(path: str) -> PlannedCall:
    path = displayable(path)  # a name that is not UTF-8, as the tools take it
    return _opening_call("read_file", {"path": path}, READ_WHY)


def _search(part: str) -> PlannedCall:
    return _opening_call("search_memory", {"query": part, "k": SEARCH_HITS}, SEARCH_WHY)


def _opening_call(tool: str, params: dict[str, JsonValue], rationale: str) -> PlannedCall:
    """An opening call: its note is the output's own lines (`extractive`), for the answer to use."""
    return PlannedCall(
        tool=tool, params=params, rationale=rationale, expected_evidence=["synthesis"], extractive=True
    )


def extractive(goal: str, planned: PlannedCall, output: ToolOutput) -> Compression:
    """A note made of the output's own sentences (no model call): the two most like the goal, or,
    when the goal asks for a summary, the two that state figures or dates. Table rows count as
    sentences, spelled out with their columns.

    >>> out = ToolOutput(text="# SLO\\n\\n| service | ms |\\n|---|---|\\n| billing | 180 |\\n| web | 250 |")
    >>> extractive("What is the billing budget?", PlannedCall(tool="read_file"), out).insights
    'read_file: service: billing; ms: 180'
    """
    target = main_argument(planned.params) or planned.tool
    if output.outcome != "success":
        return Compression(insights=f"{planned.tool}({target}) failed: {output.error or output.text[:200]}")
    body = spelled_tables(output.text)
    if text.asks_summary(goal) and (key := text.key_sentences(body, 2)):
        return Compression(insights=f"{target}: {' '.join(key)}", relevance="high")
    best = text.best_sentences(goal, body, 2)
    if not best:
        return Compression(insights=f"{target}: {text.clip(output.text, 200)}", relevance="low")
    score = best[0][0]
    kept = [line for found, line in best if found >= min(score, text.MEDIUM) or line == best[0][1]]
    return Compression(insights=f"{target}: {' '.join(kept)}", relevance=text.relevance(score))
