"""Reopening a task: what must hold before it continues (its history intact, its git repository).

`cairn resume` (and `cairn run` naming a task that exists) check these before Prefect starts, so a
task that cannot go on is refused in one line and its log gains nothing; `start_task` checks them
again inside the flow, for runs that no command started (a UI retry, a library caller).

- A history whose earlier line was changed, removed or reordered is refused, naming the line
  (`HistoryTampered`, exit 3), unless the caller accepts it (`--accept-tampered`). A torn *last*
  line is what a crash while appending leaves: not tampering; the next append cuts it.
- A task whose `.git` is gone gets a new repository holding the artifacts its history names, as
  they are on disk (nothing in the task's folder is removed); a `.git` that git cannot read is
  refused with the way out: move it aside and resume again.

>>> state = ready_to_continue(repo, accept_tampered=False)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable

from cairn.core import CairnError
from cairn.memory.log.history import HistoryTampered
from cairn.memory.log.state import TaskState, replay
from cairn.memory.log.workspace import TaskRepo


class GitDamaged(CairnError):
    """The task's git repository exists but git cannot use it."""


def ready_to_continue(
    repo: TaskRepo, accept_tampered: bool, say: Callable[[str], None] | None = None
) -> TaskState:
    """The task's state, once its history and repository allow it to continue; `say(line)` is
    told what was repaired."""
    state = replay(repo.read().events)  # junk in the middle: HistoryError naming the line
    check_untampered(repo, accept_tampered)
    rebuilt = ensure_git(repo, state)
    if rebuilt is not None and say is not None:
        say(
            f"task {repo.task_id} had no .git: rebuilt it from history.jsonl with {rebuilt} artifact "
            "files as they are on disk (their earlier versions are gone)"
        )
    return state


def check_untampered(repo: TaskRepo, accept: bool, command: str = "resume") -> list[str]:
    """The log's tampering problems; refused (`HistoryTampered`) unless `accept`."""
    problems = repo.history.tampering()
    if problems and not accept:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise HistoryTampered(
            f"the history of task {repo.task_id} was changed: {problems[0]}{more}; "
            f"`cairn verify {repo.task_id}` lists every problem, and "
            f"`cairn {command} {repo.task_id} --accept-tampered` goes on anyway"
        )
    return problems


def ensure_git(repo: TaskRepo, state: TaskState) -> int | None:
    """Rebuild a missing `.git` (returns how many files it committed); None when it was fine."""
    problem = repo.git_problem()
    if problem is None:
        return None
    if problem != "missing":
        raise GitDamaged(
            f"the git repository of task {repo.task_id} is {problem}: move {repo.root / '.git'} "
            f"aside, and `cairn resume {repo.task_id}` rebuilds it from history.jsonl"
        )
    return repo.rebuild_git(sorted(state.files))
