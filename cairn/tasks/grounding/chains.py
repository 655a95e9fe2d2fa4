"""Quote chains: the lines read that together state what a part asks, and the value they give.

A chain starts at the line that answers: it states the part's attribute and its names (itself,
or with the sentences it points back to: `It is led by Tomasz Wierzbicki.` after `Team Kestrel
owns the data platform.`), and holds a value of the kind asked. When the part's subject is
described rather than named (`the team that owns the search gateway`), up to two more lines may
state the rest of it, each linked to the chain: under the same heading that names one thing
(`## Team Heron`), or sharing a rare word that is not one of the part's own (`recommendations`,
in at most `RARE` paragraphs). A word shared by many lines (a speaker's name) links nothing.

>>> from cairn.tasks.grounding.asked import parse
>>> from cairn.tasks.grounding.units import units_of
>>> text = "## Team Kestrel\\nTeam Kestrel owns the data platform. It is led by Tomasz Wierzbicki."
>>> index = UnitIndex(units_of("t.md", text))
>>> [c.value.text for c in index.chains(parse("Who leads the team that owns the data platform?"))]
['Tomasz Wierzbicki']
>>> index.chains(parse("Which office does Team Kestrel sit in?"))
[]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cairn.tasks.grounding.answer_values import Value, value_in
from cairn.tasks.grounding.asked import Asked
from cairn.tasks.grounding.lemmas import content_terms, tokens
from cairn.tasks.grounding.lexicon import FRAME
from cairn.tasks.grounding.units import Unit

RARE = 3  # a word in at most this many paragraphs can link two lines
HOPS = 2  # lines a chain may add, past the one that answers, to state the rest of the subject


@dataclass(frozen=True)
class Chain:
    """The lines that state a part's answer (the answering line first), and the value they give."""

    units: tuple[Unit, ...]
    value: Value

    @property
    def hops(self) -> int:
        return len({u.paragraph for u in self.units}) - 1


class UnitIndex:
    """Everything a task read, as units, indexed by the forms of their words."""

    def __init__(self, units: Iterable[Unit]) -> None:
        self.units: list[Unit] = list(units)
        self._by_form: dict[str, list[int]] = defaultdict(list)
        self._by_section: dict[tuple[str, str], list[int]] = defaultdict(list)
        paragraphs: dict[str, set[int]] = defaultdict(set)
        self._own = [_own_words(unit) for unit in self.units]
        for n, unit in enumerate(self.units):
            for form in unit.forms:
                self._by_form[form].append(n)
            if unit.section:
                self._by_section[(unit.source, unit.section)].append(n)
            for word in self._own[n]:
                paragraphs[word].add(unit.paragraph)
        self._rare = {word for word, where in paragraphs.items() if len(where) <= RARE}
        lower = {t.text for unit in self.units for t in tokens(unit.said) if t.text.islower()}
        self.known = frozenset(w for unit in self.units for w in _inner_capitals(unit.said) if w not in lower)
        self._position = {id(unit): n for n, unit in enumerate(self.units)}

    def __bool__(self) -> bool:
        return bool(self.units)

    def holding(self, terms: Iterable[str]) -> list[Unit]:
        """The units that hold at least one of `terms`."""
        found = sorted({n for t in terms for n in self._by_form.get(t, [])})
        return [self.units[n] for n in found]

    def group(self, unit: Unit) -> list[Unit]:
        """The unit and the sentences it points back to, nearest first."""
        found = [unit]
        n = self._position[id(unit)]
        while found[-1].refers_back and n > 0 and self.units[n - 1].paragraph == unit.paragraph:
            n -= 1
            found.append(self.units[n])
        return found

    def chains(self, asked: Asked) -> list[Chain]:
        """Every chain stating `asked` with the fewest lines: each answering line's shortest."""
        found: list[Chain] = []
        wanted = asked.attribute
        for unit in self.holding(wanted - asked.names or asked.names):
            group = self.group(unit)
            if not wanted <= _forms(group):
                continue
            value = value_in(unit, asked, self.known)
            if value is None:
                continue
            rest = asked.terms - _forms(group)
            path = [group] if not rest else self._linked(group, rest, asked.terms)
            if path is not None:
                found.append(Chain(tuple(u for g in path for u in g), value))
        fewest = min((c.hops for c in found), default=0)
        return [c for c in found if c.hops == fewest]

    def _linked(
        self, start: list[Unit], rest: frozenset[str], own: frozenset[str]
    ) -> list[list[Unit]] | None:
        """The shortest path of groups from `start` whose lines state `rest` (breadth first)."""
        frontier: list[tuple[list[list[Unit]], frozenset[str]]] = [([start], rest)]
        for _ in range(HOPS):
            following = []
            for path, missing in frontier:
                for group in self._neighbours(path[-1], own, path):
                    left = missing - _forms(group)
                    if left == missing:
                        continue
                    if not left:
                        return [*path, group]
                    following.append(([*path, group], left))
            frontier = following
        return None

    def _neighbours(
        self, group: Sequence[Unit], own: frozenset[str], path: list[list[Unit]]
    ) -> list[list[Unit]]:
        seen = {id(u) for g in path for u in g}
        found: dict[int, list[Unit]] = {}
        for unit in group:
            linked = [self.units[n] for n in self._by_section.get((unit.source, unit.section), [])]
            for word in (self._own[self._position[id(unit)]] & self._rare) - own:
                linked += [self.units[n] for n in self._by_form.get(word, []) if word in self._own[n]]
            for other in linked:
                if id(other) not in seen and other.paragraph != unit.paragraph:
                    found.setdefault(id(other), self.group(other))
        return list(found.values())


def _forms(group: Iterable[Unit]) -> frozenset[str]:
    return frozenset().union(*(u.forms for u in group))


def _inner_capitals(sentence: str) -> set[str]:
    """Words written capitalised past a sentence's first word (and past its `Name:` label)."""
    found = tokens(sentence)
    label = sentence.find(": ")
    return {
        t.lower
        for n, t in enumerate(found)
        if n
        and t.capitalised
        and t.lower not in FRAME
        and not (label > 0 and sentence[label + 2 :].startswith(t.text))
    }


def _own_words(unit: Unit) -> frozenset[str]:
    """The words a unit can link by: its own names and content words (not its headings')."""
    return frozenset(content_terms(unit.said)) | unit.names - FRAME


__all__ = ["HOPS", "RARE", "Chain", "UnitIndex"]
