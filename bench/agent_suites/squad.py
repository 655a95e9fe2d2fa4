"""SQuAD 2.0 (Rajpurkar, Jia, Liang, ACL 2018; CC BY-SA 4.0): crowd-written questions about a
Wikipedia paragraph, half of them unanswerable by design, graded as the dataset's own script does.

Only the six development articles in `../shared/data/squad2/` are used (the set's other articles
are kept aside). Each question is a task over a folder of five paragraphs of its article, one file
each (`paragraph-01.md` ... `paragraph-05.md`): its own paragraph and four others, chosen and
shuffled by a generator seeded with `--seed` and the question's id, so the answer is not always in
the first file. Two suites:

- `squad`: every question; the answerable and the unanswerable each shuffled (seeded), then taken
  in turn (answerable, unanswerable, ...), so any even `--limit` is half unanswerable;
- `squad-removed`: the answerable ones only, in the same order, each over five OTHER paragraphs of
  its article (its own left out): right only when no answer is given, as an unanswerable one.

Grading (re-implemented from the dataset's description, no code copied): lower-case, drop
punctuation and the articles a/an/the, collapse spaces; an answer is right when it matches a gold
answer exactly or reaches token F1 >= 0.5 against one; the score is the best F1. A question with no
gold answer is right only when no answer is given (score 1 or 0).

Cairn's deliverable is read by `said` (what it states: a proven value, an unverified one, that the
files do not say, nothing); the baseline's one reply by `said_plainly`. `answer_offline` is the
`--fast` path: Cairn's offline answer and its check, without a whole `cairn run`; `fold_weights`
points Cairn at verifier weights fitted without the task's article, where such a file exists.

>>> normalise("The  Normans, of course!")
'normans of course'
>>> right("in the 10th and 11th centuries", ["10th and 11th centuries"])
True
"""

from __future__ import annotations

import json
import os
import random
import re
import string
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agent_suites.common import Grade, Stated, SuiteTask
from agent_suites.novalue import says_not_stated
from cairn.tasks.messages.prompts import ask_text

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT.parent / "shared" / "data" / "squad2" / "squad2-dev-articles.json"
FOLDS = ROOT / "bench" / "verifier" / "folds"  # <article slug>.json: weights fitted without it
VERIFIER = "CAIRN_VERIFIER"  # the variable Cairn reads its verifier's weights from
FILES = 5  # paragraphs per question's folder
CORRECT_F1 = 0.5
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
# What Cairn writes when it finds no answer: "The files read do not say." (older: "...: <q>?").
_NOT_SAID = re.compile(r"^the files read do not say\b", re.I)
_UNVERIFIED = re.compile(r"^unverified\s*:\s*", re.I)
_SEVERAL = re.compile(r"^the lines read give several answers\s*:\s*", re.I)
# A citation Cairn puts after a value: "(source:x/paragraph-02.md:1)", "(x/paragraph-02.md:1-2)".
_CITATION = re.compile(r"\s*\((?:source:[^()]*|[^()\s]+\.\w+:\d+[^()]*)\)")
_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_MARKUP = "\"'“”‘’`*_ "


@dataclass(frozen=True)
class Question:
    """One question of the data, with its article's paragraphs and which of them is its own."""

    qid: str
    text: str
    title: str
    paragraphs: tuple[str, ...]
    own: int  # the index of the paragraph it was written about
    answers: tuple[str, ...]  # the gold answer texts, each once; none for an unanswerable one

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


class Said(BaseModel):
    """What an answer states: `stated` (proven, unverified, not_stated, none) and the value given."""

    stated: Stated
    value: str = ""


# --- the suite: questions, their order, their folders ---


def load(
    data: Path, limit: int | None, offset: int, root: Path, seed: int = 0, removed: bool = False
) -> list[SuiteTask]:
    """The suite's tasks in its order (`offset` and `limit` applied), their folders written."""
    chosen = ordered(questions(data), seed)
    if removed:
        chosen = [q for q in chosen if q.answerable]
    names = [task_name(q, removed) for q in chosen]
    if len(set(names)) < len(names):  # a name is a folder: two questions must not share one
        raise ValueError(f"{data}: question ids that share their first 10 characters")
    return [task(q, root, seed, removed) for q in chosen[offset:][:limit]]


def questions(data: Path) -> list[Question]:
    """Every question of the file, in the file's order."""
    found: list[Question] = []
    for article in json.loads(data.read_text(encoding="utf-8"))["data"]:
        paragraphs = tuple(str(p["context"]) for p in article["paragraphs"])
        for n, paragraph in enumerate(article["paragraphs"]):
            found += [_question(qa, str(article["title"]), paragraphs, n) for qa in paragraph["qas"]]
    return found


def _question(qa: dict[str, Any], title: str, paragraphs: tuple[str, ...], own: int) -> Question:
    golds = [] if qa.get("is_impossible") else [str(a["text"]) for a in qa.get("answers", [])]
    return Question(
        qid=str(qa["id"]),
        text=str(qa["question"]).strip(),  # 64 end in a space; the words are kept as written
        title=title,
        paragraphs=paragraphs,
        own=own,
        answers=tuple(dict.fromkeys(golds)),
    )


def ordered(found: Sequence[Question], seed: int) -> list[Question]:
    """The answerable and the unanswerable each shuffled, then taken in turn (answerable first).

    >>> q = lambda n, a: Question(str(n), "?", "t", ("p",), 0, ("x",) if a else ())
    >>> [x.answerable for x in ordered([q(1, 1), q(2, 1), q(3, 1), q(4, 0)], 0)]
    [True, False, True, True]
    """
    answerable = [q for q in found if q.answerable]
    unanswerable = [q for q in found if not q.answerable]
    random.Random(f"{seed}/answerable").shuffle(answerable)
    random.Random(f"{seed}/unanswerable").shuffle(unanswerable)
    turns = [[a, u] for a, u in zip(answerable, unanswerable, strict=False)]
    rest = answerable[len(unanswerable) :] + unanswerable[len(answerable) :]
    return [q for pair in turns for q in pair] + rest


def task_name(question: Question, removed: bool = False) -> str:
    return f"squad-{'removed-' if removed else ''}{question.qid[:10]}"


def task(question: Question, root: Path, seed: int, removed: bool = False) -> SuiteTask:
    name = task_name(question, removed)
    texts = [question.paragraphs[n] for n in files(question, seed, removed)]
    folder = write_folder(root / "squad" / name, texts)
    golds = [] if removed else list(question.answers)
    kind = "removed" if removed else "answerable" if question.answerable else "unanswerable"
    return SuiteTask(
        name=name,
        goal=question.text,
        sources=[folder],
        task_type="simple_question",
        kind=kind,
        group=question.title,
        prompt=lambda: prompt(question.text, folder),
        grade=lambda text, artifacts: graded(said(text, question.text), golds),
        grade_baseline=lambda text, artifacts: graded(said_plainly(text), golds),
    )


def files(question: Question, seed: int, removed: bool = False) -> list[int]:
    """The paragraphs of a question's folder, in file order: its own and four others of its article
    (removed: a fifth other in its own's place, so the two folders differ only there).

    A string seed is hashed the same way on every run and Python version (unlike `hash()`).
    """
    rng = random.Random(f"{seed}/{question.qid}")
    others = [n for n in range(len(question.paragraphs)) if n != question.own]
    picked = rng.sample(others, min(FILES, len(others)))
    chosen = [question.own, *picked[: FILES - 1]]
    rng.shuffle(chosen)
    if not removed:
        return chosen
    spare = picked[FILES - 1 :]  # empty only for an article of five paragraphs or fewer
    return [p if p != question.own else spare[0] for p in chosen] if spare else picked


def write_folder(folder: Path, texts: Sequence[str]) -> Path:
    """`paragraph-01.md` ... one per text, each its paragraph on one line (written again each time:
    a folder kept by `--keep` may hold another seed's)."""
    folder.mkdir(parents=True, exist_ok=True)
    for n, text in enumerate(texts, start=1):
        (folder / f"paragraph-{n:02d}.md").write_text(f"{text}\n", encoding="utf-8")
    return folder


def prompt(question: str, folder: Path) -> str:
    """The baseline's one prompt: the five files whole, then the question (Cairn's own `ask`, so
    where Cairn read the five files the two requests are the same)."""
    paths = sorted(folder.glob("*.md"))
    return ask_text(
        question, [(f"source:{folder.name}/{p.name}", p.read_text(encoding="utf-8")) for p in paths]
    )


# --- grading, as SQuAD's evaluation does it ---


def normalise(text: str) -> str:
    """Lower-cased, without punctuation or the articles a/an/the, single-spaced."""
    bare = text.lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", bare).split())


def f1(answer: str, gold: str) -> float:
    """Token F1 of the normalised texts (both empty: 1; one empty: 0).

    >>> round(f1("Richard the First of Normandy", "Richard I of Normandy"), 3)
    0.75
    """
    said, wanted = normalise(answer).split(), normalise(gold).split()
    if not said or not wanted:
        return float(said == wanted)
    common = sum((Counter(said) & Counter(wanted)).values())
    if not common:
        return 0.0
    precision, recall = common / len(said), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def right(answer: str, golds: Sequence[str]) -> bool:
    """Exactly one of the gold answers, or F1 >= 0.5 against one."""
    return any(normalise(answer) == normalise(g) or f1(answer, g) >= CORRECT_F1 for g in golds)


def graded(answer: Said, golds: Sequence[str]) -> Grade:
    """Right with a value that matches a gold answer; with no gold answer, right with no value."""
    value = answer.value if answer.stated in ("proven", "unverified") else ""
    if not golds:
        why = f"gives an answer: {value[:60]!r}" if value else "ok"
        return Grade(correct=not value, score=float(not value), why=why, stated=answer.stated, value=value)
    score = max(f1(value, g) for g in golds) if value else 0.0
    ok = bool(value) and right(value, golds)
    why = "ok" if ok else f"F1 {score:.2f} against {golds[0]!r}" if value else f"no answer ({answer.stated})"
    return Grade(correct=ok, score=round(score, 3), why=why, stated=answer.stated, value=value)


# --- reading an answer ---


def said(deliverable: str, question: str) -> Said:
    """What Cairn's deliverable states for a one-question goal, read from its first answer line:
    `<question> <value>.` (proven), `<question> Unverified: <value>.`, `<question> The files read
    do not say.`; or the older `<value>.` and `The files read do not say: <question>?` (a value
    under the `> **Unverified**` banner is unverified); an empty one states nothing. The banner and
    a `## Proof` section are not the answer. A question Cairn split in two is answered as a list,
    `- <part> <line>` each: its values joined, "not stated" only when no part has one.

    >>> said("> ...\\nWho ruled? Unverified: Rollo (source:x/paragraph-02.md:1).\\n## Proof", "Who ruled?")
    Said(stated='unverified', value='Rollo')
    >>> said("The files read do not say: Who ruled?", "Who ruled?").stated
    'not_stated'
    """
    from cairn.tasks.grounding import answer_body, split_goal

    banner = any(_is_unverified_banner(line) for line in deliverable.splitlines())
    lines = [line.strip() for line in answer_body(deliverable).splitlines() if line.strip()]
    if not lines:
        return Said(stated="none")
    head = _BULLET.sub("", lines[0])
    first = past if (past := _past(head, question)) is not None else head
    listed = _BULLET.match(lines[0]) or _BULLET.match(first)
    items = [first, *(line for line in lines[1:] if _BULLET.match(line))] if listed else [first]
    parts = [question, *split_goal(question)]
    return _joined([_line(_BULLET.sub("", item), parts, banner) for item in items])


def _line(text: str, parts: Sequence[str], banner: bool) -> Said:
    """One answer line, past the question (or the part of it) it repeats."""
    past = (_past(text, part) for part in parts)
    rest = next((r for r in past if r is not None), " ".join(text.split()))
    if not rest:
        return Said(stated="none")
    if _NOT_SAID.match(rest):
        return Said(stated="not_stated")
    if unproven := _UNVERIFIED.match(rest) or _SEVERAL.match(rest):
        return _given("unverified", rest[unproven.end() :])
    return _given("unverified" if banner else "proven", rest)


def _joined(lines: Sequence[Said]) -> Said:
    """A list's lines as one answer: the values given (unverified if any is), else not stated."""
    values = [s for s in lines if s.value]
    if values:
        stated: Stated = "unverified" if any(s.stated == "unverified" for s in values) else "proven"
        return Said(stated=stated, value="; ".join(s.value for s in values))
    return Said(stated="not_stated" if any(s.stated == "not_stated" for s in lines) else "none")


def _is_unverified_banner(line: str) -> bool:
    return line.lstrip().startswith(">") and "unverified" in line.lower()


def _past(line: str, question: str) -> str | None:
    """The line past the question it repeats (with or without its question mark); None when it
    does not start with it (the older formats).

    >>> _past("Who ruled Normandy? Rollo.", "Who ruled Normandy"), _past("Rollo.", "Who ruled?")
    ('Rollo.', None)
    """
    asked = " ".join(question.split()).rstrip("?").rstrip()
    text = " ".join(line.split())
    head, tail = text[: len(asked)], text[len(asked) :]
    if not asked or head.lower() != asked.lower() or (tail and tail[0] not in "? "):
        return None
    return tail.lstrip().removeprefix("?").strip()


def _given(stated: Stated, text: str) -> Said:
    value = clean(text)
    return Said(stated=stated, value=value) if value else Said(stated="none")


def clean(value: str) -> str:
    """A value without its citations, closing period, quotes and emphasis.

    >>> clean('**"Rollo"** (source:squad-1/paragraph-03.md:1).')
    'Rollo'
    """
    text = _CITATION.sub("", value).strip()
    while text and (text[-1] == "." or text[0] in _MARKUP or text[-1] in _MARKUP):
        text = text.removesuffix(".").strip(_MARKUP)
    return text


def said_plainly(reply: str) -> Said:
    """The baseline's reply: none when empty, not_stated when it says the files do not state it
    (`novalue.says_not_stated`: "not mentioned", "does not say", "cannot be determined", ...), else
    its first line is the value (unverified: the baseline checks nothing).

    >>> said_plainly("The paragraphs don't mention it.").stated, said_plainly(" France.\\n").value
    ('not_stated', 'France')
    """
    text = reply.strip()
    if not text:
        return Said(stated="none")
    if says_not_stated(text):
        return Said(stated="not_stated")
    return _given("unverified", text.splitlines()[0])


# --- Cairn without a whole run (`--fast`), and the verifier weights it runs with ---


def answer_offline(question: str, folder: Path) -> tuple[str, bool]:
    """Cairn's deliverable for a question over a folder, and whether it is complete, through the
    functions `cairn run` decides with, without a run: the offline model's answer, the verifier's
    check of it (with the weights `CAIRN_VERIFIER` names, as a run's settings would), the answer
    composed as the deliver step composes it, checked again. Complete when every part is proven
    or proven absent (the validation suites' rule) and every claim supported."""
    from cairn.flows.steps.deliver import proven_answer
    from cairn.tasks.grounding import Read, ReadIndex
    from cairn.tasks.messages.schemas import DeliverInput, Excerpt
    from cairn.tasks.offline.answers import deliver
    from cairn.tasks.task_grounding import judged_by
    from cairn.tasks.verifier.answer_check import Grounding, check_answer
    from cairn.tasks.verify.model import use_verifier

    use_verifier(os.environ.get(VERIFIER))
    excerpts = [
        Excerpt(source=f"source:{folder.name}/{path.name}", text=path.read_text(encoding="utf-8"))
        for path in sorted(folder.glob("*.md"))
    ]
    inp = DeliverInput(
        goal=question, task_type="simple_question", deliverable="answer.md", notes=[], excerpts=excerpts
    )
    answer = deliver(inp).answer
    reads = ReadIndex([Read(e.source, e.text) for e in excerpts])
    read = list(reads.reads)

    def checked(text: str) -> Grounding:
        found = check_answer(text, [question], reads, question, exhausted=True)
        return judged_by(None, question, text, found, read, exhausted=True)

    found = checked(answer)
    composed = proven_answer(answer, [question], found.parts)
    if composed is not None:
        answer, found = composed, checked(composed)
    complete = all(p.settled for p in found.parts) and all(c.supported for c in found.claims)
    return answer if composed is not None else f"{question} {answer}", complete


def slug(title: str) -> str:
    """An article's title as a fold file's name.

    >>> slug("1973_oil_crisis"), slug("European Union law")
    ('1973-oil-crisis', 'european-union-law')
    """
    return re.sub(r"[^a-z0-9]", "-", title.lower())


@contextmanager
def fold_weights(title: str | None, folds: Path = FOLDS) -> Iterator[Path | None]:
    """While a task of the article `title` runs, `CAIRN_VERIFIER` names the weights fitted without
    that article (`folds/<slug>.json`), where the file exists; the old value comes back after."""
    path = folds / f"{slug(title)}.json" if title else None
    if path is None or not path.is_file():
        yield None
        return
    previous = os.environ.get(VERIFIER)
    os.environ[VERIFIER] = str(path.resolve())
    try:
        yield path
    finally:
        if previous is None:
            os.environ.pop(VERIFIER, None)
        else:
            os.environ[VERIFIER] = previous
