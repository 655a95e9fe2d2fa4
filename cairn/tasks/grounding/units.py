"""What a task read, cut into the units a quote can be: sentences, table rows, list items, turns.

Each unit keeps where it is (the source and its line), what it says as written (the quote), and
what it stands under: the headings above it, a `Name:` label (a transcript's speaker, a field
like `Lead:`), a table's header. A unit opening with a word that points back (`It is led by ...`,
`The team sits in ...`) says so, and the unit it points to is the sentence before it in the same
paragraph or turn.

A heading lends its words to the units below it, and its name only when it names one thing:
under `## Team Heron` every line is about Team Heron; under `# Conversation between Caroline and
Melanie` no line is about Caroline for that reason alone.

>>> found = units_of("t.md", "## Team Falcon\\nTeam Falcon owns billing.\\nThe team is led by Priya.")
>>> [(u.line, u.text, u.refers_back) for u in found]
[(1, 'Team Falcon', False), (2, 'Team Falcon owns billing.', False), (3, 'The team is led by Priya.', True)]
>>> "falcon" in found[2].forms
True
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from cairn.tasks.grounding.formats import as_markdown
from cairn.tasks.grounding.lemmas import forms, tokens
from cairn.tasks.grounding.lexicon import (
    FRAME,
    INTERJECTIONS,
    NOT_NAMES_IN_UNITS,
    POINTING_DETERMINERS,
    THIRD_PERSON_PRONOUNS,
)
from cairn.tasks.grounding.names import names
from cairn.tasks.grounding.relative_dates import heading_date, resolved

_LABEL = re.compile(r"^([A-Z][\w'.-]*(?: [\w'.-]+){0,2}):\s+(?=\S)")
_STAMP = re.compile(r"^\[(?P<when>[^\]]{3,60})\]\s+")
BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
EMPHASIS = re.compile(r"(\*\*|__|`)(.+?)\1")
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'“(\[A-Z0-9])")
TABLE_DIVIDER = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?")
# A name set off at a sentence's edge is who it is said to, not what it is about: `Thanks, Melanie!`
_VOCATIVE = re.compile(
    rf"^(?i:{'|'.join(INTERJECTIONS)})"
    r"[,!]?\s+(?P<a>[A-Z][\w'-]+)\s*[,!.]|,\s*(?P<b>[A-Z][\w'-]+)\s*[.!?]*$"
)


@dataclass(frozen=True)
class Unit:
    """One quotable unit of a text the task read."""

    source: str  # the path as the tools name it, or the call that returned the text
    line: int  # 1-based line of the text where the unit starts
    text: str  # as written: what a quote of it shows
    said: str  # as compared: table rows spelled `column: value`, relative days dated
    context: str  # the headings above it and its label: what it stands under
    paragraph: int  # the paragraph, turn, row or item it belongs to (unique across reads)
    refers_back: bool  # it opens with a word pointing at the sentence before it
    section: str  # the nearest heading when that heading names one thing (links a section)
    heading: bool = False  # the unit is a heading itself
    under: str = ""  # the headings above it (no label): the section it is in
    forms: frozenset[str] = field(default=frozenset(), compare=False)
    names: frozenset[str] = field(default=frozenset(), compare=False)  # its own capitalised words

    @property
    def shown(self) -> str:
        """The unit as a quote shows it: what it stands under, then its words."""
        return f"{self.context} › {self.text}" if self.context else self.text


@dataclass
class _Block:
    """A paragraph, list item, table row or turn being read, with the line each piece started on."""

    pieces: list[tuple[int, str]]
    context: str
    section: str
    spelled: str = ""  # a table row's `column: value` form
    heading: bool = False
    bullet: bool = False


def units_of(
    source: str, text: str, about: str = "", first_paragraph: int = 0, first_line: int = 1
) -> list[Unit]:
    """The units of one text, in order. `about`: what the whole text answers (a tool call), the
    heading of its every unit; `first_line`: the line of `source` the text starts on."""
    units: list[Unit] = []
    text = as_markdown(source, text)  # a CSV file as a table, a JSON file's objects as `key: value` lines
    for n, block in enumerate(_records(_blocks(text, about, first_line)), start=first_paragraph):
        units += _units(source, block, n)
    return units


def _blocks(text: str, about: str, first_line: int = 1) -> Iterator[_Block]:
    headings: list[tuple[int, str]] = [(0, about)] if about else []
    header: list[str] = []
    current: _Block | None = None
    for number, raw in enumerate(text.splitlines(), start=first_line):
        line = raw.strip()
        if not line.startswith("|"):
            header = []
        if (
            not line
            or line.startswith("#")
            or line.startswith("|")
            or BULLET.match(line)
            or _LABEL.match(line)
        ):
            if current:
                yield current
            current = None
        if not line:
            continue
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            headings = [h for h in headings if h[0] < level] + [(level, line.lstrip("#").strip())]
            yield _Block(
                [(number, headings[-1][1])], _context(headings[:-1]), _section(headings[:-1]), heading=True
            )
        elif line.startswith("|"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            if TABLE_DIVIDER.fullmatch(line):
                continue
            if not header:
                header = cells
                continue
            pairs = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False))
            yield _Block([(number, line)], _context(headings), _section(headings), spelled=pairs)
        elif current is None:
            current = _Block(
                [(number, EMPHASIS.sub(r"\2", BULLET.sub("", line)))],
                _context(headings),
                _section(headings),
                bullet=bool(BULLET.match(line)),
            )
        else:
            current.pieces.append((number, EMPHASIS.sub(r"\2", line)))
    if current:
        yield current


RECORD_FIELDS = 3  # consecutive `Label: value` lines, all labels different, that make one record


def _records(blocks: Iterator[_Block]) -> Iterator[_Block]:
    """Runs of one-line `Label: value` blocks with different labels (`Commit: ...`, `Author: ...`,
    `Message: ...`) as one record, read like a table row: each field said of the same thing. A
    transcript's turns repeat their speakers, so they stay one unit each."""
    run: list[_Block] = []
    for block in [*blocks, None]:
        label = _record_label(block) if block is not None else None
        follows = bool(run) and label is not None and block is not None and _next_line(run[-1], block)
        if label is not None and (not run or follows) and label not in {_record_label(b) for b in run}:
            run.append(block)  # type: ignore[arg-type]
            continue
        yield from _merged(run)
        run = [block] if label is not None and block is not None else []
        if block is not None and label is None:
            yield block
    yield from _merged(run)


def _record_label(block: _Block | None) -> str | None:
    """A record's field name: a list item is an entry of its own, and a label holding a figure
    (`March 21:`) heads an event, not a field."""
    if block is None or block.heading or block.spelled or block.bullet or len(block.pieces) != 1:
        return None
    found = _LABEL.match(block.pieces[0][1])
    if found is None or any(ch.isdigit() for ch in found.group(1)):
        return None
    return found.group(1).lower()


def _next_line(before: _Block, block: _Block) -> bool:
    return block.pieces[0][0] == before.pieces[-1][0] + 1 and block.context == before.context


def _merged(run: list[_Block]) -> list[_Block]:
    if len(run) < RECORD_FIELDS:
        return run
    text = " ".join(piece for block in run for _, piece in block.pieces)
    spelled = "; ".join(piece.rstrip(".") for block in run for _, piece in block.pieces)
    first = run[0]
    return [_Block([(first.pieces[0][0], text)], first.context, first.section, spelled=spelled)]


def _context(headings: list[tuple[int, str]]) -> str:
    """The headings above a unit, outermost first; a heading naming several things lends only its
    other words (`Conversation between Caroline and Melanie` lends `Conversation between`)."""
    return " › ".join(
        h if level == 0 or len(_name_runs(h)) <= 1 else _without_names(h) for level, h in headings if h
    )  # level 0: what a tool's output answers (its call and arguments), said of every line


def _section(headings: list[tuple[int, str]]) -> str:
    """The nearest heading, when it names one thing: the units under it speak of that thing."""
    if not headings:
        return ""
    heading = headings[-1][1]
    return heading if len(_name_runs(heading)) == 1 else ""


def _units(source: str, block: _Block, paragraph: int) -> list[Unit]:
    if block.spelled:
        number, line = block.pieces[0]
        row = _unit(source, number, line, block.spelled, block.context, paragraph, False, block.section)
        return [replace(row, under=block.context)]
    joined, starts = "", []
    for number, piece in block.pieces:
        starts.append((len(joined) + (1 if joined else 0), number))
        joined = f"{joined} {piece}" if joined else piece
    context = block.context
    if stamp := _STAMP.match(joined):  # `[8 May, 2023] Ann: ...`: a search hit of a dated turn
        context = f"{context} › {stamp['when']}" if context else stamp["when"]
        joined = joined[stamp.end() :]
        starts = [(max(0, at - stamp.end()), line) for at, line in starts]
    label_match = _LABEL.match(joined)
    label = label_match.group(1) if label_match else ""
    dated = heading_date(context)
    out: list[Unit] = []
    offset = 0
    for n, sentence in enumerate(_sentences(joined)):
        at = joined.find(sentence, offset)
        offset = at + len(sentence)
        number = max((line for start, line in starts if start <= at), default=block.pieces[0][0])
        under = context
        if n and label and not _LABEL.match(sentence):
            under = f"{context} › {label}" if context else label
        said = resolved(sentence, dated)
        back = n > 0 and _points_back(sentence, out[-1].said if out else "")
        unit = _unit(source, number, sentence, said, under, paragraph, back, block.section)
        out.append(replace(unit, heading=block.heading, under=block.context))
    return out


def _unit(
    source: str, line: int, text: str, said: str, context: str, paragraph: int, back: bool, section: str
) -> Unit:
    addressed = _addressed(said)
    own = frozenset(
        w for name in names(said) for w in name.words if w not in FRAME | NOT_NAMES_IN_UNITS | addressed
    )
    return Unit(
        source=source,
        line=line,
        text=text,
        said=said,
        context=context,
        paragraph=paragraph,
        refers_back=back,
        section=section,
        forms=frozenset((forms(f"{context} {said}") | _doers(said)) - addressed),
        names=own,
    )


def _doers(said: str) -> set[str]:
    """A field named for who does something states the doing for its row: a column `owner` says
    its row's team owns the service, `Lead:` that the person leads (`own`, `lead`)."""
    found: set[str] = set()
    for segment in said.split(";"):
        label, colon, _ = segment.strip().partition(": ")
        if not colon:
            continue
        for word in label.lower().split():
            if len(word) >= 5 and word.endswith(("er", "or")):
                found |= {word[:-2], word[:-1]}
    return found


def _addressed(sentence: str) -> frozenset[str]:
    """The name a sentence is said to (`Thanks, Melanie!`, `..., Caroline.`), lower-cased."""
    found = set()
    for match in _VOCATIVE.finditer(_LABEL.sub("", sentence)):
        name = match.group("a") or match.group("b")
        if name and name.lower() not in FRAME:
            found.add(name.lower())
    return frozenset(found)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def _points_back(sentence: str, before: str) -> bool:
    """`It is led by ...`, `The team sits in ...` (when the sentence before speaks of a team)."""
    words = tokens(_LABEL.sub("", sentence))
    if not words:
        return False
    if words[0].lower in THIRD_PERSON_PRONOUNS:
        return True
    if words[0].lower not in POINTING_DETERMINERS or len(words) < 2:
        return False
    return words[1].lemma in forms(before) or (words[0].lower != "the" and words[1].lower in FRAME)


def _name_runs(text: str) -> list[str]:
    """Runs of capitalised words past a text's first word, months and weekdays aside."""
    runs: list[list[str]] = []
    last_end = -1
    for n, t in enumerate(tokens(text)):
        if n == 0 or not t.capitalised or t.lower in NOT_NAMES_IN_UNITS | FRAME:
            last_end = -1
            continue
        if runs and last_end >= 0 and not text[last_end : t.start].strip():
            runs[-1].append(t.text)
        else:
            runs.append([t.text])
        last_end = t.end
    return [" ".join(run) for run in runs]


def _without_names(heading: str) -> str:
    for name in _name_runs(heading):
        heading = heading.replace(name, "")
    return " ".join(heading.replace(" and ", " ").split())


__all__ = ["Unit", "units_of"]
