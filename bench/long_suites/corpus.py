"""A seeded corpus of service notes with its exact truth: the long-task bench's material.

N made-up services (names built from syllables, some of two words), each owned by a team, with a
p95 latency budget in ms and a launch year. Most have a short prose note of their own, in one of
several phrasings; the rest are listed in registers: Markdown tables, CSV and JSON files. Then the
traps a careful reader must not fall into: a dated memo that corrects one budget (the truth is the
corrected value), a service whose budget no file gives (the truth is "not given"), two pairs of
near names ("x" and "x v2", "y" and "y-api") with their own owners and budgets, and files that
describe no service. Everything is a function of `(n, seed)`.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from long_suites import wording
from long_suites.grade import item_key

GOAL = (
    "Summarise, for every service described in the corpus, the team that owns it and its p95 latency budget."
)
MEMO_DATE = "2026-03-02"
MIN_N = 12  # room for the distractors and for every register format
Kind = Literal["plain", "corrected", "not_given", "near_name"]
Format = Literal["prose", "table", "csv", "json"]
COLUMNS = ("service", "owner", "p95 latency budget (ms)", "launched")


class TruthRow(BaseModel):
    """What a correct summary says of one service; `budget_ms` None: no file gives it."""

    model_config = ConfigDict(frozen=True)

    service: str
    owner: str
    budget_ms: int | None
    kind: Kind = "plain"


class Service(BaseModel):
    """One service as its own note or register row writes it (a memo may correct the budget)."""

    model_config = ConfigDict(frozen=True)

    name: str
    owner: str
    budget_ms: int | None
    launched: int
    kind: Kind = "plain"


class Corpus(BaseModel):
    """The files (name -> text) and the truth, sorted by service."""

    files: dict[str, str]
    truth: list[TruthRow]


def write_corpus(root: Path, n: int, seed: int = 0) -> list[TruthRow]:
    """Write the corpus of `n` services into `root` (created) and return its truth.

    >>> import tempfile
    >>> truth = write_corpus(Path(tempfile.mkdtemp()), 20, seed=1)
    >>> len(truth), sorted({row.kind for row in truth})
    (20, ['corrected', 'near_name', 'not_given', 'plain'])
    """
    corpus = build_corpus(n, seed)
    root.mkdir(parents=True, exist_ok=True)
    for name, text in corpus.files.items():
        (root / name).write_text(text, encoding="utf-8")
    return corpus.truth


def build_corpus(n: int, seed: int = 0) -> Corpus:
    """The corpus of `n` services as data: the same `(n, seed)` always gives the same files.

    >>> build_corpus(30, seed=7) == build_corpus(30, seed=7)
    True
    """
    if n < MIN_N:
        raise ValueError(f"a corpus needs at least {MIN_N} services, not {n}")
    rng = random.Random(seed)
    teams = [f"Team {bird}" for bird in rng.sample(wording.BIRDS, min(len(wording.BIRDS), max(6, n // 12)))]
    services = _services(rng, n, teams)
    files = wording.unrelated(*rng.sample(teams, 3))
    truth = {
        s.name: TruthRow(service=s.name, owner=s.owner, budget_ms=s.budget_ms, kind=s.kind) for s in services
    }
    placed = _layout(rng, services)
    for name, fmt, members in placed:
        files[name] = _render(rng, fmt, members)
    corrected, where = _to_correct(rng, placed)
    new = _corrected_budget(rng, corrected.budget_ms or 0)
    memo = wording.memo(MEMO_DATE, rng.choice(teams), corrected.name, new, corrected.budget_ms, where)
    files[f"memo-{MEMO_DATE}.md"] = memo
    truth[corrected.name] = truth[corrected.name].model_copy(update={"budget_ms": new, "kind": "corrected"})
    return Corpus(files=files, truth=sorted(truth.values(), key=lambda row: item_key(row.service)))


def _services(rng: random.Random, n: int, teams: list[str]) -> list[Service]:
    """N services: n - 2 generated names, then "v2" and "-api" twins of the first two."""
    names = _names(rng, n - 2)
    services = [_service(rng, name, teams) for name in names]
    services[2] = services[2].model_copy(update={"budget_ms": None, "kind": "not_given"})
    for base, twin in ((services[0], f"{names[0]} v2"), (services[1], f"{names[1]}-api")):
        other = _service(rng, twin, [t for t in teams if t != base.owner])
        while other.budget_ms == base.budget_ms:
            other = _service(rng, twin, [t for t in teams if t != base.owner])
        services.append(other.model_copy(update={"kind": "near_name"}))
    for i in (0, 1):
        services[i] = services[i].model_copy(update={"kind": "near_name"})
    return services


def _service(rng: random.Random, name: str, teams: list[str]) -> Service:
    return Service(
        name=name,
        owner=rng.choice(teams),
        budget_ms=rng.randrange(25, 1205, 5),
        launched=rng.randint(2012, 2025),
    )


def _names(rng: random.Random, count: int) -> list[str]:
    """`count` names no two alike as the grader compares them; the first of two words, the second
    of one (the near-name twins are built from these two)."""
    names: list[str] = []
    keys: set[str] = set()
    while len(names) < count:
        shape = "two" if not names else "one" if len(names) == 1 else _shape(rng)
        name = _name(rng, shape)
        if item_key(name) not in keys:
            keys.add(item_key(name))
            names.append(name)
    return names


def _shape(rng: random.Random) -> str:
    draw = rng.random()
    return "one" if draw < 0.6 else "two" if draw < 0.9 else "nouns"


def _name(rng: random.Random, shape: str) -> str:
    word = "".join(rng.choice(wording.SYLLABLES) for _ in range(rng.choice((2, 2, 3))))
    if shape == "one":
        return word
    if shape == "two":
        return f"{word} {rng.choice(wording.NOUNS)}"
    first, second = rng.sample(wording.NOUNS, 2)
    return f"{first} {second}"


def _layout(rng: random.Random, services: list[Service]) -> list[tuple[str, Format, list[Service]]]:
    """Files: most services one prose note each, the rest in registers of about ten rows, the
    formats taking turns. The not-given service and the near names' first halves have notes; their
    twins sit in registers, so a reader meets the two names in different places."""
    special = {s.name for s in services[:3]}
    twins = services[-2:]
    others = list(services[3:-2])
    rng.shuffle(others)
    prose_count = max(3, round(len(services) * 0.6)) - 3
    grouped = twins + others[prose_count:]
    rng.shuffle(grouped)
    files: list[tuple[str, Format, list[Service]]] = [
        (f"{_slug(s.name)}.md", "prose", [s]) for s in services if s.name in special
    ]
    files += [(f"{_slug(s.name)}.md", "prose", [s]) for s in others[:prose_count]]
    parts = max(3, math.ceil(len(grouped) / 10))
    size = math.ceil(len(grouped) / parts)
    formats: tuple[Format, ...] = ("table", "csv", "json")
    turn = rng.randrange(3)
    for part, start in enumerate(range(0, len(grouped), size)):
        members = grouped[start : start + size]
        fmt = formats[(turn + part) % 3]
        files.append((f"{_slug(members[0].name)}-and-{len(members) - 1}-more.{_EXT[fmt]}", fmt, members))
    return files


_EXT = {"table": "md", "csv": "csv", "json": "json"}


def _slug(name: str) -> str:
    return "-".join(name.lower().replace("-", " ").split())


def _render(rng: random.Random, fmt: Format, members: list[Service]) -> str:
    if fmt == "prose":
        return _prose(rng, members[0])
    rows = [[s.name, s.owner, str(s.budget_ms), str(s.launched)] for s in members]
    if fmt == "table":
        lines = [f"| {' | '.join(COLUMNS)} |", "| --- | --- | --- | --- |"]
        lines += [f"| {' | '.join(row)} |" for row in rows]
        return "# Service register\n\nCollected from the owning teams.\n\n" + "\n".join(lines) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([list(COLUMNS), *rows])
        return out.getvalue()
    keys = ("service", "owner", "p95_latency_budget_ms", "launched")
    records = [dict(zip(keys, (s.name, s.owner, s.budget_ms, s.launched), strict=True)) for s in members]
    return json.dumps(records, indent=2) + "\n"


def _prose(rng: random.Random, service: Service) -> str:
    fields = {"name": service.name, "Name": service.name[:1].upper() + service.name[1:]}
    fields |= {"team": service.owner, "ms": str(service.budget_ms), "year": str(service.launched)}
    if service.budget_ms is None:
        return wording.NO_BUDGET.format(**fields) + "\n"
    text = rng.choice(wording.PROSE).format(**fields)
    if rng.random() < 0.3:
        text += "\n\n" + rng.choice(wording.FILLER)
    if rng.random() < 0.15:  # another percentile's figure, which is not the budget
        text += f"\n\nIts p50 latency is usually near {max(5, service.budget_ms // 15 * 5)} ms."
    return text + "\n"


def _to_correct(rng: random.Random, placed: list[tuple[str, Format, list[Service]]]) -> tuple[Service, str]:
    """A plain service for the memo to correct, and the file that gives its old budget."""
    candidates = [(s, name) for name, _, members in placed for s in members if s.kind == "plain"]
    return rng.choice(candidates)


def _corrected_budget(rng: random.Random, old: int) -> int:
    delta = rng.randrange(20, 200, 5)
    return old - delta if old - delta >= 25 and rng.random() < 0.5 else old + delta
