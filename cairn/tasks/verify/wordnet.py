"""WordNet's antonyms, derived word forms and synonyms, read from a table that ships with Cairn.

The answer verifier asks how two words relate: the same word in another form (own / owner,
govern / government), a near synonym (large / big) or an opposite (increase / decrease). The table
`data/wordnet.json.gz` was built once from Princeton WordNet 3.0 by `bench/wordnet_tables.py`;
`data/NOTICE.md` says how, and carries WordNet's license. Nothing here needs NLTK or WordNet.

Words are lower-case single-word lemmas (no spaces, hyphens or digits); a word the table does not
hold has no related words. No inflection is undone here: "owners" is not "owner".

- `antonyms`: WordNet's antonym pointers between lemmas, over all senses, both ways.
- `derived`: derivationally related forms and pertainyms, over all senses, both ways, and a
  lemma's morphological base (increased / increase).
- `synonyms`: cautious: the other lemmas of the word's two most frequent senses per part of speech,
  from synsets of at most 8 lemmas. One way: `related` looks both ways.

>>> "decrease" in antonyms("increase")
True
>>> "owner" in derived("own"), "government" in derived("govern")
(True, True)
>>> "big" in synonyms("large")
True
>>> related("leader", "Lead"), related("large", "big"), related("large", "small"), related("own", "big")
('derived', 'synonym', 'antonym', None)
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Literal, TypeAlias

Relation: TypeAlias = Literal["same", "derived", "synonym", "antonym"]

DATA = "wordnet.json.gz"  # in the folder `data` beside this module, with NOTICE.md
_EMPTY: frozenset[str] = frozenset()


@cache
def _table() -> dict[str, dict[str, str]]:
    """Relation -> word -> its related words joined by spaces; read once per process (~0.1 s)."""
    packed = (Path(__file__).resolve().parent / "data" / DATA).read_bytes()
    data = json.loads(gzip.decompress(packed))
    return {name: data[name] for name in ("antonyms", "derived", "synonyms")}


def _related(relation: str, word: str) -> frozenset[str]:
    words = _table()[relation].get(word.lower())
    return frozenset(words.split(" ")) if words else _EMPTY


def antonyms(word: str) -> frozenset[str]:
    """The word's antonyms (WordNet's, over all its senses); empty for a word the table lacks."""
    return _related("antonyms", word)


def derived(word: str) -> frozenset[str]:
    """Forms derived from the word or it from them (own: owned, owner), pertainyms, its base."""
    return _related("derived", word)


def synonyms(word: str) -> frozenset[str]:
    """The other words of its two most frequent senses per part of speech (small synsets only)."""
    return _related("synonyms", word)


def related(a: str, b: str) -> Relation | None:
    """The closest relation between two words: same, then derived, synonym, antonym; else None.

    Case is ignored, and each relation is looked up both ways (synonyms are stored one way).
    """
    a, b = a.lower(), b.lower()
    if a == b:
        return "same"
    if b in derived(a) or a in derived(b):
        return "derived"
    if b in synonyms(a) or a in synonyms(b):
        return "synonym"
    if b in antonyms(a) or a in antonyms(b):
        return "antonym"
    return None
