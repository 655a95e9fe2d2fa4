"""Model replies for `tests/e2e/test_tools.py`: a task that uses MCP servers' tools and Python tools.

Written here by hand as a model following Cairn's prompts would answer (no model served them), and
replayed with `replay:PATH?match=kind`. Unlike `coding_task.jsonl` this cassette is written by the
test itself: the git tool's `repo_path` argument is a repository the test creates in a temporary
folder. The run it scripts (a simple question):

1. detect the task type; the goal states no rule
2. iteration 1: `time.convert_time` (MCP), `git.git_log` (MCP), `append_note` (Python, side effects)
3. iteration 2: write `answer.md`, stating what the two MCP calls returned (the time, the commit's
   message) and citing them; every claim is in the tools' outputs, but the offline verifier proves
   neither part, so the task ends there, its answer given unverified

`killed_first_part` / `resumed_part` split a shorter run in two for the kill -9 test: the first
process plans only `append_note` (and is killed inside it); the resumed one asks the two servers
and answers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.tasks.messages.schemas import OUTPUTS, CallKind
from cairn.tasks.model.cassette import CassetteEntry, Reply

MODEL = "scripted:tools_task"
GOAL = "What time is it in Tokyo when it is 12:00 in London, and what is the commit message in the git log?"
COMMIT = "Add the reservoir notes"  # the one commit of the repository the test makes
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


def answer(time_call: str, git_call: str) -> str:
    return (
        f"# Answer\n\nWhen it is 12:00 in London, it is 21:00 in Tokyo [source: {time_call}]. The commit "
        f'message in the git log is "{COMMIT}" [source: {git_call}].\n\n## Sources\n\n'
        f"- {time_call}\n- {git_call}\n"
    )


def write_answer(time_call: str, git_call: str) -> dict[str, Any]:
    content = answer(time_call, git_call)
    params = {"path": "answer.md", "content": content}
    return _candidate("write_file", params, "Both facts are known.", ["synthesis"])


def ask_servers(repo: Path) -> list[dict[str, Any]]:
    return [
        _candidate(
            "time.convert_time",
            {"source_timezone": "Europe/London", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            "The time server converts it.",
            [],
        ),
        _candidate("git.git_log", {"repo_path": str(repo), "max_count": 3}, "The log names it.", []),
    ]


START: Script = [
    ("detect_task_type", {"task_type": "simple_question", "rationale": "A short factual question."}),
    ("extract_constraint", {"rule": "N/A"}),
]
NOTE_CALL = _candidate("append_note", {"text": NOTE}, "Keep a note of the question.", [])


def full_script(repo: Path) -> Script:
    return [
        *START,
        ("plan", {"candidates": [*ask_servers(repo), NOTE_CALL]}),
        _compress("The time in Tokyo is known."),
        _compress("The last commit of the repository is known."),
        _compress("The note was appended."),
        _synthesize("Both facts were found."),
        ("plan", {"candidates": [write_answer("call-1-1", "call-1-2")]}),
        _compress("answer.md was written."),
        _synthesize("The answer is written."),
    ]


def killed_first_part() -> Script:
    return [*START, ("plan", {"candidates": [NOTE_CALL]})]


def resumed_part(repo: Path) -> Script:
    return [
        _synthesize("The note call was interrupted."),
        ("plan", {"candidates": ask_servers(repo)}),
        _compress("The time in Tokyo is known."),
        _compress("The last commit of the repository is known."),
        _synthesize("Both facts were found."),
        ("plan", {"candidates": [write_answer("call-2-1", "call-2-2")]}),
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
