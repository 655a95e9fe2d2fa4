"""What a task read, as the verifier sees it: each unit's words and forms, the forms of what it
stands under (its headings, its label, the sentence before it in its paragraph), its paragraph's
forms, how rare each word is across what was read, and an index from forms to units.

>>> from cairn.tasks.grounding.units import units_of
>>> read = Corpus(units_of("source:d/t.md", "## Team Falcon\\nTeam Falcon owns billing. It is led by Priya."))
>>> [read.sentences[n].unit.text for n in read.holding(["lead"])]  # the heading: its section says it
['Team Falcon', 'It is led by Priya.']
>>> "falcon" in read.sentences[2].around, read.rarity("priya") > read.rarity("falcon")
(True, True)
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np
import numpy.typing as npt

from cairn.memory.embed.static_embedding import StaticEmbedder
from cairn.tasks.grounding.units import Unit
from cairn.tasks.verify.tokens import Word, forms_of, negated, words


@dataclass(frozen=True)
class Sentence:
    """One unit read, with the forms a question's words are looked for in."""

    unit: Unit
    words: tuple[Word, ...]  # of what the unit says (a table row spelled `column: value`)
    forms: frozenset[str]
    around: frozenset[str]  # its headings and label, and the sentence before it in its paragraph
    paragraph: frozenset[str]  # every form of its paragraph
    negated: bool


class Corpus:
    """Every unit read, indexed for the reader (see the module docstring)."""

    def __init__(self, units: Iterable[Unit]) -> None:
        listed = list(units)
        said = [tuple(words(u.said)) for u in listed]
        by_paragraph: dict[int, set[str]] = defaultdict(set)
        for unit, found in zip(listed, said, strict=True):
            by_paragraph[unit.paragraph] |= forms_of(found)
        sections = _sections(listed, said)
        self.sentences: list[Sentence] = []
        for n, (unit, found) in enumerate(zip(listed, said, strict=True)):
            before = said[n - 1] if n and listed[n - 1].paragraph == unit.paragraph else ()
            around = forms_of(words(unit.context)) | forms_of(before) | sections.get(n, set())
            paragraph = frozenset(by_paragraph[unit.paragraph])
            self.sentences.append(
                Sentence(
                    unit, found, frozenset(forms_of(found)), frozenset(around), paragraph, negated(found)
                )
            )
        self._by_form: dict[str, list[int]] = defaultdict(list)
        counts: Counter[str] = Counter()
        for n, sentence in enumerate(self.sentences):
            for form in sentence.forms | sentence.around:  # `Lead: Priya` under `## Team Falcon`
                self._by_form[form].append(n)
            counts.update({w.lemma for w in sentence.words if w.content})
        self._counts = counts
        self.forms: frozenset[str] = frozenset(self._by_form)

    def __len__(self) -> int:
        return len(self.sentences)

    def rarity(self, term: str) -> float:
        """How rare a term is across what was read (inverse sentence frequency, smoothed): a
        service's name counts for more than `service`."""
        return math.log((len(self.sentences) + 1) / (self._counts.get(term, 0) + 0.5))

    def holding(self, terms: Iterable[str]) -> list[int]:
        """The sentences holding at least one of `terms` (themselves or in what they stand
        under), in reading order."""
        return sorted({n for t in terms for n in self._by_form.get(t, ())})

    @cached_property
    def vectors(self) -> npt.NDArray[np.float32]:
        """Each sentence's embedding (Cairn's own static embedder), computed once."""
        return embed([s.unit.said for s in self.sentences])


SECTION_LINES = 4  # the lines under a heading that tell what it names (`## Team Falcon` › `Owns billing.`)


def _sections(units: list[Unit], said: list[tuple[Word, ...]]) -> dict[int, set[str]]:
    """A heading's own section, as words around it: the first lines standing under it, so that a
    question answered by the heading's name (`Which team owns billing?`) finds it."""
    found: dict[int, set[str]] = {}
    for n, unit in enumerate(units):
        if not unit.heading:
            continue
        inside = f"{unit.under} › {unit.text}" if unit.under else unit.text
        lines = [
            m
            for m in range(n + 1, min(len(units), n + 1 + SECTION_LINES))
            if units[m].source == unit.source and not units[m].heading and units[m].under == inside
        ]
        found[n] = set().union(*(forms_of(said[m]) for m in lines)) if lines else set()
    return found


def embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    """Unit-length vectors of `texts` from the embedder Cairn ships."""
    return _embedder().embed(list(texts)) if texts else np.zeros((0, 384), dtype=np.float32)


@cache
def _embedder() -> StaticEmbedder:
    return StaticEmbedder()  # its table is read once per process


__all__ = ["Corpus", "Sentence", "embed"]
