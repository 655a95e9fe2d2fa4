"""LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0): questions about a long conversation, scored by
the paper's token F1 against the gold answer; an answer at F1 >= 0.5 counts as correct.

Only the development split in `../shared/data/locomo/` is used (the other five conversations are
kept aside: tune to nothing else), questions of categories 1-4 by default; category 5
(adversarial: a question about something the conversation never says, with the
`adversarial_answer` a careless reader would give) is graded by `novalue`: correct when the
answer gives no value and scores F1 below 0.5 against that answer. Each question is a task whose
one source is its whole conversation, written as a Markdown transcript (a heading per session
with its date, a `Speaker: words` line per turn). The baseline gets the top `PASSAGES` passages
Cairn's own store returns for the question, in one prompt.

The F1 follows the paper's evaluation: lowercase, commas, punctuation, articles and "and"
dropped, Porter stems compared as multisets; a multi-hop gold answer (category 1) is a
comma-separated list whose items each take their best match among the answer's items, averaged;
an open-domain gold answer (category 3) is read up to its first semicolon.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent_suites import novalue
from agent_suites.common import SAY_SO, Grade, SuiteTask
from cairn.tasks.grounding import answer_body

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
CATEGORIES = (1, 2, 3, 4)
KINDS = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ADVERSARIAL = 5
PASSAGES = 10
CORRECT_F1 = 0.5
_DROP = re.compile(r"\b(a|an|the|and)\b")
Pair = tuple[dict[str, Any], dict[str, Any]]  # a conversation and one of its questions


def load(
    data: Path, limit: int | None, offset: int, root: Path, categories: tuple[int, ...] = CATEGORIES
) -> list[SuiteTask]:
    """Questions taken in turn from each conversation (the first of each, then the second...)."""
    return [
        _task(sample, qa, conversation_folder(sample, root))
        for sample, qa in select(data, limit, offset, categories)
    ]


def select(
    data: Path, limit: int | None, offset: int, categories: tuple[int, ...] = CATEGORIES
) -> list[Pair]:
    """The questions of `categories`, the first of each conversation, then the second..., then
    `offset` and `limit` applied to that order."""
    samples = json.loads(data.read_text(encoding="utf-8"))
    queues = [[(s, q) for q in s["qa"] if _asked(q, categories)] for s in samples]
    interleaved = [pair for rank in range(max(map(len, queues), default=0)) for pair in _at(queues, rank)]
    return interleaved[offset:][:limit]


def _asked(qa: dict[str, Any], categories: tuple[int, ...]) -> bool:
    category = qa.get("category")
    return category in categories and (
        "answer" in qa or (category == ADVERSARIAL and "adversarial_answer" in qa)
    )


def _at(queues: list[list[Pair]], rank: int) -> list[Pair]:
    return [queue[rank] for queue in queues if rank < len(queue)]


def task_name(sample: dict[str, Any], qa: dict[str, Any]) -> str:
    return f"locomo-{sample['sample_id']}-{sample['qa'].index(qa)}"


def _task(sample: dict[str, Any], qa: dict[str, Any], folder: Path) -> SuiteTask:
    question, category = str(qa["question"]).strip(), int(qa["category"])
    return SuiteTask(
        name=task_name(sample, qa),
        goal=question,
        sources=[folder],
        task_type="simple_question",
        kind=KINDS.get(category),
        prompt=lambda: prompt(question, folder),
        grade=lambda text, artifacts: grade_for(qa)(answer_body(text)),
    )


def grade_for(qa: dict[str, Any]) -> Callable[[str], Grade]:
    """A question's grader: F1 against its answer; an adversarial one's, no value given."""
    category = int(qa["category"])
    if category == ADVERSARIAL:
        return lambda answer: novalue.graded(answer, lambda said: gives(said, qa))
    return lambda answer: graded(answer, str(qa["answer"]), category)


def gives(answer: str, qa: dict[str, Any]) -> bool:
    """Whether the answer gives the question's answer or its adversarial answer (F1 >= 0.5)."""
    golds = [str(qa[key]) for key in ("answer", "adversarial_answer") if key in qa]
    category = int(qa["category"])
    return any(f1(answer, gold, category) >= CORRECT_F1 for gold in golds)


def graded(answer: str, gold: str, category: int) -> Grade:
    score = f1(answer, gold, category)
    why = "ok" if score >= CORRECT_F1 else f"F1 {score:.2f} against {gold!r}"
    return Grade(correct=score >= CORRECT_F1, score=round(score, 3), why=why)


def f1(answer: str, gold: str, category: int) -> float:
    """The paper's token F1 (see the module docstring).

    >>> round(f1("Caroline researched adoption agencies.", "Adoption agencies", 4), 2)
    0.67
    >>> round(f1("Psychology, counseling", "Psychology, counseling certification", 1), 2)
    0.83
    """
    if category == 3:
        gold = gold.split(";")[0]
    if category != 1:
        return _f1(answer, gold)
    answers = [a for a in answer.split(",") if a.strip()] or [answer]
    items = [g for g in gold.split(",") if g.strip()]
    return sum(max(_f1(a, g) for a in answers) for g in items) / len(items) if items else 0.0


def _f1(answer: str, gold: str) -> float:
    said, wanted = Counter(_tokens(answer)), Counter(_tokens(gold))
    common = sum((said & wanted).values())
    if not common:
        return 0.0
    precision, recall = common / sum(said.values()), common / sum(wanted.values())
    return 2 * precision * recall / (precision + recall)


def _tokens(text: str) -> list[str]:
    lowered = text.lower().replace(",", "")
    bare = "".join(ch for ch in lowered if ch not in string.punctuation)
    return [_stemmer().stem(word) for word in _DROP.sub(" ", bare).split()]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem import PorterStemmer

    return PorterStemmer()


def transcript(sample: dict[str, Any], without: frozenset[str] = frozenset()) -> str:
    """The conversation as Markdown: a heading per session with its date, a line per turn (the
    turns whose dia_id is in `without` left out)."""
    conv = sample["conversation"]
    lines = [f"# Conversation between {conv['speaker_a']} and {conv['speaker_b']}"]
    sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    for n in sessions:
        lines += ["", f"## Session {n} — {conv.get(f'session_{n}_date_time', '')}".rstrip(" —"), ""]
        for turn in conv[f"session_{n}"]:
            if turn.get("dia_id") in without:
                continue
            image = f" [shares an image: {turn['blip_caption']}]" if turn.get("blip_caption") else ""
            lines.append(f"{turn['speaker']}: {turn['text']}{image}")
    return "\n".join(lines) + "\n"


def conversation_folder(sample: dict[str, Any], root: Path) -> Path:
    folder = root / "locomo-sources" / str(sample["sample_id"])
    path = folder / f"{sample['sample_id']}.md"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(transcript(sample), encoding="utf-8")
    return folder


def prompt(question: str, folder: Path) -> str:
    """Top passages from Cairn's own store for the question (as Cairn indexes the source)."""
    passages = top_passages(question, folder)
    return (
        "Excerpts of a conversation:\n\n"
        + "\n".join(passages)
        + f"\n\nQuestion: {question}\nAnswer briefly (a phrase or one sentence) from the excerpts. {SAY_SO}"
    )


def top_passages(question: str, folder: Path, k: int = PASSAGES) -> list[str]:
    from cairn.core import RunConfig
    from cairn.memory.index.sources import ensure_sources, source_tenant
    from cairn.memory.store.protocol import SearchFilter, SearchQuery
    from cairn.tasks.deps import deps_for

    store = deps_for(RunConfig(workspace=str(folder.parent / ".baseline-store"))).store
    ensure_sources(store, {folder.name: str(folder)})
    query = SearchQuery(text=question, k=k, filter=SearchFilter(tenants=[source_tenant(folder)]))
    return [hit.memory.content for hit in store.search(query)]
