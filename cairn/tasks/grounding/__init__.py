"""What a task read and what its answer says, as the checks need them: the units a quote can be
(`units`), the reads indexed (`reads`), claims (`claims`), the parts of a goal (`parts`), an
answer's body (`answer_text`); the decision on each question is the verifier's
(`cairn.tasks.verify`).

>>> split_goal("Which team owns the billing service, and what is its p95 latency budget?")
['Which team owns the billing service', 'what is its p95 latency budget?']
"""

from __future__ import annotations

from cairn.tasks.grounding.answer_text import UNVERIFIED, answer_body
from cairn.tasks.grounding.parts import split_goal
from cairn.tasks.grounding.reads import Read, ReadIndex

__all__ = ["UNVERIFIED", "Read", "ReadIndex", "answer_body", "split_goal"]
