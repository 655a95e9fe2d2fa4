"""A conversation transcript among a task's sources, indexed turn by turn.

A transcript is a text file whose lines are mostly `Speaker: words`, with an optional heading per
sitting (`## Session 3 — 8 May, 2023`: what follows the dash is when it took place). Chunked as
prose, a session became one record whose first 300 characters were all a search showed; as turns
(`cairn.memory.dialog`), each is found by its own words and its neighbours', and says who spoke and
when.

>>> turns = transcript_turns("## Day 1 — 8 May, 2023\\n\\nAnn: I adopted a dog!\\nBo: What breed?\\n"
...                          "Ann: A collie.\\nBo: Lovely.\\n")
>>> [(t.speaker, t.when, t.turn_id) for t in turns][:2]
[('Ann', '8 May, 2023', 'Day 1:1'), ('Bo', '8 May, 2023', 'Day 1:2')]
>>> transcript_turns("# Notes\\n\\nThe reservoir holds 1,260,000 m3.\\n") is None
True
"""

from __future__ import annotations

import re

from cairn.core import Memory
from cairn.memory.dialog import Turn, turn_memories

MIN_TURNS = 4
TURN_SHARE = 0.8  # of the non-heading lines: fewer, and the file is prose that quotes someone
_TURN = re.compile(r"^([A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,2}): (\S.*)$")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_WHEN = re.compile(r"\s[—–-]\s(.+)$")


def transcript_turns(text: str) -> list[Turn] | None:
    """The turns of a transcript, in order; None when the text is not one."""
    turns: list[Turn] = []
    other = 0
    session, when, count = None, None, 0
    for line in (raw.strip() for raw in text.splitlines()):
        if not line:
            continue
        if heading := _HEADING.match(line):
            session, when, count = _session(heading.group(1))
            continue
        if match := _TURN.match(line):
            count += 1
            turn_id = f"{session}:{count}" if session else str(len(turns) + 1)  # "Session 3:12"
            turns.append(
                Turn(speaker=match.group(1), text=match.group(2), turn_id=turn_id, session=session, when=when)
            )
        else:
            other += 1
    if len(turns) < MIN_TURNS or len(turns) < TURN_SHARE * (len(turns) + other):
        return None
    return turns


def _session(heading: str) -> tuple[str, str | None, int]:
    """A heading's session name and date: `Session 3 — 8 May, 2023` -> ("Session 3", "8 May, 2023")."""
    when = _WHEN.search(heading)
    name = heading[: when.start()].strip() if when else heading.strip()
    return name, when.group(1).strip() if when else None, 0


def transcript_records(text: str, base: dict[str, object], path: str) -> list[Memory] | None:
    """One record per turn of a transcript source (its neighbours as context), each naming the
    file; None when the text is not a transcript."""
    turns = transcript_turns(text)
    if turns is None:
        return None
    tenant = str(base["tenant"])
    at = base.get("created_at")
    records = turn_memories(turns, tenant, domain="source", task_type="source")
    stamp = {"created_at": at, "updated_at": at} if isinstance(at, float) else {}
    return [
        r.model_copy(update={"file_path": path, "level": base.get("level", r.level), **stamp})
        for r in records
    ]
