"""Errors Cairn explains in one line.

Domain code raises a `CairnError` subclass with a message fit for a person; the CLI's one handler
(`cairn.flows.cli.app.main`) prints it as one line on stderr and exits with its `exit_code`. Anything
else that escapes is a bug: one line too, and the traceback goes to a file.

Exit codes (README, "Exit codes"):

- 0: done (the task completed; `cairn verify`: the history is intact);
- 1: a known error (`CairnError`): a task that failed, another process running it (`TaskBusy`), a
  damaged `.git`, a Prefect server that did not start; `cairn verify`: the history was changed;
- 2: a bad argument, option, setting or input file, or something named that does not exist
  (`UsageError`, `NotFound`), always found before anything was created or Prefect started;
- 3: a damaged or tampered `history.jsonl` (`HistoryError`, `HistoryTampered`);
- 4: the model cannot be used (`cairn.tasks.model.llm.ModelUnavailable`: refused before anything was
  created, or the task stopped with `model_unavailable`, resumable);
- 5: the task spent its budget (`cairn.tasks.model.llm.BudgetExhausted`);
- 6: a call with side effects was interrupted and awaits a decision
  (`cairn.flows.loop.uncertain.UncertainCalls`, `--on-uncertain`);
- 7: the task stopped for a review with no server to hold a form (`ReviewPending`);
- 8: the task ended incomplete, its answer unverified (`cairn.flows.cli.endings.TaskIncomplete`);
- 70: an internal error, a bug: one line naming the file that holds the traceback;
- 75: the Prefect server went away during a run; the task is saved (`cairn.flows.cli.guard`);
- 130, 143: interrupted by SIGINT (Ctrl-C) or SIGTERM; the task is saved.

Typer's own usage errors (an unknown option, a missing argument) are one line and exit 2 too.

>>> raise UsageError("--max-iterations must be at least 1, not -5")
Traceback (most recent call last):
cairn.core.errors.UsageError: --max-iterations must be at least 1, not -5
"""

from __future__ import annotations

from typing import ClassVar


class CairnError(Exception):
    """A failure with a one-line explanation (the message) and the exit code it deserves. `label`
    heads the line (`cairn: error: ...`); an end that is no error (a task left incomplete, one
    waiting for a review) has none: `cairn: task ... ended incomplete ...`."""

    exit_code = 1
    label: ClassVar[str] = "error"


class UsageError(CairnError, ValueError):
    """A bad argument, option or input file, found before anything was created."""

    exit_code = 2


class NotFound(CairnError, LookupError):
    """A task, file or record the user named does not exist."""

    exit_code = 2
