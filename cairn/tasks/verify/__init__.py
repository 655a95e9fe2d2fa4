"""The answer verifier: one fitted decision for every proof Cairn gives.

Given what a question asks, a candidate value and the line it is quoted from, the verifier says
how sure Cairn is that the line states that value as the answer: a logistic model over inputs read
from structure (`features`: the question's words weighted by rarity, its names and figures on the
line, the wh-phrase met by the value's shape, derived forms and antonyms from WordNet, closeness
in meaning from Cairn's embedder, negation; a served model's yes/no when there is one). Its
weights are fitted by `bench/verifier_fit.py` on questions no one here wrote (SQuAD 2.0's and
LoCoMo's development sets) with Cairn's own, and ship as data (`data/weights.json`), with the two
thresholds each model kind decides by: `complete` (a value is proven) and `absent` (the files do
not say it). The reader (`reader`) finds the candidates; `judge` decides one question; `prove`
every question of a goal; `check_answer` a whole deliverable.

>>> from cairn.tasks.grounding.units import units_of
>>> read = Corpus(units_of("source:t.md", "## Team Falcon\\nTeam Falcon is led by Priya Nandakumar."))
>>> found = judge("Who leads Team Falcon?", read, said=lambda v, line: v == "Priya Nandakumar")
>>> found.value, found.status  # offline, no value reaches the threshold: given, marked unverified
('Priya Nandakumar', 'unverified')
"""

from __future__ import annotations

from cairn.tasks.verify.check import Grounding, check_answer
from cairn.tasks.verify.corpus import Corpus
from cairn.tasks.verify.decision import Judgement, judge
from cairn.tasks.verify.model import ModelKind, Thresholds, Verifier, load_verifier
from cairn.tasks.verify.question import Question, read_question
from cairn.tasks.verify.questions import prove
from cairn.tasks.verify.stated import gives

__all__ = [
    "Corpus",
    "Grounding",
    "Judgement",
    "ModelKind",
    "Question",
    "Thresholds",
    "Verifier",
    "check_answer",
    "gives",
    "judge",
    "load_verifier",
    "prove",
    "read_question",
]
