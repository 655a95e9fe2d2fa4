"""A seeded corpus whose files never use the goal's words for its fields, with its exact truth.

`corpus.py` states every field in the goal's own words ("owned by", "p95 latency budget"); a
user's files do not. Here N items of a kind (`service`: owning team, p95 latency budget in ms;
`dataset`: steward, retention period in days) are written as a user's notes would write them:
"maintained by Team Wren", "95 of every 100 requests must finish within 0.18 s", "rows older than
13 weeks are purged every night" (the phrasings are `paraphrases.py`'s). Formats, each a good
share of the items: prose notes (one item per `.md`, under a `# Name` heading or named only in the
first sentence), front matter (`---` then paraphrased `key: value` lines), Markdown tables, CSV
and JSON registers of 5 to 20 items. Traps: about 4% of items have no figure (half say so in
words, half never mention it), a dated memo corrects one item's figure (the truth is the
corrected value), a near name (`x` and `x v2`), and files that name teams and define terms but
describe no item. Everything is a function of `(kind, n, seed)`.

>>> corpus = build_paraphrased("service", 60, seed=1)
>>> len(corpus.truth), sorted({row.kind for row in corpus.truth})
(60, ['absent_said', 'absent_silent', 'corrected', 'near_name', 'plain'])
>>> goals("dataset")[1]
'Who stewards each dataset, and what is its retention period?'
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

from long_suites.grade import Truth, item_key
from long_suites.paraphrases import BIRDS, GOALS, KINDS, SYLLABLES, FieldWords, KindSpec, unrelated

MEMO_DATE = "2026-03-02"
MIN_N = 40  # room for the traps and for every register format
Format = Literal["prose", "front", "table", "csv", "json"]
FORMATS: tuple[Format, ...] = ("prose", "front", "table", "csv", "json")
REGISTERS: tuple[Format, ...] = ("table", "csv", "json")
SINGLES_SHARE = 0.55  # items with a file of their own (prose or front matter); the rest in registers
PROSE_SHARE = 0.6  # of those, the share in prose
ABSENT_SHARE = 0.04
_EXT: dict[Format, str] = {"prose": "md", "front": "md", "table": "md", "csv": "csv", "json": "json"}


class Item(BaseModel):
    """One item as its files state it (a memo may correct the figure): `value` is the name field's."""

    model_config = ConfigDict(frozen=True)

    name: str
    value: str
    figure: int | None
    kind: str = "plain"


class Corpus(BaseModel):
    """The files (name -> text), the truth sorted by item, the file that states each item, and
    the format each file is in (the memo and the unrelated files have none)."""

    kind: str
    files: dict[str, str]
    truth: list[Truth]
    where: dict[str, str]
    formats: dict[str, Format]


def goals(kind: str) -> list[str]:
    """The ways a user asks for every item of `kind` with its two fields.

    >>> goals("service")[0]
    'List each service with the team that owns it and its p95 latency budget.'
    """
    return list(GOALS[kind])


def write_paraphrased(root: Path, kind: str, n: int, seed: int = 0) -> list[Truth]:
    """Write the corpus of `n` items of `kind` into `root` (created) and return its truth.

    >>> import tempfile
    >>> truth = write_paraphrased(Path(tempfile.mkdtemp()), "dataset", 40, seed=2)
    >>> len(truth), sum(row.figure is None for row in truth)
    (40, 2)
    """
    corpus = build_paraphrased(kind, n, seed)
    root.mkdir(parents=True, exist_ok=True)
    for name, text in corpus.files.items():
        (root / name).write_text(text, encoding="utf-8")
    return corpus.truth


def build_paraphrased(kind: str, n: int, seed: int = 0) -> Corpus:
    """The corpus as data: the same `(kind, n, seed)` always gives the same files.

    >>> build_paraphrased("dataset", 50, 3) == build_paraphrased("dataset", 50, 3)
    True
    """
    if kind not in KINDS:
        raise ValueError(f"no such kind {kind!r}: one of {sorted(KINDS)}")
    if n < MIN_N:
        raise ValueError(f"a paraphrased corpus needs at least {MIN_N} items, not {n}")
    spec = KINDS[kind]
    rng = random.Random(f"{kind}:{n}:{seed}")  # a string seed: the same stream on every run
    items = _items(rng, spec, n)
    files = unrelated(spec, [f"Team {bird}" for bird in rng.sample(BIRDS, 4)])
    where: dict[str, str] = {}
    formats: dict[str, Format] = {}
    for name, fmt, members in _layout(rng, items, set(files)):
        files[name] = _render(rng, spec, fmt, members, name)
        formats[name] = fmt
        where |= {item.name: name for item in members}
    truth = {
        item.name: Truth(item=item.name, name=item.value, figure=item.figure, kind=item.kind)
        for item in items
    }
    fixed, new = _correction(rng, spec, items)
    memo = f"memo-{MEMO_DATE}.md"
    files[memo] = _memo(rng, spec, fixed, new, where[fixed.name])
    truth[fixed.name] = truth[fixed.name].model_copy(update={"figure": new, "kind": "corrected"})
    ordered = sorted(truth.values(), key=lambda row: item_key(row.item))
    return Corpus(kind=kind, files=files, truth=ordered, where=where, formats=formats)


def _items(rng: random.Random, spec: KindSpec, n: int) -> list[Item]:
    """N items: n - 1 named ones, then the "v2" twin of the first. Items 1.. are the absent ones,
    the first half said to be absent, the rest never mentioned."""
    names = _names(rng, spec, n - 1)
    items = [_item(rng, spec, name) for name in names]
    absent = max(2, round(n * ABSENT_SHARE))
    for i in range(1, 1 + absent):
        kind = "absent_said" if i <= (absent + 1) // 2 else "absent_silent"
        items[i] = items[i].model_copy(update={"figure": None, "kind": kind})
    base = items[0] = items[0].model_copy(update={"kind": "near_name"})
    twin = _item(rng, spec, f"{base.name} v2")
    while twin.value == base.value or twin.figure == base.figure:
        twin = _item(rng, spec, twin.name)
    return [*items, twin.model_copy(update={"kind": "near_name"})]


def _item(rng: random.Random, spec: KindSpec, name: str) -> Item:
    return Item(name=name, value=spec.draw_name(rng), figure=spec.draw_figure(rng))


def _names(rng: random.Random, spec: KindSpec, count: int) -> list[str]:
    """`count` names no two alike as the grader compares them, none holding a goal word; the
    first of two words (the near name's base)."""
    names: list[str] = []
    keys: set[str] = set()
    banned = [spec.forbidden(spec.name), spec.forbidden(spec.figure)]
    while len(names) < count:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3))))
        name = f"{word} {rng.choice(spec.nouns)}" if not names or rng.random() < 0.4 else word
        if item_key(name) not in keys and item_key(name) == name and not any(b.search(name) for b in banned):
            keys.add(item_key(name))
            names.append(name)
    return names


def _layout(rng: random.Random, items: list[Item], taken: set[str]) -> list[tuple[str, Format, list[Item]]]:
    """Files: a share of the items one note each (prose or front matter; the absent items and the
    near name's base among them), the rest (the twin among them) in registers of 5 to 20 items,
    the register formats taking turns."""
    special = [item for item in items[:-1] if item.kind != "plain"]
    others = [item for item in items[:-1] if item.kind == "plain"]
    rng.shuffle(others)
    singles = max(len(special), round(len(items) * SINGLES_SHARE)) - len(special)
    alone = special + others[:singles]
    grouped = [items[-1], *others[singles:]]
    rng.shuffle(grouped)
    files: list[tuple[str, Format, list[Item]]] = []
    for n, item in enumerate(alone):
        fmt: Format = "prose" if item.kind == "near_name" or rng.random() < PROSE_SHARE else "front"
        if item.kind.startswith("absent"):
            fmt = "prose" if n % 2 else "front"  # both forms of absence in both single formats
        files.append((_file_name(item.name, "md", taken), fmt, [item]))
    counts = dict.fromkeys(rng.sample(REGISTERS, len(REGISTERS)), 0)  # items per format, in turn order
    start = 0
    for part, size in enumerate(_sizes(rng, len(grouped))):
        fmt = min(counts, key=counts.__getitem__)  # the format with the fewest items so far
        counts[fmt] += size
        files.append((f"register-{part + 1:02d}.{_EXT[fmt]}", fmt, grouped[start : start + size]))
        start += size
    return files


def _file_name(item: str, ext: str, taken: set[str]) -> str:
    name = f"{'-'.join(item.split())}.{ext}"
    if name in taken:  # an item named like README: its note gets a prefix
        name = f"note-{name}"
    taken.add(name)
    return name


def _sizes(rng: random.Random, total: int) -> list[int]:
    """Register sizes adding up to `total`: at least one per register format, each 5 to 20,
    uneven (a neighbour gives or takes a few)."""
    parts = max(len(REGISTERS), math.ceil(total / 12))
    sizes = [total // parts + (1 if i < total % parts else 0) for i in range(parts)]
    for i in range(parts - 1):
        shift = rng.randint(-4, 4)
        if 5 <= sizes[i] + shift <= 20 and 5 <= sizes[i + 1] - shift <= 20:
            sizes[i], sizes[i + 1] = sizes[i] + shift, sizes[i + 1] - shift
    return sizes


def _render(rng: random.Random, spec: KindSpec, fmt: Format, members: list[Item], name: str) -> str:
    if fmt == "prose":
        return _prose(rng, spec, members[0])
    if fmt == "front":
        return _front(rng, spec, members[0])
    item_key_, name_key, figure_key = _keys(rng, spec)
    figure_first = rng.random() < 0.3
    if fmt == "table":
        head = [item_key_.capitalize(), rng.choice(spec.name.headers), rng.choice(spec.figure.headers)]
        rows = [[m.name, m.value, _bare(m.figure)] for m in members]
        if figure_first:
            head, rows = _swap(head), [_swap(r) for r in rows]
        lines = [f"| {' | '.join(head)} |", "| --- | --- | --- |", *(f"| {' | '.join(r)} |" for r in rows)]
        title = f"# {spec.singular.capitalize()} catalogue, part {int(name[9:11])}"  # register-NN.md
        return f"{title}\n\nGathered from the teams in March.\n\n" + "\n".join(lines) + "\n"
    keys = [item_key_, name_key, figure_key]
    if fmt == "csv":
        rows = [[m.name, m.value, _bare(m.figure)] for m in members]
        if figure_first:
            keys, rows = _swap(keys), [_swap(r) for r in rows]
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([keys, *rows])
        return out.getvalue()
    records = [dict(zip(keys, (m.name, m.value, m.figure), strict=True)) for m in members]
    return json.dumps(records, indent=2) + "\n"


def _keys(rng: random.Random, spec: KindSpec) -> tuple[str, str, str]:
    return rng.choice(spec.item_keys), rng.choice(spec.name.keys), rng.choice(spec.figure.keys)


def _swap(row: list[str]) -> list[str]:
    return [row[0], row[2], row[1]]


def _bare(figure: int | None) -> str:
    return "" if figure is None else str(figure)


def _prose(rng: random.Random, spec: KindSpec, item: Item) -> str:
    """A note: under a `# Name` heading (every sentence may leave the name out), or with the name
    in its first sentence only; the two fields in either order; sometimes a filler sentence, or
    another figure that is not the field's."""
    name_line = _sentence(rng, spec.name, item, item.value, named=False)
    figure_line = _figure_sentence(rng, spec, item, named=False)
    body = [line for line in (name_line, figure_line) if line]
    rng.shuffle(body)
    headed = rng.random() < 0.4
    if headed:
        lead = [rng.choice(spec.about).format(Item=_cap(item.name))] if rng.random() < 0.3 else []
        text = f"# {_cap(item.name)}\n\n" + " ".join([*lead, *body])
    elif rng.random() < 0.5:
        text = " ".join([rng.choice(spec.about).format(Item=_cap(item.name)), *body])
    else:
        first = body[0] == name_line
        named = (
            _sentence(rng, spec.name, item, item.value, named=True)
            if first
            else _figure_sentence(rng, spec, item, named=True)
        )
        text = " ".join([named, *body[1:]])
    if rng.random() < 0.3:
        text += "\n\n" + rng.choice(spec.filler)
    if item.figure is not None and rng.random() < 0.15:
        text += "\n\n" + spec.decoy.format(
            n=rng.randrange(2, 24) if spec.singular == "dataset" else _decoy(item)
        )
    return text + "\n"


def _decoy(item: Item) -> int:
    """A median response time well under the item's 95th-percentile figure."""
    return max(5, (item.figure or 0) // 15 * 5)


def _figure_sentence(rng: random.Random, spec: KindSpec, item: Item, named: bool) -> str:
    if item.figure is not None:
        return _sentence(rng, spec.figure, item, _spelt(rng, spec, item.figure), named)
    if item.kind == "absent_said":
        return rng.choice(spec.figure.absent) if not named else _named_absent(rng, spec, item)
    return ""


def _named_absent(rng: random.Random, spec: KindSpec, item: Item) -> str:
    """An absence said of the item by name: its name sentence first, then the absence."""
    return f"{rng.choice(spec.about).format(Item=_cap(item.name))} {rng.choice(spec.figure.absent)}"


def _sentence(rng: random.Random, words: FieldWords, item: Item, value: str, named: bool) -> str:
    template = rng.choice(words.named if named else words.bare)
    return template.format(item=item.name, Item=_cap(item.name), value=value)


def _spelt(rng: random.Random, spec: KindSpec, figure: int) -> str:
    """The figure as a quantity in one of the field's spellings that fits it (`0.18 s`, `13 weeks`)."""
    return rng.choice([s for s in spec.figure.spellings if s.fits(figure)]).write(figure)


def _front(rng: random.Random, spec: KindSpec, item: Item) -> str:
    """Front matter with paraphrased keys; a short body that may say the figure is not set."""
    item_key_, name_key, figure_key = _keys(rng, spec)
    pairs = [(name_key, item.value)] + ([(figure_key, str(item.figure))] if item.figure is not None else [])
    rng.shuffle(pairs)
    head = "\n".join(f"{key}: {value}" for key, value in [(item_key_, item.name), *pairs])
    body = [rng.choice(spec.about).format(Item=_cap(item.name))] if rng.random() < 0.5 else []
    if item.kind == "absent_said":
        body.append(rng.choice(spec.figure.absent))
    if rng.random() < 0.3:
        body.append(rng.choice(spec.filler))
    return f"---\n{head}\n---\n" + (f"\n{' '.join(body)}\n" if body else "")


def _correction(rng: random.Random, spec: KindSpec, items: list[Item]) -> tuple[Item, int]:
    """A plain item with a figure for the memo to correct, and its new figure (a different one)."""
    fixed = rng.choice([item for item in items if item.kind == "plain" and item.figure is not None])
    old = fixed.figure or 0
    step = 10 if spec.singular == "service" else 1
    delta = rng.randrange(2, 20) * step
    return fixed, (old - delta if old - delta > step * 2 and rng.random() < 0.5 else old + delta)


def _memo(rng: random.Random, spec: KindSpec, item: Item, new: int, where: str) -> str:
    unit = spec.figure.spellings[0]
    line = spec.correction.format(
        item=item.name, new=unit.write(new), old=unit.write(item.figure or 0), where=where
    )
    sender = spec.draw_name(rng)
    head = f"# Memo, {MEMO_DATE}\n\nFrom: {sender}, platform review\nTo: every team"
    return f"{head}\n\n{line}\n\nNothing else changes.\n"


def _cap(name: str) -> str:
    return name[:1].upper() + name[1:]
