"""The fitted reader: which value of the lines read most likely answers a question.

A logistic ranker and a logistic scorer over inputs read from structure (`features`: the
question's words weighted by rarity, its names and figures on the line, the wh-phrase met by the
value's shape, derived forms from WordNet, closeness in meaning from Cairn's embedder, negation),
fitted by `bench/verifier_fit.py` on SQuAD 2.0's and LoCoMo's development sets and shipped as data
(`data/weights.json`). The offline model answers with it and a coverage ledger fills its cells
with it; it proves nothing: proof is the `Verifier` seam's (`cairn.tasks.verifier`).

>>> from cairn.tasks.grounding.units import units_of
>>> from cairn.tasks.verify.decision import scored
>>> read = Corpus(units_of("source:t.md", "## Team Falcon\\nTeam Falcon is led by Priya Nandakumar."))
>>> scored(read_question("Who leads Team Falcon?"), read)[0][0].candidate.text
'Priya Nandakumar'
"""

from __future__ import annotations

from cairn.tasks.verify.corpus import Corpus
from cairn.tasks.verify.model import Thresholds, Verifier, load_verifier
from cairn.tasks.verify.question import Question, read_question

__all__ = [
    "Corpus",
    "Question",
    "Thresholds",
    "Verifier",
    "load_verifier",
    "read_question",
]
