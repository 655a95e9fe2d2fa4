"""What an answer says for each question of the goal, and which lines read hold it.

Nothing here judges meaning. For each question part Cairn takes the answer's words for it (the
line that repeats the part; else, when the goal asks several, the clauses sharing most words
with it; else the whole answer), as the answer writes them: its first sentence, a list mark and
the part's own words at its edges aside (`The Huguenots fought under William of Orange` asked
`Under which leader did the Huguenots fight?` gives `William of Orange` when a line holds that,
else the answer's words whole). The lines holding that value are found exactly
(`exact.lines_holding`); whether they state it as the answer is the judge's call
(`cairn.tasks.verifier.seam`). A figure Cairn worked out (`1260000 / 8400 = 150`) is held by the
lines of its operands, and is proven: the arithmetic is Cairn's. An answer that says the files
do not say it is `absent` only when every source was read, a heading or a table row's first cell
names the part's subject, and no section read (the lines under one heading) holds all of the
part's content words (`structural.unstated`); else it stays the answer's word, unverified.

>>> reads = [Read("source:d/t.md", "## Team Falcon\\nTeam Falcon owns billing. Lead: Priya Nandakumar.")]
>>> [(c.value, [q.line for q in c.quotes]) for c in part_values(["Who leads Team Falcon?"],
...     "Priya Nandakumar leads it.", reads)]
[('Priya Nandakumar', [2])]
>>> [(c.value, c.why) for c in part_values(["Who leads Team Falcon?"], "Ana Ruiz, from Porto.", reads)]
[('Ana Ruiz, from Porto', 'no line read holds Ana Ruiz, from Porto')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cairn.core import Claim, PartCheck, QuotedLine
from cairn.tasks.grounding import figures
from cairn.tasks.grounding.answer_text import sentences
from cairn.tasks.grounding.lemmas import content_terms, forms, tokens
from cairn.tasks.grounding.lexicon import FRAME
from cairn.tasks.grounding.proof import NOT_STATED, answer_clauses
from cairn.tasks.grounding.reads import Read
from cairn.tasks.verifier.exact import every_line, holding
from cairn.tasks.verifier.structural import in_a_section, unstated_in
from cairn.tasks.verify.question import read_question

SAID_ABSENT = "the answer says the files do not say it"


def says_absent(check: PartCheck) -> bool:
    """The answer says the files do not say this part, and that is not shown (no `absent`)."""
    return not check.not_stated and check.why.startswith(SAID_ABSENT)


def part_values(
    parts: Sequence[str],
    answer: str,
    reads: Sequence[Read],
    *,
    exhausted: bool = False,
    computed: Sequence[Claim] = (),
) -> list[PartCheck]:
    """Each question part with the answer's value for it and the lines read holding that value,
    not yet judged (`answered` False, but for Cairn's arithmetic); `absent` where the answer says
    the files do not say it and they cannot (see the module docstring)."""
    lines = list(every_line(reads))  # read out once for every part
    return [_part(part, _said(answer, part, parts), lines, exhausted, computed) for part in parts]


def _part(
    part: str, said: str, lines: Sequence[QuotedLine], exhausted: bool, computed: Sequence[Claim]
) -> PartCheck:
    if (worked := _worked(part, computed, lines)) is not None:
        return worked
    if said_absent(said):
        if exhausted and unstated_in(part, lines):
            why = f"{NOT_STATED}: no line read holds all of {', '.join(sorted(content_terms(part)))}"
            return PartCheck(part=part, answered=False, not_stated=True, why=why)
        if not exhausted:
            why = "not every source was read"
        elif in_a_section(part, lines):
            why = "a line read holds the part's words"
        else:  # headless prose: a paraphrase holds other words (SQuAD's "this agreement")
            why = "no heading or table row read names its subject"
        return PartCheck(part=part, answered=False, why=f"{SAID_ABSENT}, but {why}")
    own = own_words(said)
    if not own:
        return PartCheck(part=part, answered=False, why="the answer gives no value for it")
    for value in dict.fromkeys([own, core(own, part)]):
        if value and (quotes := holding(value, lines)):
            return PartCheck(part=part, answered=False, value=value, quotes=quotes)
    return PartCheck(part=part, answered=False, value=own, why=f"no line read holds {own}")


def _said(answer: str, part: str, parts: Sequence[str]) -> str:
    """What the answer says of one part: its line that repeats the part; else, when the goal asks
    several, the clauses sharing most words with this part rather than another; else the whole
    answer; the parts' own words left out (a value the question names is not given by repeating it)."""
    asking = part.rstrip("?").strip().lower()
    lines = [line for line in answer.splitlines() if asking and asking in line.lower()]
    said = "\n".join(lines) if lines and len(parts) > 1 else answer
    if len(parts) > 1 and not lines:
        said = _clauses_of(answer, part, parts) or answer
    for asked in parts:  # as written, or as the deliverable writes it (`What is its budget?`)
        said = re.sub(re.escape(asked.strip().rstrip("?")) + r"\??", " ", said, flags=re.I)
    return re.sub(r"(?m)^[\s?*:-]+", "", said)


def _clauses_of(answer: str, part: str, parts: Sequence[str]) -> str:
    """The answer's clauses that share more of this part's words than of any other part's."""
    wanted = {p: content_terms(p) for p in parts}
    mine = []
    for clause in answer_clauses(answer):
        said = forms(clause)
        shares = {p: len(t & said) for p, t in wanted.items()}
        if shares[part] and shares[part] == max(shares.values()):
            mine.append(clause)
    return "; ".join(mine)


def own_words(said: str) -> str:
    """The answer's words for a part, in one line: its first sentence, without a list mark or the
    closing stop.

    >>> own_words("- Team Falcon. It owns billing.")
    'Team Falcon'
    """
    text = " ".join(said.split()).strip(" -*:")
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return first.rstrip(".").strip()


def core(value: str, part: str) -> str:
    """`value` without the words at its edges that the part already says or that carry nothing
    (a word of a name, `Team Falcon`, carries its name); "" when nothing is left beyond the part's
    own words.

    >>> core("the Huguenots fought under William of Orange", "Under which leader did the Huguenots fight?")
    'William of Orange'
    >>> core("Team Falcon owns the billing service", "Which team owns the billing service?")
    'Team Falcon'
    >>> core("they lead that team", "Who leads it?")  # a common word is no value by itself
    ''
    """
    asked = forms(part)
    words = value.split()

    def said(n: int) -> bool:  # a word the part says, or one that carries nothing
        return all(t.lower in FRAME or t.lower in asked or t.lemma in asked for t in tokens(words[n]))

    new_name = {n for run in _names(words) if not all(map(said, run)) for n in run}

    def idle(n: int) -> bool:
        return n not in new_name and said(n)

    start, end = 0, len(words)
    while start < end and idle(start):
        start += 1
    while end > start and idle(end - 1):
        end -= 1
    kept = words[start:end]
    if not kept or not content_terms(" ".join(kept)) - content_terms(part) or not _named(kept):
        return ""
    return " ".join(kept).strip(" ,;:")


def _named(words: list[str]) -> bool:
    """A name, a figure or a date: its first and last words capitalised or holding a digit (or the
    last a figure's unit), any word between them too unless it carries nothing (`William of
    Orange`, `19 January 2023`, `30 minutes`). A
    common word cut from a sentence (`team` of `they lead that team`) is none: the answer's words
    stand whole."""

    def marked(word: str) -> bool:
        return word[:1].isupper() or any(c.isdigit() for c in word)

    inner, last = words[1:-1], words[-1]
    unit = len(words) > 1 and any(c.isdigit() for c in words[-2])
    return marked(words[0]) and (marked(last) or unit) and all(marked(w) or w.lower() in FRAME for w in inner)


def _names(words: list[str]) -> list[list[int]]:
    """The runs of two or more capitalised words (`Team Falcon`, `Door Dash`), as word indices."""
    runs: list[list[int]] = [[]]
    for n, word in enumerate(words):
        if word[:1].isupper():
            runs[-1].append(n)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if len(run) > 1]


def said_absent(said: str) -> bool:
    """Whether the answer says the files do not give it (in Cairn's words)."""
    return NOT_STATED.lower() in said.lower()


def _worked(part: str, computed: Sequence[Claim], read: Sequence[QuotedLine]) -> PartCheck | None:
    """A figure of the asked unit that Cairn computed, held by the lines of its operands when
    together they hold the part's words (the unit's own aside)."""
    asked = read_question(part)
    if asked.unit is None or asked.wh not in ("howmany", "howadj"):
        return None
    for claim in computed:
        stated = figures.figures(claim.text)
        if not stated or stated[0].unit not in (asked.unit, None):
            continue
        operands = figures.figures(claim.where.rpartition(" = ")[0])
        lines = [next(iter(_stating(f, read)), None) for f in operands]
        quotes = [q for q in lines if q is not None]
        # What the operands' own sentences say (`the reservoir holds 1,260,000 cubic metres of
        # usable water`), not the sentence after it on the line (`90,000 cubic metres of dead storage`)
        said = [_sentence_stating(f, q) for f, q in zip(operands, lines, strict=True) if q is not None]
        held = set().union(*(forms(f"{q.context} {text}") for q, text in zip(quotes, said, strict=True)))
        wanted = {t for t in asked.terms if t != asked.head and not t.isdigit()}
        if quotes and len(quotes) == len(operands) and wanted <= held | {asked.unit}:
            value = f"{claim.text} ({claim.where})"  # Cairn's own arithmetic over quoted figures: proven
            quoted = list(dict.fromkeys(quotes))
            return PartCheck(part=part, answered=True, value=value, quotes=quoted, judge="cairn (arithmetic)")
    return None


def _sentence_stating(figure: figures.Figure, quote: QuotedLine) -> str:
    for sentence in sentences(quote.text):
        if any(figures.same_value(f.value, figure.value) for f in figures.figures(sentence)):
            return sentence
    return quote.text


def _stating(figure: figures.Figure, lines: Sequence[QuotedLine]) -> list[QuotedLine]:
    return [
        q for q in lines if any(figures.same_value(f.value, figure.value) for f in figures.figures(q.text))
    ]


__all__ = ["own_words", "part_values", "said_absent"]
