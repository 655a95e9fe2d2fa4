"""Write `coding_task.jsonl`: the scripted model replies of one coding task, in cassette format.

No model served these replies: they are written here, by hand, as a model following Cairn's prompts
would answer them, and replayed with `replay:PATH?match=kind` (each call gets the next reply of its
kind, whatever its prompt). The run they script:

1. detect the task type (coding_task); the goal states no rule (N/A)
2. write `slugify.py` (a documented function with a bug: it splits on whitespace only) and
   `test_slugify.py`, asked for alone (`write`: a coding task with nothing to read writes first)
3. run the tests (the code changed since they last ran: no model call): two fail, hot issues open
4. asked for the files again, shown the failing run: rewrite `slugify.py` (keep runs of letters
   and digits) and add a `README.md`
5. run the tests again: all pass, the hot issues resolve, the coding suite is satisfied

Regenerate after editing: `.venv/bin/python -m tests.cassettes.make_coding_cassette`.
`tests/e2e/test_coding_task.py` checks the committed file matches what this script writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.tasks.messages.file_reply import files_reply
from cairn.tasks.messages.schemas import OUTPUTS, CallKind, WriteOutput
from cairn.tasks.model.cassette import CassetteEntry, Reply

CASSETTE = Path(__file__).with_name("coding_task.jsonl")
MODEL = "scripted:coding_task"  # not a litellm model: nothing was recorded from a provider
REQUEST_HASH = "scripted"  # requests were never seen; replay matches by kind, not by request

GOAL = (
    "Write a Python module slugify.py with a function slugify(title) that turns a title into a URL "
    "slug: the words of letters and digits in lowercase, joined by single hyphens, punctuation dropped. "
    "Add pytest tests in test_slugify.py and make them pass."
)

BUGGY_CODE = '''"""Turn titles into URL slugs."""

import re


def slugify(title: str) -> str:
    """Return the URL slug of ``title``: its words in lowercase, joined by single hyphens.

    >>> slugify("Hello World")
    'hello-world'
    """
    words = re.split(r"\\s+", title.strip().lower())
    return "-".join(words)
'''

FIXED_CODE = '''"""Turn titles into URL slugs."""

import re

_WORD = re.compile(r"[a-z0-9]+")


def slugify(title: str) -> str:
    """Return the URL slug of ``title``: its runs of letters and digits in lowercase, joined by
    single hyphens; punctuation and whitespace only separate words.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    return "-".join(_WORD.findall(title.lower()))
'''

TESTS = """from slugify import slugify


def test_lowercases_and_joins_words_with_hyphens():
    assert slugify("Hello World") == "hello-world"


def test_drops_punctuation():
    assert slugify("Hello, World!") == "hello-world"


def test_collapses_runs_of_separators():
    assert slugify("  Rock --  Roll  ") == "rock-roll"


def test_keeps_digits():
    assert slugify("Top 10 Tips") == "top-10-tips"


def test_empty_title_gives_empty_slug():
    assert slugify("") == ""
"""

README = """# slugify

`slugify(title)` turns a title into a URL slug: the runs of letters and digits in the title, in
lowercase, joined by single hyphens. Punctuation and whitespace only separate words.

```python
>>> from slugify import slugify
>>> slugify("Hello, World!")
'hello-world'
```

Run the tests with `pytest test_slugify.py`.
"""

FAILING_TESTS = ("test_drops_punctuation", "test_collapses_runs_of_separators")


# (kind, reply) in the order the flow asks: start, then per iteration the files when asked for
# them, one compression per call in call order (`--compress each`), synthesis. Validation is not a
# model call; no planner is asked (the coding step decides each iteration).
SCRIPT: list[tuple[CallKind, dict[str, Any]]] = [
    (
        "detect_task_type",
        {
            "task_type": "coding_task",
            "rationale": "The goal asks for a Python module and pytest tests that pass: code to write "
            "and run.",
        },
    ),
    ("extract_constraint", {"rule": "N/A"}),
    # Iteration 1: a coding task with nothing to read asks for its files at once (`write`).
    (
        "write",
        {
            "files": [
                {"path": "slugify.py", "content": BUGGY_CODE},
                {"path": "test_slugify.py", "content": TESTS},
            ]
        },
    ),
    (
        "compress",
        {
            "insights": "Wrote slugify.py: slugify(title) lowercases the title, splits it on whitespace and "
            "joins the pieces with hyphens; documented with a docstring and a doctest.",
            "learning": "Splitting on whitespace alone may leave punctuation inside the words.",
            "relevance": "high",
            "next_suggested_actions": "Run the tests to check the implementation.",
        },
    ),
    (
        "compress",
        {
            "insights": "Wrote test_slugify.py with 5 tests: case and hyphens, punctuation, runs of "
            "separators, digits, empty title.",
            "learning": "The tests import slugify from slugify.py in the same directory.",
            "relevance": "high",
            "next_suggested_actions": "Run pytest on the workspace.",
        },
    ),
    (
        "synthesize",
        {
            "synthesis": "slugify.py and its tests are written; nothing has been run yet, so whether the "
            "tests pass is unknown.",
            "progress_assessment": "advancing",
        },
    ),
    # Iteration 2: the code changed since the tests last ran, so they run (no model call); two fail.
    (
        "compress",
        {
            "insights": "3 passed, 2 failed: test_drops_punctuation gets 'hello,-world!' and "
            "test_collapses_runs_of_separators gets 'rock----roll'.",
            "learning": "Splitting on whitespace keeps punctuation and turns '--' into a word of its own; "
            "slugify must keep only runs of letters and digits.",
            "relevance": "high",
            "next_suggested_actions": "Rewrite slugify with re.findall(r'[a-z0-9]+') on the lowercased "
            "title, then run the tests again.",
        },
    ),
    (
        "synthesize",
        {
            "synthesis": "The tests found the bug: whitespace splitting keeps punctuation and separator "
            "runs. The cause is clear and the fix is small.",
            "progress_assessment": "advancing",
        },
    ),
    # Iteration 3: asked again for the files, shown the failing run: the module fixed, documented.
    (
        "write",
        {"files": [{"path": "slugify.py", "content": FIXED_CODE}, {"path": "README.md", "content": README}]},
    ),
    (
        "compress",
        {
            "insights": "Rewrote slugify.py: slugify now joins the [a-z0-9]+ runs of the lowercased title "
            "with hyphens, which drops punctuation and collapses separators.",
            "learning": "The fix addresses both failing tests; they have to be run again to confirm.",
            "relevance": "high",
            "next_suggested_actions": "Run the tests.",
        },
    ),
    (
        "compress",
        {
            "insights": "Wrote README.md: what slugify returns, an example and how to run the tests.",
            "learning": "The module is documented for users beside its docstrings.",
            "relevance": "medium",
            "next_suggested_actions": "Run the tests to confirm the fix.",
        },
    ),
    (
        "synthesize",
        {
            "synthesis": "slugify.py is fixed to keep only letters and digits, and README.md documents it; "
            "the failing tests have not been re-run yet.",
            "progress_assessment": "advancing",
        },
    ),
    # Iteration 4: the code changed again, the tests run again and pass.
    (
        "compress",
        {
            "insights": "All 5 tests pass, including test_drops_punctuation and "
            "test_collapses_runs_of_separators.",
            "learning": "slugify meets the goal: lowercase alphanumeric words joined by single hyphens.",
            "relevance": "high",
            "next_suggested_actions": "Nothing more is needed: the code, its tests and its docs are done.",
        },
    ),
    (
        "synthesize",
        {
            "synthesis": "The tests pass after the fix; slugify.py, test_slugify.py and README.md meet "
            "the goal.",
            "progress_assessment": "advancing",
        },
    ),
]


def entries() -> list[CassetteEntry]:
    """The cassette's entries; each reply is checked against its kind's output schema."""
    seen: dict[str, int] = {}
    out = []
    for position, (kind, reply) in enumerate(SCRIPT):
        output = OUTPUTS[kind].model_validate(reply)
        text = json.dumps(reply, ensure_ascii=False)
        if isinstance(output, WriteOutput):  # files are written as fenced blocks, not JSON
            text = files_reply({draft.path: draft.content for draft in output.files})
        out.append(
            CassetteEntry(
                position=position,
                kind=kind,
                occurrence=seen.get(kind, 0),
                request_hash=REQUEST_HASH,
                model=MODEL,
                reply=Reply(text=text),
            )
        )
        seen[kind] = seen.get(kind, 0) + 1
    return out


def render() -> str:
    return "".join(entry.model_dump_json() + "\n" for entry in entries())


def main() -> None:
    CASSETTE.write_text(render(), encoding="utf-8")
    print(f"wrote {len(SCRIPT)} replies to {CASSETTE}")


if __name__ == "__main__":
    main()
