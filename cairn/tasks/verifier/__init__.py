"""Who proves an answer: the `Verifier` seam (`seam`), what Cairn checks exactly (`exact`: the
value is on a line read) and the offline judge of structure (`structural`).

>>> from cairn.tasks.verifier import CairnJudge, Verifier
>>> isinstance(CairnJudge(), Verifier)
True
"""

from cairn.tasks.verifier.seam import (
    UNCALIBRATED,
    CairnJudge,
    OncePerAnswer,
    PartToVerify,
    PartVerdict,
    Status,
    Verifier,
    VerifierError,
    VerifyRequest,
    verified,
)

__all__ = [
    "UNCALIBRATED",
    "CairnJudge",
    "OncePerAnswer",
    "PartToVerify",
    "PartVerdict",
    "Status",
    "Verifier",
    "VerifierError",
    "VerifyRequest",
    "verified",
]
