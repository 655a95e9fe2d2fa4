"""Errors Cairn explains in one line.

Domain code raises a `CairnError` subclass with a message fit for a person; the CLI's one handler
(`cairn.flows.cli.main`) prints it as one line on stderr and exits with its `exit_code`. Anything
else that escapes is a bug: one line too, and the traceback goes to a file.

Exit codes (README, "Exit codes"): 0 done; 1 a known error, or a task that could not go on;
2 bad arguments or input; 3 a tampered or damaged history; 4 a call with side effects was interrupted
and awaits a decision (`--on-uncertain`, `cairn.flows.uncertain`); 70 an internal error; 130 interrupted.

>>> raise UsageError("--max-iterations must be at least 1, not -5")
Traceback (most recent call last):
cairn.memory.errors.UsageError: --max-iterations must be at least 1, not -5
"""

from __future__ import annotations


class CairnError(Exception):
    """A failure with a one-line explanation (the message) and the exit code it deserves."""

    exit_code = 1


class UsageError(CairnError, ValueError):
    """A bad argument, option or input file, found before anything was created."""

    exit_code = 2


class NotFound(CairnError, LookupError):
    """A task, file or record the user named does not exist."""

    exit_code = 2
