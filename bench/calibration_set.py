"""The labelled set `cairn calibrate` ships: (question, line, value, label, group) items, half true.

    python bench/calibration_set.py            # writes cairn/tasks/calibration/data/labelled.jsonl

From SQuAD 2.0's six development articles (CC BY-SA 4.0) and LoCoMo's development conversations
(CC BY-NC 4.0), nothing hand-picked: every pool below is shuffled by a generator seeded with
`--seed` and drawn from in turn across its groups (articles, conversations), so no one article
fills a pool.

- `gold` (true): an answerable question over the line that holds its gold answer, with that answer.
  SQuAD: the sentence (a unit as Cairn reads it, `Title › sentence`) holding the first annotator's
  span; LoCoMo: the single evidence turn (`Speaker: text`) of a category 1 or 4 question whose
  answer is written in it.
- `other-span` (false): the same line with another span of it as the value: another number when
  the answer holds a digit, else another capitalised name, else any of them; never a span that
  overlaps a gold answer or is written in the question.
- `plausible` (false): a SQuAD 2.0 unanswerable question over the sentence holding its
  `plausible_answers` span, with that span.
- `adversarial` (false): a LoCoMo category-5 question (its speaker swapped) over its evidence turn,
  with its `adversarial_answer`, where the turn writes the answer and shares a word of the question.

Every value is written on its line (Cairn judges only values found on a line read). Noise the
generator cannot rule out: another span of a line may also answer the question in other words.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from agent_suites import locomo, squad  # noqa: E402

from cairn.tasks.grounding.units import units_of  # noqa: E402

OUT = ROOT / "cairn" / "tasks" / "calibration" / "data" / "labelled.jsonl"
# How many items of each (source, kind): 120 true, 120 false.
QUOTAS = {
    ("squad2", "gold"): 60,
    ("squad2", "plausible"): 40,
    ("squad2", "other-span"): 20,
    ("locomo", "gold"): 60,
    ("locomo", "adversarial"): 40,
    ("locomo", "other-span"): 20,
}
LOCOMO_KINDS = (1, 4)  # multi-hop and single-hop: the answer is a span of the turn, not a date to work out
_NUMBER = re.compile(r"\b\d[\d,.]*\d\b|\b\d\b")
_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'-]*)*")
_WORD = re.compile(r"[a-z0-9]+")

Item = dict[str, Any]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    items = build(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    print(f"{len(items)} items ({sum(i['label'] for i in items)} true) -> {args.out}")


def build(seed: int) -> list[Item]:
    pools: dict[tuple[str, str], list[Item]] = {key: [] for key in QUOTAS}
    for item in [*squad_items(), *locomo_items()]:
        pools[(item["source"], item["kind"])].append(item)
    chosen: list[Item] = []
    for key, quota in QUOTAS.items():
        chosen += spread(pools[key], quota, random.Random(f"{seed}-{key[0]}-{key[1]}"))
    random.Random(seed).shuffle(chosen)
    return chosen


def spread(pool: list[Item], n: int, rng: random.Random) -> list[Item]:
    """`n` items of `pool`, shuffled, taken from each group in turn."""
    groups: dict[str, list[Item]] = {}
    for item in pool:
        groups.setdefault(item["group"], []).append(item)
    queues = [rng.sample(items, len(items)) for _, items in sorted(groups.items())]
    taken = [
        queue[rank]
        for rank in range(max(map(len, queues), default=0))
        for queue in queues
        if rank < len(queue)
    ]
    return taken[:n]


def squad_items() -> Iterator[Item]:
    for article in json.loads(squad.DEV.read_text(encoding="utf-8"))["data"]:
        title = str(article["title"]).replace("_", " ")
        for paragraph in article["paragraphs"]:
            lines = sentences(title, paragraph["context"])
            for qa in paragraph["qas"]:
                yield from _squad_qa(qa, lines, title)


def sentences(title: str, context: str) -> list[tuple[int, int, str]]:
    """(start, end, shown) of each unit Cairn reads in a paragraph under its article's title."""
    found, cursor = [], 0
    for unit in units_of(f"squad/{title}.md", f"# {title}\n\n{context}"):
        start = context.find(unit.text, cursor)
        if unit.heading or start < 0:
            continue
        found.append((start, start + len(unit.text), unit.shown))
        cursor = start + len(unit.text)
    return found


def _squad_qa(qa: dict[str, Any], lines: list[tuple[int, int, str]], title: str) -> Iterator[Item]:
    question = str(qa["question"]).strip()
    spans = qa.get("plausible_answers", []) if qa["is_impossible"] else qa["answers"]
    if not spans:
        return
    start, value = int(spans[0]["answer_start"]), str(spans[0]["text"])
    held = [shown for a, b, shown in lines if a <= start and start + len(value) <= b]
    if not held or value not in held[0]:
        return
    base = {"question": question, "line": held[0], "group": title, "source": "squad2"}
    if qa["is_impossible"]:
        yield {**base, "value": value, "label": False, "kind": "plausible"}
        return
    yield {**base, "value": value, "label": True, "kind": "gold"}
    golds = [str(a["text"]) for a in qa["answers"]]
    if (other := other_span(held[0], question, golds, random.Random(qa["id"]))) is not None:
        yield {**base, "value": other, "label": False, "kind": "other-span"}


def locomo_items() -> Iterator[Item]:
    for sample in json.loads(locomo.DEV.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        turns = {
            t["dia_id"]: f"{t['speaker']}: {t['text']}"
            for key, session in conversation.items()
            if re.fullmatch(r"session_\d+", key)
            for t in session
        }
        for n, qa in enumerate(sample["qa"]):
            yield from _locomo_qa(qa, turns, str(sample["sample_id"]), n)


def _locomo_qa(qa: dict[str, Any], turns: dict[str, str], group: str, n: int) -> Iterator[Item]:
    category, evidence = int(qa["category"]), qa.get("evidence") or []
    if len(evidence) != 1 or evidence[0] not in turns:
        return
    line, question = turns[evidence[0]], str(qa["question"]).strip()
    base = {"question": question, "line": line, "group": group, "source": "locomo"}
    if category == locomo.ADVERSARIAL:
        value = str(qa.get("adversarial_answer", ""))
        if value and _written(value, line) and _words(question) & _words(line.split(": ", 1)[1]):
            yield {**base, "value": _written(value, line), "label": False, "kind": "adversarial"}
        return
    value = str(qa.get("answer", ""))
    if category not in LOCOMO_KINDS or not (written := _written(value, line)):
        return
    yield {**base, "value": written, "label": True, "kind": "gold"}
    if (other := other_span(line, question, [value], random.Random(f"{group}-{n}"))) is not None:
        yield {**base, "value": other, "label": False, "kind": "other-span"}


def other_span(line: str, question: str, golds: list[str], rng: random.Random) -> str | None:
    """Another number or capitalised name of `line` (of the gold answer's kind where it can):
    not overlapping any gold answer, not written in the question, not the line's first word
    alone (a sentence's capital), not its speaker or title."""
    body = line.split(" › ", 1)[-1].split(": ", 1)[-1] if ": " in line or " › " in line else line
    taken = [(m.start(), m.end()) for g in golds if g for m in re.finditer(re.escape(g), body)]
    asked = _words(question)
    found: dict[str, list[str]] = {"number": [], "name": []}
    for kind, pattern in (("number", _NUMBER), ("name", _NAME)):
        for m in pattern.finditer(body):
            text = m.group().strip()
            overlaps = any(m.start() < b and a < m.end() for a, b in taken)
            near_gold = any(_norm(text) in _norm(g) or _norm(g) in _norm(text) for g in golds if g)
            opening = m.start() == 0 and " " not in text
            if text and not (overlaps or near_gold or opening or _words(text) <= asked):
                found[kind].append(text)
    numeric = any(ch.isdigit() for g in golds for ch in g)
    preferred = found["number"] if numeric else found["name"]
    choices = sorted(set(preferred or found["number"] + found["name"]))
    return rng.choice(choices) if choices else None


def _written(value: str, line: str) -> str:
    """`value` as `line` writes it (case aside), or '' where it does not."""
    value = value.strip().rstrip(".")
    at = line.lower().find(value.lower()) if value else -1
    return line[at : at + len(value)] if at >= 0 else ""


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _words(text: str) -> set[str]:
    stop = {"the", "a", "an", "of", "in", "on", "to", "and", "is", "was", "what", "did", "does", "do"}
    return set(_WORD.findall(text.lower())) - stop


if __name__ == "__main__":
    main()
