"""The fitted verifier's scores for one question's candidates: how likely each value the reader
finds, quoted from its sentence, is the answer. The offline reader answers with the best of them
(`cairn.tasks.offline.answers`) and a coverage ledger fills its cells with them
(`cairn.tasks.coverage.ledger`); whether an answer is proven is the judge's call
(`cairn.tasks.verifier`), never these scores'.

>>> from cairn.tasks.grounding.units import units_of
>>> from cairn.tasks.verify.question import read_question
>>> text = "## Team Falcon\\nTeam Falcon owns billing. Lead: Priya Nandakumar."
>>> read = Corpus(units_of("source:d/t.md", text))
>>> found, _ = scored(read_question("Who leads Team Falcon?"), read)
>>> found[0].candidate.text
'Priya Nandakumar'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from cairn.tasks.grounding import figures
from cairn.tasks.verify import wordnet
from cairn.tasks.verify.corpus import Corpus
from cairn.tasks.verify.features import Asking, Features, label_before, label_units, sentence_features
from cairn.tasks.verify.model import Thresholds, Verifier, load_verifier
from cairn.tasks.verify.question import Question
from cairn.tasks.verify.reader import Candidate, candidates
from cairn.tasks.verify.tokens import forms_of, words

Status = Literal["proven", "unverified", "absent"]
Said = Callable[[str, str], bool]  # does the answer give this value, quoted from this line?
KEPT = 4  # the ranker's best candidates the verifier scores (with any the answer gives)
_CANDIDATE_INPUTS = (
    "in_q", "dist", "head_adj", "head_in", "emb_hc", "clause_cov", "window_cov", "unit_match", "same_shape",
    "pair_value", "whole_name",
)  # fmt: skip


@dataclass(frozen=True)
class Scored:
    """A candidate with the verifier's probability and the inputs it was given."""

    candidate: Candidate
    probability: float
    features: Features
    given: bool  # the answer gives this value


def scored(
    q: Question,
    read: Corpus,
    verifier: Verifier | None = None,
    *,
    said: Said = lambda value, line: False,
    among: list[int] | None = None,
) -> tuple[list[Scored], Thresholds]:
    """The ranker's best candidates (and any the answer gives), each scored by the verifier, best
    first; and the thresholds it decides by."""
    weights = verifier or load_verifier()
    asking = Asking.of(q, read)
    ranked = candidates(asking, read, weights.ranker, among)
    found = []
    for n, c in enumerate(ranked):
        given = said(c.text, read.sentences[c.sentence].unit.said)
        if n < KEPT or given:  # as the verifier was fitted, and the answer's own value
            features = verifier_features(asking, read, c, ranked)
            found.append(Scored(c, weights.offline.probability(features), features, given))
    found.sort(key=lambda s: -s.probability)
    return found, weights.thresholds


def shown_value(candidate: Candidate, read: Corpus) -> str:
    """A bare figure as its line writes it with its unit (`100` -> `100 ms`), or with the unit its
    label names: the verifier judges the figure, the deliverable shows what it measures."""
    text = candidate.text
    stated = figures.figures(text)
    if len(stated) != 1 or stated[0].unit is not None or stated[0].text != text.strip():
        return text
    sentence = read.sentences[candidate.sentence]
    for f in figures.figures(sentence.unit.said):
        if f.unit is not None and f.unit != "clock" and f.text.startswith(text) and f.text != text:
            return f.text
    named = label_units(sentence.unit.said, sentence.words, candidate.span)
    return f"{text} {next(iter(named))}" if len(named) == 1 else text  # `tail_response_ms: 1280`


def verifier_features(
    asking: Asking,
    read: Corpus,
    candidate: Candidate,
    ranked: list[Candidate],
) -> Features:
    """The verifier's inputs for one candidate: its sentence's, its own, and the ranker's view of
    it beside the others."""
    q = asking.question
    rival = next((c.score for c in ranked if c.key != candidate.key), 0.0)
    found = dict(sentence_features(asking, read, candidate.sentence))
    found |= {name: candidate.features.get(name, 0.0) for name in _CANDIDATE_INPUTS}
    # The old quote rule as one input: every word of the question with the line, its names on the
    # line itself, and the one value of its shape there, with no negation or figure against it.
    strict = (
        found["cov_ctx"] >= 0.999
        and found["miss_names_line"] == 0
        and found["miss_num_s"] == 0
        and found["neg_mismatch"] == 0
        and found["same_shape"] == 0
    )
    found |= _labelled(asking, read, candidate)
    found |= {
        "strict": float(strict),
        "r_logit": _logit(candidate.score),
        "r_margin": candidate.score - rival,
        "r_top": float(bool(ranked) and ranked[0].key == candidate.key),
        f"x_{q.wh}_{candidate.shape}": 1.0,
    }
    return found


def _labelled(asking: Asking, read: Corpus, candidate: Candidate) -> Features:
    """Whether the value is the value of a `label: value` pair (a table cell under its header, a
    `Lead:` line, a record's key) and how much of what the question asks the label says, in its
    own words or a derived form (`owner` for `owns`)."""
    sentence = read.sentences[candidate.sentence]
    label = label_before(sentence.unit.said, sentence.words[candidate.span[0]].start)
    if label is None:
        return {"labelled": 0.0, "label_share": 0.0}
    names = asking.question.names
    own = {t: w for t, w in asking.weights.items() if t not in names}
    if not own:
        return {"labelled": 1.0, "label_share": 0.0}
    stated = set(forms_of(words(label)))
    related = {form for term in stated for form in wordnet.derived(term)}
    share = sum(w for t, w in own.items() if t in stated or t in related) / sum(own.values())
    return {"labelled": 1.0, "label_share": share}


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


__all__ = ["KEPT", "Said", "Scored", "scored", "shown_value", "verifier_features"]
