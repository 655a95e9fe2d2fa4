"""Goals about every one of something: what they range over, the ledger of the items found (one row
per item, each field quoted from where it was read), how far a task got, and the report that grows
with it.

>>> coverage_goal("For each service, list its owner.").kind
'service'
"""

from cairn.tasks.coverage.goal import CoverageGoal, coverage_goal

__all__ = ["CoverageGoal", "coverage_goal"]
