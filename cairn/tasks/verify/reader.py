"""The reader: the values the sentences read could give as the answer, ranked by the fitted ranker.

It looks at the sentences that share the question's words (with what they stand under), best
few first, takes every candidate value of each (`spans`), and scores it with the ranker: how
likely this value is the answer if the question has one. Whether it is, is the verifier's call
(`cairn.tasks.verify.decision`).

>>> from cairn.tasks.grounding.units import units_of
>>> from cairn.tasks.verify.model import load_verifier
>>> from cairn.tasks.verify.question import read_question
>>> read = Corpus(units_of("source:d/a.md", "The Normans gave their name to Normandy, a region in France."))
>>> asking = Asking.of(read_question("In what country is Normandy located?"), read)
>>> candidates(asking, read, load_verifier().ranker)[0].text
'France'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cairn.tasks.grounding.figures import UNITS
from cairn.tasks.verify.corpus import Corpus, Sentence, embed
from cairn.tasks.verify.features import Asking, Features, label_units, sentence_features, span_features
from cairn.tasks.verify.model import Logistic
from cairn.tasks.verify.spans import Shape, Span, shape, spans, text_of

SENTENCES = 5  # sentences read closely per question
RETRIEVAL_MEANING = 0.3  # how much closeness in meaning adds to shared words when choosing them
_SENTENCE_INPUTS = ("cov_s", "cov_ctx", "emb_qs", "miss_names_s")  # what the ranker sees of a sentence


@dataclass(frozen=True)
class Candidate:
    """A value a sentence gives, where it is, and how the ranker scores it."""

    text: str
    sentence: int  # in `Corpus.sentences`
    span: Span
    shape: Shape
    features: Features  # the ranker's inputs
    score: float  # the ranker's probability

    @property
    def key(self) -> str:
        """How two candidates compare: `the Lisbon office` and `Lisbon Office` are one."""
        return " ".join(self.text.lower().split())


def chosen_sentences(asking: Asking, read: Corpus, among: Sequence[int] | None = None) -> list[int]:
    """The sentences that share most of the question's weight (and meaning), best first."""
    q = asking.question
    pool = list(among) if among is not None else read.holding([*q.terms, *q.names, *q.numbers])
    scored = {n: _retrieval(asking, read, n) for n in pool}
    return sorted(scored, key=lambda n: (-scored[n], n))[:SENTENCES]


def _retrieval(asking: Asking, read: Corpus, n: int) -> float:
    found = sentence_features(asking, read, n)
    return found["cov_ctx"] + RETRIEVAL_MEANING * found["emb_qs"]


def candidates(
    asking: Asking, read: Corpus, ranker: Logistic, among: Sequence[int] | None = None
) -> list[Candidate]:
    """Every candidate value of the chosen sentences, best first, one per distinct text."""
    return distinct(every_candidate(asking, read, ranker, among))


def distinct(found: list[Candidate]) -> list[Candidate]:
    """Best first, one per distinct text (the best-scored one)."""
    best: dict[str, Candidate] = {}
    for c in sorted(found, key=lambda c: (-c.score, c.sentence, c.span)):
        best.setdefault(c.key, c)
    return list(best.values())


def every_candidate(
    asking: Asking, read: Corpus, ranker: Logistic, among: Sequence[int] | None = None
) -> list[Candidate]:
    """Every candidate value of the chosen sentences, in reading order."""
    chosen = chosen_sentences(asking, read, among)
    retrieval = [_retrieval(asking, read, n) for n in chosen]
    found: list[Candidate] = []
    for rank, n in enumerate(chosen):
        others = retrieval[:rank] + retrieval[rank + 1 :]
        margin = retrieval[rank] - max(others, default=0.0)
        found += _of_sentence(asking, read, n, rank, margin, ranker)
    return found


def _of_sentence(
    asking: Asking, read: Corpus, n: int, rank: int, margin: float, ranker: Logistic
) -> list[Candidate]:
    s = read.sentences[n]
    found = spans(s.words)
    if not found:
        return []
    texts = [text_of(s.words, span, s.unit.said) for span in found]
    shapes = [_shape(s, span) for span in found]
    alike = Counter(shapes)
    vectors = embed(texts)
    given = sentence_features(asking, read, n)
    shared = {f"s_{name}": given[name] for name in _SENTENCE_INPUTS}
    shared |= {"s_is_best": float(rank == 0), "s_margin": margin}
    keys = record_keys(s.unit.said)
    out = []
    for span, text, kind, vector in zip(found, texts, shapes, vectors, strict=True):
        if _inside(s, span, keys):  # a record's key names its field: `ms_at_95th_percentile: 260`
            continue
        features = span_features(asking, s, span, kind, vector, alike[kind]) | shared
        if features["in_q"] < 1.0 and text.lower() not in UNITS:  # nor only the question's words, nor a unit
            out.append(Candidate(text, n, span, kind, features, ranker.probability(features)))
    return out


def record_keys(said: str) -> list[tuple[int, int]]:
    """Where the keys of a record stand in its words (`system: zudov; response target ms 95th:
    320`, as a table row, a front matter or a CSV row is read): two or more `key: value` pairs.
    A key is the field's name, never its value.

    >>> said = "system: zudov; response target ms 95th: 320"
    >>> [said[a:b] for a, b in record_keys(said)]
    ['system', 'response target ms 95th']
    >>> record_keys("Caroline: I went to the support group; it was great.")
    []
    """
    keys: list[tuple[int, int]] = []
    at = 0
    for part in said.split("; "):
        key, colon, _ = part.partition(": ")
        if colon and key.strip():
            keys.append((at, at + len(key)))
        at += len(part) + 2
    return keys if len(keys) >= 2 and len(keys) == said.count("; ") + 1 else []


def _inside(s: Sentence, span: Span, keys: list[tuple[int, int]]) -> bool:
    start, end = s.words[span[0]].start, s.words[span[1] - 1].end
    return any(a <= start and end <= b for a, b in keys)


def _shape(s: Sentence, span: Span) -> Shape:
    """A span's shape; a year-like figure under a label that names a unit is a number
    (`tail_response_ms: 1280` is 1280 ms, not a year)."""
    found = shape(s.words[span[0] : span[1]])
    if found == "date" and label_units(s.unit.said, s.words, span):
        return "number" if span[1] - span[0] == 1 else "quantity"
    return found


__all__ = ["SENTENCES", "Candidate", "candidates", "chosen_sentences", "distinct", "every_candidate"]
