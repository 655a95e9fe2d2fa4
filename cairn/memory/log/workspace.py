"""The workspace (layer 1): one directory per project, one git repository per task.

```
WORKSPACE/
  memory.db            the embedded memory index
  results/             Prefect result storage (resume)
  tasks/{task_id}/     a git repository
    artifacts/         what the agent produced, committed after each write
    outputs/           full tool outputs too long for the event log
    history.jsonl      the append-only event log
```

>>> ws = Workspace(Path("/tmp/ws"))  # doctest: +SKIP
>>> task = ws.create_task(TaskCreated(task_id="t1", goal="Why?", task_type="general_task"))  # doctest: +SKIP
>>> task.state().goal  # doctest: +SKIP
'Why?'
"""

from __future__ import annotations

import re
import secrets
import subprocess
import time
from pathlib import Path

from cairn.core import CairnError, Envelope, Event, NotFound, TaskCreated, UsageError
from cairn.memory.log.history import HistoryLog, Replay
from cairn.memory.log.state import TaskState, replay

_TASK_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Cairn",
    "GIT_AUTHOR_EMAIL": "cairn@localhost",
    "GIT_COMMITTER_NAME": "Cairn",
    "GIT_COMMITTER_EMAIL": "cairn@localhost",
}


class WorkspaceError(CairnError, ValueError):
    """A task that does not exist, or an id that cannot name one."""


class BadTaskId(WorkspaceError, UsageError):
    """A task id that is not a slug (it would name a path outside the workspace)."""


class TaskNotFound(WorkspaceError, NotFound):
    """No task of that id in the workspace."""


def new_task_id(goal: str, suffix: str | None = None) -> str:
    """A readable, unique id: a slug of the goal plus a short suffix (`alder-creek-3f9a`)."""
    words = re.findall(r"[a-z0-9]+", goal.lower())[:4]
    slug = "-".join(words)[:32].strip("-") or "task"
    return f"{slug}-{suffix or secrets.token_hex(2)}"


def check_task_id(task_id: str) -> str:
    if not _TASK_ID.match(task_id):
        raise BadTaskId(f"invalid task id {task_id!r}: use lowercase letters, digits and dashes")
    return task_id


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root.expanduser().resolve()

    @property
    def db_path(self) -> Path:
        return self.root / "memory.db"

    def task(self, task_id: str) -> TaskRepo:
        repo = TaskRepo(self.root / "tasks" / check_task_id(task_id))
        if not repo.history.path.exists():
            raise TaskNotFound(f"no task {task_id!r} in workspace {self.root}")
        return repo

    def create_task(self, created: TaskCreated) -> TaskRepo:
        repo = TaskRepo(self.root / "tasks" / check_task_id(created.task_id))
        if repo.history.path.exists():
            raise WorkspaceError(f"task {created.task_id!r} already exists in {self.root}")
        repo.init()
        repo.append(created)
        return repo

    def task_ids(self) -> list[str]:
        tasks = self.root / "tasks"
        if not tasks.is_dir():
            return []
        found = [p for p in tasks.iterdir() if (p / "history.jsonl").exists()]
        return [p.name for p in sorted(found, key=lambda p: p.stat().st_mtime)]


class TaskRepo:
    """One task's directory: artifacts under git, and the event log."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.history = HistoryLog(root / "history.jsonl")

    @property
    def task_id(self) -> str:
        return self.root.name

    @property
    def artifacts(self) -> Path:
        return self.root / "artifacts"

    @property
    def outputs(self) -> Path:
        return self.root / "outputs"

    def init(self) -> None:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.outputs.mkdir(exist_ok=True)
        (self.root / ".gitignore").write_text("outputs/\n", encoding="utf-8")
        if not (self.root / ".git").exists():
            self._create_git(f"Create task {self.task_id}")

    def git_problem(self) -> str | None:
        """None when the task's git repository works; else what is wrong with it, in a few words."""
        if not (self.root / ".git").exists():
            return "missing"
        proc = self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
        if proc.returncode != 0:
            return "damaged (" + (proc.stderr.strip().splitlines() or ["no commit at HEAD"])[-1] + ")"
        return None

    def rebuild_git(self, files: list[str]) -> int:
        """A new repository for a task whose `.git` was deleted: the history and the artifacts it
        names (`files`, relative to `artifacts/`), committed as they are on disk now; the earlier
        versions went with the old `.git`. Returns how many artifacts it committed. Nothing on
        disk is removed or changed (`outputs/` included)."""
        if not (self.root / ".gitignore").exists():
            (self.root / ".gitignore").write_text("outputs/\n", encoding="utf-8")
        self._create_git(f"Create task {self.task_id} (repository rebuilt from history.jsonl)")
        present = [self.artifacts / name for name in files if (self.artifacts / name).is_file()]
        message = f"The history and {len(present)} artifacts as found when the repository was rebuilt"
        self.commit([self.history.path, *present], message)
        return len(present)

    def _create_git(self, message: str) -> None:
        self._git("init", "-q", "-b", "main")
        self._git("add", ".gitignore")
        self._git("commit", "-q", "-m", message)

    def append(self, *events: Event) -> list[Envelope]:
        return self.history.append(*events)

    def read(self) -> Replay:
        return self.history.read()

    def state(self) -> TaskState:
        return replay(self.history.events())

    def commit(self, paths: list[Path], message: str) -> str | None:
        """Commit the given files; returns the new commit id, or None when nothing changed."""
        rel = [str(p.relative_to(self.root)) for p in paths]
        self._git("add", "--", *rel)
        if self._git("diff", "--cached", "--quiet", check=False).returncode == 0:
            return None
        self._git("commit", "-q", "-m", message)
        return self._git("rev-parse", "HEAD").stdout.strip()

    def log(self) -> list[str]:
        out = self._git("log", "--format=%s").stdout
        return [line for line in out.splitlines() if line]

    def committed(self, path: Path) -> bytes | None:
        """A file's bytes as the last commit holds them; None when it holds no such file."""
        rel = path.relative_to(self.root).as_posix()
        command = ["git", "-C", str(self.root), "show", f"HEAD:{rel}"]
        proc = subprocess.run(command, capture_output=True, env=self._env())
        return proc.stdout if proc.returncode == 0 else None

    def _env(self) -> dict[str, str]:
        return {
            **_GIT_ENV,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.root),
            # Never a repository above the task's: with its .git gone, git would otherwise
            # commit the task's files into whatever repository holds the workspace.
            "GIT_CEILING_DIRECTORIES": str(self.root.parent),
        }

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        for attempt in range(5):
            proc = subprocess.run(
                ["git", "-C", str(self.root), *args], capture_output=True, text=True, env=self._env()
            )
            # Two writers on one repo (resume racing a retry) can meet on index.lock: wait and retry.
            if proc.returncode != 0 and "index.lock" in proc.stderr and attempt < 4:
                time.sleep(0.05 * (attempt + 1))
                continue
            if check and proc.returncode != 0:
                raise WorkspaceError(f"git {args[0]} failed: {proc.stderr.strip().splitlines()[-1:]}")
            return proc
        raise AssertionError("unreachable")
