"""The examples a coding goal gives, run as a test: `>>> f(x)` and the reply the goal shows.

A goal that shows `>>> below_zero([1, 2, -4, 5])` and `True` states a test in its own words.
Cairn writes it down as the tests file the goal names (when the model wrote none), else as
`test_goal_examples.py`, beside the model's code, so "the tests pass"
includes the goal's own expectations, not only those the model thought of (a small model's tests
often assert what its code does). The examples run through `doctest` against the module, exactly
as the goal writes them.

>>> goal = "def add(a, b):\\n    '''Add.\\n    >>> add(2, 3)\\n    5\\n    '''"
>>> goal_examples(goal).splitlines()
['>>> add(2, 3)', '5']
>>> "import solution as subject" in examples_test(goal, "solution")
True
"""

from __future__ import annotations

import re
import textwrap

TEST_FILE = "test_goal_examples.py"
EXAMPLES_WHY = "The goal's own examples, run against the code as a test."  # the write's rationale
_PROMPT = re.compile(r"^\s*>>> ")


def goal_examples(goal: str) -> str:
    """The goal's `>>>` lines with the output lines after each, dedented ("" when none)."""
    kept: list[str] = []
    expecting = False
    for line in goal.splitlines():
        if _PROMPT.match(line):
            kept.append(line.strip())
            expecting = True
        elif expecting and line.strip() and not line.strip().startswith(('"""', "'''")):
            kept.append(line.strip())
        else:
            expecting = False
    return "\n".join(kept)


def examples_test(goal: str, module: str) -> str | None:
    """A pytest module that runs the goal's examples against `module`; None without examples."""
    examples = goal_examples(goal)
    if not examples or not module.isidentifier():
        return None
    return textwrap.dedent(
        f'''\
        """The examples the goal gives, run against {module} (written by Cairn from the goal)."""

        import doctest

        import {module} as subject

        EXAMPLES = {examples + chr(10)!r}


        def test_the_goals_examples():
            test = doctest.DocTestParser().get_doctest(EXAMPLES, dict(vars(subject)), "the goal", None, 0)
            runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
            runner.run(test)
            failed = f"{{runner.failures}} of {{runner.tries}} of the goal's examples fail"
            assert runner.failures == 0, failed
        '''
    )
