"""The verifier's inputs: numbers that say how a sentence and a value stand to a question, read from
structure, never from a list of words.

Of a sentence: how much of the question's weight (each word weighted by how rare it is in what was
read) it states, itself, with what it stands under, or in its paragraph; the same through WordNet's
derived forms and synonyms; the rarest word it lacks; the question's names and figures it lacks
(a swapped name); a negation on one side only; a question word whose antonym it holds; the
question's word pairs and word order it keeps; how close it is in meaning (Cairn's embedder).

Of a value in it: its shape met by the wh-phrase (a date for `when`, a name for `who`: one input
per pair, so the fit weighs each), its length, whether it repeats the question, how far it stands
from the question's words, whether it sits beside the asked noun, in the clause that holds them,
and whether its figure is in the unit asked.

>>> from cairn.tasks.grounding.units import units_of
>>> from cairn.tasks.verify.question import read_question
>>> from cairn.tasks.verify.corpus import Corpus
>>> read = Corpus(units_of("source:d/a.md", "Normandy is a region in France. It rains."))
>>> asking = Asking.of(read_question("In what country is Normandy?"), read)
>>> round(sentence_features(asking, read, 0)["cov_s"], 2), sentence_features(asking, read, 1)["cov_s"]
(0.28, 0.0)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from cairn.tasks.grounding.figures import figures
from cairn.tasks.verify import wordnet
from cairn.tasks.verify.corpus import Corpus, Sentence, embed
from cairn.tasks.verify.question import Question
from cairn.tasks.verify.spans import Shape, Span
from cairn.tasks.verify.tokens import CLAUSE_MARKS, Word

Features = dict[str, float]
FAR = 30  # words: a value with no question word near it
NEAR = 8  # words either side of a value that count as its neighbourhood


@dataclass(frozen=True)
class Asking:
    """A question against what was read: its words' weights and its vectors, worked out once."""

    question: Question
    weights: dict[str, float]
    total: float
    vector: npt.NDArray[np.float32]
    head_vector: npt.NDArray[np.float32] | None
    _sentence: dict[int, Features] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, question: Question, read: Corpus) -> Asking:
        weights = {t: read.rarity(t) for t in question.terms}
        texts = [question.text] + ([question.head] if question.head else [])
        vectors = embed(texts)
        return cls(
            question=question,
            weights=weights,
            total=sum(weights.values()) or 1.0,
            vector=vectors[0],
            head_vector=vectors[1] if question.head else None,
        )

    def share(self, forms: frozenset[str] | set[str], without: frozenset[str] = frozenset()) -> float:
        """The share of the question's weight that `forms` state (words in `without` aside)."""
        return sum(w for t, w in self.weights.items() if t in forms and t not in without) / self.total


def sentence_features(asking: Asking, read: Corpus, n: int) -> Features:
    """How sentence `n` stands to the question (cached per sentence)."""
    if n in asking._sentence:
        return asking._sentence[n]
    s = read.sentences[n]
    q = asking.question
    around = s.forms | s.around
    missing = [w for t, w in asking.weights.items() if t not in around]
    found: Features = {
        "cov_s": asking.share(s.forms),
        "cov_ctx": asking.share(around),
        "cov_para": asking.share(s.paragraph | s.around),
        "cov_derived": _related_share(asking, s),
        "max_missing": max(missing, default=0.0),
        "n_missing": float(len(missing)),
        "miss_names_line": float(min(3, sum(1 for name in q.names if name not in s.forms))),
        "miss_names_s": float(min(3, sum(1 for name in q.names if name not in around))),
        "miss_names_p": float(min(3, sum(1 for name in q.names if name not in s.paragraph | s.around))),
        "miss_names_all": float(min(3, sum(1 for name in q.names if name not in read.forms))),
        "miss_num_s": float(min(2, sum(1 for x in q.numbers if x not in around))),
        "neg_mismatch": float(q.negated != s.negated),
        "antonym": _antonym(q, s),
        "emb_qs": float(asking.vector @ read.vectors[n]),
        "bigram_cov": _pairs_kept(q, s),
        "lcs": _in_order(asking, s),
        "q_len": float(len(q.terms)),
        "s_len": math.log1p(sum(not w.mark for w in s.words)),
    }
    asking._sentence[n] = found
    return found


def span_features(
    asking: Asking,
    s: Sentence,
    span: Span,
    shape: Shape,
    vector: npt.NDArray[np.float32],
    alike: int,
) -> Features:
    """How a value (`span` of sentence `s`, of `shape`) stands to the question. `alike`: values of
    the same shape in the sentence."""
    q = asking.question
    a, b = span
    inside = s.words[a:b]
    matched = [
        i
        for i, w in enumerate(s.words)
        if w.content and (w.lemma in asking.weights or w.lower in asking.weights)
    ]
    outside = [i for i in matched if i < a or i >= b]
    low, high = (min(matched), max(matched)) if matched else (0, 0)
    length = min(b - a, 5)
    before = s.words[a - 1] if a else None
    after = s.words[b] if b < len(s.words) else None
    return {
        "in_q": sum(1 for w in inside if w.lemma in asking.weights or w.lower in q.names) / len(inside),
        "dist": math.log1p(min((min(abs(i - a), abs(i - (b - 1))) for i in outside), default=FAR)),
        "before_win": float(b <= low),
        "after_win": float(a > high),
        "in_win": float(a > low and b <= high),
        "emb_hc": float(asking.head_vector @ vector) if asking.head_vector is not None else 0.0,
        "emb_qc": float(asking.vector @ vector),
        "head_adj": float(q.head is not None and _beside(s.words, span, q.head)),
        "head_in": float(q.head is not None and any(w.lemma == q.head for w in inside)),
        "same_shape": math.log1p(max(0, alike - 1)),
        "paren": float(before is not None and before.text == "("),
        "prev_comma": float(before is not None and before.text == ","),
        "prev_function": float(before is not None and not before.content and not before.mark),
        "next_mark": float(after is not None and after.mark),
        "left_bound": float(before is None or not before.content),
        "right_bound": float(after is None or not after.content),
        "gap_fill": float(_fills_gap(s.words, span, set(matched))),
        "frac_cap": sum(w.capitalised for w in inside) / len(inside),
        "frac_num": sum(w.number for w in inside) / len(inside),
        "clause_cov": asking.share(_clause_forms(s.words, span)),
        "window_cov": asking.share(_forms(s.words[max(0, a - NEAR) : a] + s.words[b : b + NEAR])),
        "unit_match": _unit(q.unit, s.unit.said[inside[0].start : inside[-1].end], s, span),
        "pair_value": float(_pair_value(s, span)),
        "whole_name": float(shape == "name" and _whole_run(s.words, span)),
        f"len{length}": 1.0,
        f"x_{q.wh}_{shape}": 1.0,
        f"xl_{q.wh}_{length}": 1.0,
    }


def _pair_value(s: Sentence, span: Span) -> bool:
    """The value is the whole value of a `label: value` pair (a table cell, `Lead: Priya
    Nandakumar`, a record's field): from just after `label: ` to the next `; ` or the end."""
    said = s.unit.said
    start, end = s.words[span[0]].start, s.words[span[1] - 1].end
    opened = said.rfind(": ", 0, start)
    if opened < 0 or said[opened + 2 : start].strip() or ";" in said[opened:start]:
        return False
    closed = said.find("; ", end)
    return not said[end : closed if closed >= 0 else len(said)].strip(" .")


def _whole_run(found: Sequence[Word], span: Span) -> bool:
    """A name with no capitalised word glued to either side (`Priya Nandakumar`, not `Nandakumar`)."""
    a, b = span
    before = found[a - 1] if a else None
    after = found[b] if b < len(found) else None
    return not (before is not None and before.capitalised and before.content) and not (
        after is not None and after.capitalised and after.content
    )


def _related_share(asking: Asking, s: Sentence) -> float:
    """The share of the question's weight that the sentence states only in another form or a
    near synonym (WordNet): `leader` for `lead`, `big` for `large`."""
    around = s.forms | s.around
    got = 0.0
    for term, weight in asking.weights.items():
        if term not in around and (wordnet.derived(term) | wordnet.synonyms(term)) & around:
            got += weight
    return got / asking.total


def _antonym(q: Question, s: Sentence) -> float:
    """A question word the sentence lacks while holding its opposite (`before` for `after`)."""
    for word in q.words:
        if word.mark or word.number or word.lower in s.forms or word.lemma in s.forms:
            continue
        if (wordnet.antonyms(word.lemma) | wordnet.antonyms(word.lower)) & s.forms:
            return 1.0
    return 0.0


def _pairs_kept(q: Question, s: Sentence) -> float:
    """The share of the question's adjacent content-word pairs the sentence keeps close together
    (at most three words apart, in order): a swapped modifier (`French version` for `Latin
    version`) breaks one."""
    content = [w for w in q.words if w.content]
    pairs = list(pairwise(content))
    if not pairs:
        return 1.0
    where: dict[str, list[int]] = {}
    for i, w in enumerate(s.words):
        for form in w.forms:
            where.setdefault(form, []).append(i)
    kept = sum(
        any(0 < j - i <= 3 for i in where.get(x.lemma, ()) for j in where.get(y.lemma, ())) for x, y in pairs
    )
    return kept / len(pairs)


def _in_order(asking: Asking, s: Sentence) -> float:
    """The weight of the longest run of the question's words that the sentence says in the same
    order, as a share."""
    asked = [w.lemma for w in asking.question.words if w.content]
    said = [w.lemma for w in s.words if w.content]
    if not asked or not said:
        return 0.0
    best = [[0.0] * (len(said) + 1) for _ in range(len(asked) + 1)]
    for i, x in enumerate(asked):
        for j, y in enumerate(said):
            took = best[i][j] + asking.weights.get(x, 0.0) if x == y else 0.0
            best[i + 1][j + 1] = max(best[i][j + 1], best[i + 1][j], took)
    return best[-1][-1] / asking.total


def _beside(found: Sequence[Word], span: Span, head: str) -> bool:
    a, b = span
    return any(w.lemma == head for i, w in enumerate(found) if a - 3 <= i < b + 3 and not a <= i < b)


def _fills_gap(found: Sequence[Word], span: Span, matched: set[int]) -> bool:
    """Beside a question word on one side (a function word between allowed)."""
    a, b = span
    left = a > 0 and (a - 1 in matched or (a > 1 and a - 2 in matched and not found[a - 1].content))
    right = b < len(found) and (b in matched or (b + 1 in matched and not found[b].content))
    return left or right


def _clause_forms(found: Sequence[Word], span: Span) -> frozenset[str]:
    """The forms of the clause a value stands in (between clause marks), the value itself aside."""
    a, b = span
    low = a
    while low > 0 and found[low - 1].text not in CLAUSE_MARKS:
        low -= 1
    high = b
    while high < len(found) and found[high].text not in CLAUSE_MARKS and found[high].text != ".":
        high += 1
    return _forms([*found[low:a], *found[b:high]])


def _forms(found: Sequence[Word]) -> frozenset[str]:
    return frozenset(form for w in found for form in w.forms)


def _unit(asked: str | None, text: str, s: Sentence, span: Span) -> float:
    """1 when the value's figure is in the unit asked (the unit may follow the value), -1 when in
    another, 0 when no unit is asked or none is written."""
    if asked is None:
        return 0.0
    following = s.words[span[1]] if span[1] < len(s.words) else None
    written = figures(text + (f" {following.text}" if following is not None else ""))
    units = {f.unit for f in written if f.unit} or label_units(s.unit.said, s.words, span)
    if not units:
        return 0.0
    return (
        1.0
        if asked in units
        or (asked == "time" and units & {"ms", "s", "min", "h", "day", "week", "month", "year"})
        else -1.0
    )


def label_before(said: str, start: int, mark: str = ": ") -> str | None:
    """The label of the `label: value` pair whose value starts at `start` (pairs split by `; `, as
    a table row or a record is read), or None when the value is no pair's."""
    head = said.rfind("; ", 0, start)
    label, colon, between = said[head + 2 if head >= 0 else 0 : start].rpartition(mark)
    return label if colon and not between.strip() else None


def label_units(said: str, found: Sequence[Word], span: Span) -> set[str]:
    """The unit a bare figure's label names (`tail_response_ms: 1280`, `Budget (ms): 180`, `retention
    days: 90`): a record's key or a table's header says what its cells measure.

    >>> from cairn.tasks.verify.tokens import words
    >>> said = "System: kagan; tail_response_ms: 1280"
    >>> label_units(said, words(said), (6, 7)), label_units(said, words(said), (2, 3))
    ({'ms'}, set())
    """
    label = label_before(said, found[span[0]].start, ":")
    if label is None or not all(w.number for w in found[span[0] : span[1]]):
        return set()
    named = {f.unit for part in re.split(r"[\s_()/-]+", label) if part for f in figures(f"1 {part}")}
    return {unit for unit in named if unit is not None}


__all__ = ["Asking", "Features", "label_before", "label_units", "sentence_features", "span_features"]
