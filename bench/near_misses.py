"""Near misses: questions that no line of the sources answers, made from questions that one does.

Three kinds, each derived from the question's own words and the sources' text (no word lists
beyond English function words):

- `attribute`: one content term that is not the subject (what the question asks of it: "office",
  "leads", "p95") becomes a word of the sources that no line mentioning the subject holds;
- `subject`: the subject (a proper name, or the word before a head noun: "billing" in "the billing
  service") becomes another of its kind in the sources (a name of the same shape, another word
  seen before the same head noun, the conversation's other speaker) about which no line holds the
  question's other content terms;
- `removed`: the question unchanged, over sources without the line(s) that answer it (written by
  the suites in `bench/agent_suites/near.py`).

Each swap keeps every content term of the question but one, and the new word occurs in the
sources. A kind that no candidate fits is skipped, with the reason. Seeded: the same seed, task
and kind always give the same question. What "no line states it" misses (a pronoun, a paraphrase,
a fact told across two lines) is in `bench/agent_tasks/README.md`.

    python bench/near_misses.py --suite house
    python bench/near_misses.py --suite locomo --limit 20 --kinds subject
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from source_lines import WORD, Line, is_content, lemma, lines, terms

Kind = Literal["attribute", "subject", "removed"]
KINDS: tuple[Kind, ...] = ("attribute", "subject", "removed")
_OPENERS = '.!?:|"“(['  # a word right after one of these starts a sentence: its capital says nothing
# The function words that tell a noun ("the X", "its X") from a verb ("to X", "they X", "X the").
_VERB_RIGHT = "a an the its their his her my our your"
_NOUN_LEFT = f"{_VERB_RIGHT} this that these those each every any some no another which what whose"
_VERB_LEFT = "i you he she it we they who to will would can could should may might must not also"
DETERMINERS = frozenset(_NOUN_LEFT.split())
VERB_LEFT = frozenset(_VERB_LEFT.split())
ARTICLES = frozenset(_VERB_RIGHT.split())  # "X the": a verb ("that", "which" after a noun are not)
DO = frozenset({"do", "does", "did"})


@dataclass(frozen=True)
class NearMiss:
    """A question no line answers, made from `original` by swapping `old` for `new` (or, kind
    `removed`, over sources without the answering lines)."""

    kind: Kind
    question: str
    original: str
    old: str | None = None
    new: str | None = None


@dataclass(frozen=True)
class Skipped:
    """A kind that could not be made for a question, and why."""

    kind: Kind
    original: str
    why: str


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    initial: bool  # first of its sentence (or cell, or turn)
    joined: bool  # only spaces since the token before it

    @property
    def lemma(self) -> str:
        return lemma(self.text)

    @property
    def content(self) -> bool:
        return is_content(self.text)

    @property
    def capital(self) -> bool:
        return self.text[:1].isupper()


def tokens(text: str) -> list[Token]:
    """The words of a text, each knowing whether it opens a sentence and touches the one before.

    >>> [(t.text, t.initial) for t in tokens("Who leads Team Falcon?")]
    [('Who', True), ('leads', False), ('Team', False), ('Falcon', False)]
    """
    found: list[Token] = []
    end = 0
    for match in WORD.finditer(text):
        gap = text[end : match.start()]
        before = text[: match.start()].rstrip()
        initial = not before or before[-1] in _OPENERS
        found.append(
            Token(match.group(), match.start(), match.end(), initial, bool(found) and not gap.strip())
        )
        end = match.end()
    return found


@dataclass
class _Word:
    lemma: str
    lower: bool = False  # seen starting with a small letter (a common word, not only a name)
    before: set[str] = field(default_factory=set)
    after: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Corpus:
    """What the generator reads of the sources: their lines, words and names."""

    lines: tuple[Line, ...]
    terms: tuple[frozenset[str], ...]
    words: dict[str, _Word]  # by lowercase surface form
    heads: dict[str, set[str]]  # head noun's lemma -> the words seen right before it
    spans: frozenset[tuple[str, ...]]  # runs of capitalised words
    capitals: frozenset[str]  # words seen capitalised inside a sentence: names
    speakers: tuple[str, ...] = ()

    def mentioning(self, term: str) -> list[frozenset[str]]:
        """The terms of each line that mentions `term`."""
        return [t for t in self.terms if term in t]


def corpus(texts: Iterable[str], speakers: Sequence[str] = ()) -> Corpus:
    """Read the sources once.

    >>> c = corpus(["## Team Ada\\n\\nTeam Ada owns the billing service and the search service.\\n"])
    >>> sorted(c.heads["service"]), ("Team", "Ada") in c.spans
    (['billing', 'search'], True)
    """
    found = [line for text in texts for line in lines(text)]
    words: dict[str, _Word] = {}
    heads: dict[str, set[str]] = {}
    spans: set[tuple[str, ...]] = set()
    capitals: set[str] = set()
    for line in found:
        toks = tokens(line.own)
        for prev, tok in zip([None, *toks], toks, strict=False):
            _read_word(words, heads, capitals, prev, tok)
        spans.update(_runs(toks))
    return Corpus(
        lines=tuple(found),
        terms=tuple(line.terms for line in found),
        words=words,
        heads=heads,
        spans=frozenset(spans),
        capitals=frozenset(capitals),
        speakers=tuple(speakers),
    )


def _read_word(
    words: dict[str, _Word], heads: dict[str, set[str]], capitals: set[str], prev: Token | None, tok: Token
) -> None:
    word = words.setdefault(tok.text.lower(), _Word(tok.lemma))
    word.lower |= not tok.capital
    if tok.capital and not tok.initial:
        capitals.add(tok.text.lower())
    if prev is None or not tok.joined:
        return
    word.before.add(prev.text.lower())
    words[prev.text.lower()].after.add(tok.text.lower())
    if prev.content and tok.content and not prev.capital and not prev.text.isdigit():
        heads.setdefault(tok.lemma, set()).add(prev.text.lower())


def _runs(toks: list[Token]) -> list[tuple[str, ...]]:
    """Runs of touching capitalised content words: "Team Falcon", "Priya Nandakumar"."""
    runs: list[list[str]] = []
    last = -2  # the index of the token that ended the last run
    for i, tok in enumerate(toks):
        if not (tok.capital and tok.content):
            continue
        if runs and last == i - 1 and tok.joined:
            runs[-1].append(tok.text)
        else:
            runs.append([tok.text])
        last = i
    return [tuple(run) for run in runs]


@dataclass(frozen=True)
class Subject:
    """Who or what a question asks about: token positions, the one to swap, and how it was found."""

    span: tuple[int, ...]
    key: int
    how: Literal["speaker", "name", "slot"]
    head: int | None = None  # the head noun after a slot word ("service" after "billing")


def subject(question: str, corpus: Corpus) -> Subject | None:
    """The question's subject: a proper name (a speaker's first), else the word before a head noun
    that the sources show with other words before it (the head with the most such words).

    >>> c = corpus(["Team Ada owns the billing service. Bo runs the search service."])
    >>> q = tokens("Which team owns the billing service?")
    >>> q[subject("Which team owns the billing service?", c).key].text
    'billing'
    """
    toks = tokens(question)
    names = _names(toks, corpus)
    speakers = {lemma(s) for s in corpus.speakers}
    if names:
        span = min(names, key=lambda run: not any(toks[i].lemma in speakers for i in run))  # a speaker first
        rarest = min(reversed(span), key=lambda i: sum(toks[i].lemma in t for t in corpus.terms))
        how: Literal["speaker", "name"] = "speaker" if toks[rarest].lemma in speakers else "name"
        return Subject(span=span, key=rarest, how=how)
    slots = [i for i in range(len(toks) - 1) if _slot(toks[i], toks[i + 1], corpus)]
    if not slots:
        return None
    # The head seen with the most words before it names a kind ("service"); the last on a tie.
    i = max(reversed(slots), key=lambda n: len(corpus.heads[toks[n + 1].lemma]))
    return Subject(span=(i,), key=i, how="slot", head=i + 1)


def _slot(word: Token, head: Token, corpus: Corpus) -> bool:
    """`word` names one of a kind that `head` is: the sources show other words before `head`."""
    fits = word.content and head.content and head.joined and not word.capital
    plain = fits and not any(c.isdigit() for c in word.text)
    return plain and bool(corpus.heads.get(head.lemma, set()) - {word.text.lower()})


def _names(toks: list[Token], corpus: Corpus) -> list[tuple[int, ...]]:
    """The question's proper names: touching capitalised content words, one of them name-like."""
    named = corpus.capitals | {t.text.lower() for t in toks if t.capital and not t.initial}
    named |= {s.lower() for s in corpus.speakers}
    runs: list[list[int]] = []
    for i, tok in enumerate(toks):
        if tok.capital and tok.content and (not tok.initial or tok.text.lower() in named):
            if runs and runs[-1][-1] == i - 1 and tok.joined:
                runs[-1].append(i)
            else:
                runs.append([i])
    return [tuple(run) for run in runs if any(toks[i].text.lower() in named for i in run)]


def swap(question: str, old: str, new: str) -> str:
    """Every word of `question` whose lemma is `old`'s becomes `new` (a possessive kept).

    >>> swap("Did Ann see Ann's aunt?", "Ann", "Bo")
    "Did Bo see Bo's aunt?"
    """
    out, end = [], 0
    for tok in tokens(question):
        if tok.lemma == lemma(old):
            tail = tok.text[len(_base(tok.text)) :]
            word = new[:1].upper() + new[1:] if tok.initial and tok.capital else new
            out += [question[end : tok.start], word + tail]
            end = tok.end
    return "".join([*out, question[end:]])


def _base(word: str) -> str:
    """A word without its possessive or contraction: "John's" is "John"."""
    return word.replace("’", "'").split("'")[0]


def keeps_all_but_one(original: str, changed: str) -> bool:
    """The changed question has every content term of the original but one, and one new.

    >>> keeps_all_but_one("Who leads Team Falcon?", "Who leads Team Heron?")
    True
    """
    before, after = terms(original), terms(changed)
    return len(before - after) == 1 and len(after - before) == 1


def make(question: str, corpus: Corpus, kind: Kind, rng: random.Random) -> NearMiss | Skipped:
    """One near miss of `kind` (attribute or subject), or why none could be made."""
    if not question.rstrip().endswith("?"):
        return Skipped(kind, question, "not a question")
    found = subject(question, corpus)
    if found is None:
        return Skipped(kind, question, "no subject found")
    pick = _attribute if kind == "attribute" else _subject
    made = pick(question, corpus, found, rng)
    return made or Skipped(kind, question, f"no {kind} candidate passes the rules")


def _attribute(question: str, corpus: Corpus, found: Subject, rng: random.Random) -> NearMiss | None:
    toks = tokens(question)
    about = frozenset().union(*corpus.mentioning(toks[found.key].lemma)) | terms(question)
    taken = {*found.span, found.head, _named_head(toks, found)}
    options: list[tuple[Token, list[str]]] = []
    for i, tok in enumerate(toks):
        if i in taken or not tok.content or tok.capital:
            continue
        fits = [w for w in _attribute_words(toks, i, found, corpus, about) if _fits(question, tok.text, w)]
        if fits:
            options.append((tok, fits))
    if not options:
        return None
    tok, fits = rng.choice(options)
    new = rng.choice(fits)
    return NearMiss("attribute", swap(question, tok.text, new), question, _base(tok.text), new)


def _named_head(toks: list[Token], found: Subject) -> int | None:
    """The noun a name qualifies ("reservoir" in "the Alder Creek reservoir"): part of the subject,
    not something asked of it (after a possessive it is: "Caroline's *kids*")."""
    after = max(found.span) + 1
    if found.how == "slot" or after >= len(toks) or "'" in toks[after - 1].text.replace("’", "'"):
        return None
    head = toks[after]
    return after if head.joined and head.content and not head.capital else None


def _attribute_words(
    toks: list[Token], i: int, found: Subject, corpus: Corpus, about: frozenset[str]
) -> list[str]:
    """Words of the sources that could stand where `toks[i]` does and that no line about the
    subject holds: the same shape and, as far as the words beside them tell, the same part of
    speech; the best fitting first."""
    target = toks[i]
    shape, role = _shape(target.text), _question_role(toks, i, found)
    left = toks[i - 1].text.lower() if i else ""
    right = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    scored: dict[tuple[bool, bool, int], list[str]] = {}
    for surface, word in sorted(corpus.words.items()):
        if not word.lower or word.lemma in about or not is_content(surface) or len(surface) < 3:
            continue
        if _shape(surface) != shape:
            continue
        roles = _roles(word.before, word.after)
        agrees = role is not None and role in roles
        beside = (left in word.before) + (right in word.after)
        if agrees or (role is None and beside):  # a word that fits by nothing is noise
            scored.setdefault((agrees, roles == {role}, beside), []).append(surface)
    return scored[max(scored)] if scored else []


def _roles(before: Iterable[str], after: Iterable[str]) -> set[str]:
    """Noun and/or verb, as the function words beside a word show it: "the X" is a noun, "to X",
    "they X" and "X the" are verbs."""
    roles = set()
    if any(w in DETERMINERS or w.isdigit() for w in before):
        roles.add("noun")
    if any(w in VERB_LEFT for w in before) or any(w in ARTICLES for w in after):
        roles.add("verb")
    return roles


def _question_role(toks: list[Token], i: int, found: Subject) -> str | None:
    """What `toks[i]` is in the question: a noun, a verb, or unknown (None). After "does/did" and
    the subject, a bare word is the verb: "Which office does Team Osprey *sit* in?"."""
    before = [toks[i - 1].text.lower()] if i else []
    after = [toks[i + 1].text.lower()] if i + 1 < len(toks) else []
    roles = _roles(before, after)
    asked = any(t.text.lower() in DO for t in toks[:i])
    if asked and i - 1 in found.span and _shape(toks[i].text)[1] == "":
        roles.add("verb")
    return roles.pop() if len(roles) == 1 else None


def _shape(word: str) -> tuple[str, str]:
    """A word's kind (its runs of letters and digits: a word, a number, a code like "p95") and
    inflection (plural or 3rd person, -ing, past): a swap keeps both, so the question still reads.

    >>> _shape("p95"), _shape("95th"), _shape("leads"), _shape("went")
    (('a9', ''), ('9a', ''), ('a', 's'), ('a', 'ed'))
    """
    kind = re.sub(r"[0-9]+", "9", re.sub(r"[A-Za-z]+", "a", word))  # "p95": "a9", "95th": "9a"
    low = word.lower()
    if kind != "a" or lemma(low) == low:
        return kind, ""
    for ending in ("ing", "ed", "s"):
        if low.endswith(ending):
            return kind, "ed" if ending == "ed" else ending
    return kind, "ed"  # an irregular form ("went", "led"): a past, mostly


def _subject(question: str, corpus: Corpus, found: Subject, rng: random.Random) -> NearMiss | None:
    toks = tokens(question)
    old = toks[found.key]
    others = terms(question) - {old.lemma}
    together = found.how != "speaker"
    fits = [
        new
        for new in _subject_words(toks, found, corpus)
        if not _states_about(corpus, lemma(new), others, together) and _fits(question, old.text, new)
    ]
    if not fits:
        return None
    new = rng.choice(fits)
    return NearMiss("subject", swap(question, old.text, new), question, _base(old.text), new)


def _subject_words(toks: list[Token], found: Subject, corpus: Corpus) -> list[str]:
    """Others of the subject's kind in the sources, in a stable order."""
    old = toks[found.key]
    if found.how == "speaker":
        return sorted(s for s in corpus.speakers if lemma(s) != old.lemma)
    if found.how == "slot":
        assert found.head is not None
        return sorted(corpus.heads.get(toks[found.head].lemma, set()) - {old.text.lower()})
    pattern = [toks[i].text.lower() for i in found.span]
    at = found.span.index(found.key)
    names = set()
    for span in corpus.spans:
        same = len(span) == len(pattern) and all(
            w.lower() == p for n, (w, p) in enumerate(zip(span, pattern, strict=True)) if n != at
        )
        if same and span[at].lower() != pattern[at] and span[at].lower() in corpus.capitals:
            names.add(span[at])
    if len(pattern) == 1:  # a lone name: one seen beside the same words
        seen = corpus.words.get(pattern[0])
        names = {
            n
            for n in names
            if seen
            and (corpus.words[n.lower()].before & seen.before or corpus.words[n.lower()].after & seen.after)
        }
    return sorted(names)


def _states_about(corpus: Corpus, who: str, others: frozenset[str], together: bool) -> bool:
    """Whether a line mentioning `who` holds all of `others` (`together`: the lines mentioning it,
    taken together): then the sources may state the fact.

    Together, for a name or a slot word: its lines are the few about it, and a fact about it may
    be told across two of them (a team page names the service, a table row gives its budget). A
    speaker is in every line they say, so their lines together hold nearly every word: one line."""
    lines = corpus.mentioning(who)
    if together:
        return others <= frozenset().union(*lines)
    return any(others <= line for line in lines)


def _fits(question: str, old: str, new: str) -> bool:
    return lemma(new) not in terms(question) and keeps_all_but_one(question, swap(question, old, new))


def rng_for(seed: int, name: str, kind: Kind) -> random.Random:
    """One generator per seed, task and kind: a question made alone is the one made in a batch."""
    return random.Random(f"{seed}/{name}/{kind}")


def tally(made: Sequence[NearMiss | Skipped]) -> dict[str, dict[str, int]]:
    """Made and skipped, per kind.

    >>> tally([Skipped("subject", "q?", "no subject found")])
    {'subject': {'made': 0, 'skipped': 1}}
    """
    counts = Counter((m.kind, isinstance(m, NearMiss)) for m in made)
    kinds = sorted({m.kind for m in made}, key=KINDS.index)
    return {k: {"made": counts[(k, True)], "skipped": counts[(k, False)]} for k in kinds}


def main(argv: list[str] | None = None) -> None:
    from agent_suites import near
    from rich.console import Console
    from rich.table import Table

    parser = argparse.ArgumentParser(description="The near misses of a suite's questions, as a table.")
    parser.add_argument("--suite", choices=("house", "locomo"), default="house")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    kinds = near.kinds(args.kinds)
    made = near.generated(args.suite, args.limit, args.offset, args.seed, kinds)
    rows = [(name, m) for name, m in made]
    if args.json:
        print(json.dumps({"counts": tally([m for _, m in rows]), "rows": [_row(n, m) for n, m in rows]}))
        return
    table = Table(title=f"near misses · {args.suite} · seed {args.seed}", title_justify="left")
    for col in ("task", "kind", "original", "near miss", "swapped"):
        table.add_column(col, overflow="fold")
    for name, m in rows:
        row = _row(name, m)
        table.add_row(
            name, m.kind, m.original, row["near_miss"] or f"[dim]skipped: {row['why']}[/]", row["swapped"]
        )
    console = Console(width=200)
    console.print(table)
    console.print(tally([m for _, m in rows]))


def _row(name: str, m: NearMiss | Skipped) -> dict[str, str | None]:
    row: dict[str, str | None] = {"task": name, "kind": m.kind, "original": m.original}
    if isinstance(m, Skipped):
        return row | {"near_miss": None, "swapped": "", "why": m.why}
    return row | {"near_miss": m.question, "swapped": f"{m.old} → {m.new}" if m.old else "", "why": None}


if __name__ == "__main__":
    # Run as the module `near_misses`, the one the suites import: one class per dataclass.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import near_misses

    near_misses.main()
