"""Who proves an answer: the `Verifier` seam (`seam`), what the judge is asked (`part_values`: the
answer's value for each part and the lines holding it), what Cairn checks exactly (`exact`) and
the offline judge of structure (`structural`). The names a user passes or receives are here; the
rest stay in their modules (`seam.verified`, `seam.UNCALIBRATED`).

>>> from cairn.tasks.verifier import CairnJudge, Verifier
>>> isinstance(CairnJudge(), Verifier)
True
"""

from cairn.tasks.verifier.seam import (
    CairnJudge,
    OncePerAnswer,
    PartToVerify,
    PartVerdict,
    Verifier,
    VerifyRequest,
)

__all__ = ["CairnJudge", "OncePerAnswer", "PartToVerify", "PartVerdict", "Verifier", "VerifyRequest"]
