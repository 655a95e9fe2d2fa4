"""An honest end: a task stopped before its checks passed keeps its best answer, marked unverified.

The best answer is the deliverable as it stood at the verdict that met the most checks (the
highest confidence; the later one among equals): a later attempt may have broken what an earlier
one had right. It is written back to the deliverable behind a banner that says why it is not
verified and which checks failed, so a person who opens the file hours later cannot take it for a
checked answer. Code is never rewritten: a coding task's files stay as the last run left them,
and its unmet checks are in `cairn show`, the result page in Prefect's UI and `--json`.

>>> print(banner("iteration cap of 6 reached", ["6.43 ms is in no file read"]))
> **Unverified**: Cairn stopped this task (iteration cap of 6 reached) before its answer passed its checks.
> Unmet: 6.43 ms is in no file read.
<BLANKLINE>
"""

from __future__ import annotations

import time
from pathlib import Path, PurePosixPath

from cairn.core import FileRecorded, Verdict
from cairn.flows.steps.session import Session
from cairn.tasks.evidence import classify, register_file
from cairn.tasks.grounding import UNVERIFIED
from cairn.tasks.tools.base import WrittenFile

ANSWER_KEPT = 20_000  # characters of the deliverable a verdict keeps (the whole one is on disk and in git)


def best_verdict(verdicts: list[Verdict]) -> Verdict | None:
    """The verdict whose deliverable met the most checks (the later one among equals)."""
    judged = [v for v in verdicts if v.deliverable and v.answer.strip()]
    return max(judged, key=lambda v: (v.confidence, v.iteration), default=None)


def banner(reason: str, unmet: list[str]) -> str:
    why = f" ({reason})" if reason else ""
    lines = [f"{UNVERIFIED}: Cairn stopped this task{why} before its answer passed its checks."]
    if unmet:
        lines.append(f"> Unmet: {'; '.join(unmet)}.")
    return "\n".join(lines) + "\n"


def keep_best_answer(session: Session, reason: str) -> list[FileRecorded]:
    """Write the best answer back behind the unverified banner; the file's registry entry to record."""
    state = session.state
    best = best_verdict(state.verdicts)
    if best is None or classify(best.deliverable) != "documentation":
        return []
    repo = session.recorder.repo
    target = repo.artifacts / PurePosixPath(best.deliverable)
    on_disk = _on_disk(target) if best is state.verdicts[-1] else ""  # the file as that verdict read it
    text = f"{banner(reason, best.unmet)}\n{_whole(best, on_disk)}"
    target.write_text(text, encoding="utf-8")
    repo.commit(
        [target], f"Task incomplete: best answer (iteration {best.iteration}) kept, marked unverified"
    )
    written = WrittenFile(path=best.deliverable, content=text)
    file, code = register_file("finish", written, state.files.get(best.deliverable), time.time())
    return [FileRecorded(file=file, code=code)]


def _whole(best: Verdict, written: str) -> str:
    """The best answer whole. A verdict keeps its first `ANSWER_KEPT` characters: a ledger of 250
    items is longer, and written back from that copy it ended mid-row. When the best is the last
    verdict, the file (`written`) is it; else the copy up to its last whole line, saying so."""
    kept = _without_banner(best.answer)
    if len(best.answer) < ANSWER_KEPT:
        return kept
    now = _without_banner(written) if written.strip() else ""
    if now.startswith(kept.rstrip("\n")):
        return now
    cut = kept[: kept.rstrip("\n").rfind("\n") + 1]
    where = f"iteration {best.iteration}'s whole answer is in the task's git history"
    return f"{cut}\n(Cut at {ANSWER_KEPT:,} characters: {where}.)\n"


def _on_disk(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _without_banner(text: str) -> str:
    """The answer without an earlier banner (a resumed task that stops again gets one banner)."""
    lines = text.splitlines()
    while lines and (
        lines[0].startswith(UNVERIFIED) or lines[0].startswith("> Unmet:") or not lines[0].strip()
    ):
        lines.pop(0)
    return "\n".join(lines).rstrip("\n") + "\n"
