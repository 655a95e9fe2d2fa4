"""Model replies for `tests/e2e/test_tools.py`: a task that uses MCP servers' tools and Python tools.

Written here by hand as a model following Cairn's prompts would answer (no model served them), and
replayed with `replay:PATH?match=kind`. Unlike `coding_task.jsonl` this cassette is written by the
test itself: the git tool's `repo_path` argument is a repository the test creates in a temporary
folder. The run it scripts (a simple question):

1. detect the task type; the goal states no rule
2. iteration 1: `time.get_current_time` (MCP), `git.git_log` (MCP), `append_note` (Python, side effects)
3. iteration 2: write `answer.md`, citing the two MCP calls; the simple-question suite is met

`killed_first_part` / `resumed_part` split a shorter run in two for the kill -9 test: the first
process plans only `append_note` (and is killed inside it); the resumed one answers the rest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.tasks.cassette import CassetteEntry, Reply
from cairn.tasks.schemas import OUTPUTS, CallKind

MODEL = "scripted:tools_task"
GOAL = "What time is it in Tokyo, and what was the last commit of the project's repository?"
NOTE = "asked for the Tokyo time and the last commit"
Script = list[tuple[CallKind, dict[str, Any]]]


def _candidate(tool: str, params: dict[str, Any], why: str, evidence: list[str]) -> dict[str, Any]:
    return {"tool": tool, "params": params, "rationale": why, "expected_evidence": evidence}


def _compress(insight: str) -> tuple[CallKind, dict[str, Any]]:
    return (
        "compress",
        {"insights": insight, "learning": "", "relevance": "high", "next_suggested_actions": ""},
    )


def _synthesize(text: str) -> tuple[CallKind, dict[str, Any]]:
    return ("synthesize", {"synthesis": text, "progress_assessment": "advancing"})


ANSWER = (
    "# Answer\n\nThe current time in Tokyo comes from the time server [source: call-1-1]; the last "
    "commit of the repository is listed by git log [source: call-1-2].\n\n## Sources\n\n"
    "- call-1-1\n- call-1-2\n"
)
START: Script = [
    ("detect_task_type", {"task_type": "simple_question", "rationale": "A short factual question."}),
    ("extract_constraint", {"rule": "N/A"}),
]
WRITE_ANSWER = _candidate(
    "write_file", {"path": "answer.md", "content": ANSWER}, "Both facts are known.", ["synthesis"]
)
NOTE_CALL = _candidate("append_note", {"text": NOTE}, "Keep a note of the question.", [])


def full_script(repo: Path) -> Script:
    ask = [
        _candidate("time.get_current_time", {"timezone": "Asia/Tokyo"}, "The time server knows.", []),
        _candidate("git.git_log", {"repo_path": str(repo), "max_count": 3}, "The log names it.", []),
        NOTE_CALL,
    ]
    return [
        *START,
        ("plan", {"candidates": ask}),
        _compress("The time in Tokyo is known."),
        _compress("The last commit of the repository is known."),
        _compress("The note was appended."),
        _synthesize("Both facts were found."),
        ("plan", {"candidates": [WRITE_ANSWER]}),
        _compress("answer.md was written."),
        _synthesize("The answer is written."),
    ]


def killed_first_part() -> Script:
    return [*START, ("plan", {"candidates": [NOTE_CALL]})]


def resumed_part() -> Script:
    return [
        _synthesize("The note call was interrupted."),
        ("plan", {"candidates": [WRITE_ANSWER]}),
        _compress("answer.md was written."),
        _synthesize("The answer is written."),
    ]


def write(path: Path, script: Script) -> Path:
    """Write the replies as a cassette, each checked against its kind's output schema."""
    seen: dict[str, int] = {}
    lines = []
    for position, (kind, reply) in enumerate(script):
        OUTPUTS[kind].model_validate(reply)
        entry = CassetteEntry(
            position=position,
            kind=kind,
            occurrence=seen.get(kind, 0),
            request_hash="scripted",
            model=MODEL,
            reply=Reply(text=json.dumps(reply, ensure_ascii=False)),
        )
        lines.append(entry.model_dump_json() + "\n")
        seen[kind] = seen.get(kind, 0) + 1
    path.write_text("".join(lines), encoding="utf-8")
    return path
