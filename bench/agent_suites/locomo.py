"""LoCoMo (Maharana et al., ACL 2024; CC BY-NC 4.0): questions about a long conversation, scored by
the paper's token F1 against the gold answer; an answer at F1 >= 0.5 counts as correct.

Only the development split in `../shared/data/locomo/` is used (the other five conversations are
kept aside: tune to nothing else), questions of categories 1-4 (5, adversarial, has no answer).
Each question is a task whose one source is its whole conversation, written as a Markdown
transcript (a heading per session with its date, a `Speaker: words` line per turn). The baseline
gets the top `PASSAGES` passages Cairn's own store returns for the question, in one prompt.

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
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent_suites.common import Grade, SuiteTask
from cairn.tasks.grounding import answer_body

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
CATEGORIES = (1, 2, 3, 4)
PASSAGES = 10
CORRECT_F1 = 0.5
_DROP = re.compile(r"\b(a|an|the|and)\b")


def load(data: Path, limit: int | None, offset: int, root: Path) -> list[SuiteTask]:
    """Questions taken in turn from each conversation (the first of each, then the second...)."""
    samples = json.loads(data.read_text(encoding="utf-8"))
    queues = [[(s, q) for q in s["qa"] if q.get("category") in CATEGORIES and "answer" in q] for s in samples]
    interleaved = [pair for rank in range(max(map(len, queues), default=0)) for pair in _at(queues, rank)]
    chosen = interleaved[offset:][:limit]
    return [_task(sample, qa, _conversation_folder(sample, root)) for sample, qa in chosen]


def _at(queues: list[list[tuple[dict[str, Any], dict[str, Any]]]], rank: int) -> list[Any]:
    return [queue[rank] for queue in queues if rank < len(queue)]


def _task(sample: dict[str, Any], qa: dict[str, Any], folder: Path) -> SuiteTask:
    question = str(qa["question"]).strip()
    gold, category = str(qa["answer"]), int(qa["category"])
    index = sample["qa"].index(qa)
    return SuiteTask(
        name=f"locomo-{sample['sample_id']}-{index}",
        goal=question,
        sources=[folder],
        task_type="simple_question",
        baseline_prompt=_prompt(question, folder),
        grade=lambda text, artifacts: graded(answer_body(text), gold, category),
    )


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


def transcript(sample: dict[str, Any]) -> str:
    """The conversation as Markdown: a heading per session with its date, a line per turn."""
    conv = sample["conversation"]
    lines = [f"# Conversation between {conv['speaker_a']} and {conv['speaker_b']}"]
    sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    for n in sessions:
        lines += ["", f"## Session {n} — {conv.get(f'session_{n}_date_time', '')}".rstrip(" —"), ""]
        for turn in conv[f"session_{n}"]:
            image = f" [shares an image: {turn['blip_caption']}]" if turn.get("blip_caption") else ""
            lines.append(f"{turn['speaker']}: {turn['text']}{image}")
    return "\n".join(lines) + "\n"


def _conversation_folder(sample: dict[str, Any], root: Path) -> Path:
    folder = root / "locomo-sources" / str(sample["sample_id"])
    path = folder / f"{sample['sample_id']}.md"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(transcript(sample), encoding="utf-8")
    return folder


def _prompt(question: str, folder: Path) -> str:
    """Top passages from Cairn's own store for the question (as Cairn indexes the source)."""
    passages = top_passages(question, folder)
    return (
        "Excerpts of a conversation:\n\n"
        + "\n".join(passages)
        + f"\n\nQuestion: {question}\nAnswer briefly (a phrase or one sentence) from the excerpts."
    )


def top_passages(question: str, folder: Path, k: int = PASSAGES) -> list[str]:
    from cairn.memory.index.sources import ensure_sources, source_tenant
    from cairn.memory.store.protocol import SearchFilter, SearchQuery
    from cairn.tasks.deps import RunConfig, deps_for

    store = deps_for(RunConfig(workspace=str(folder.parent / ".baseline-store"))).store
    ensure_sources(store, {folder.name: str(folder)})
    query = SearchQuery(text=question, k=k, filter=SearchFilter(tenants=[source_tenant(folder)]))
    return [hit.memory.content for hit in store.search(query)]
