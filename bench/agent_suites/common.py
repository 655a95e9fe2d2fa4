"""What every suite of `bench/agent.py` shares: a task, its grade, one side's outcome, the baseline's
one model call.

A suite task is a goal with sources (or a workspace) and a grader that no one here wrote: the
house tasks' declared facts and checks, HumanEval's hidden tests, LoCoMo's and SQuAD's token F1.
Each task runs twice with the same model and reply budget: Cairn (`run_task`, the whole loop) and
a plain baseline (one prompt, no loop).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Side = Literal["cairn", "baseline"]
# What an answer to a question states (the squad suites read it): a proven value, a value Cairn
# could not prove, that the files do not say, or nothing at all.
Stated = Literal["proven", "unverified", "not_stated", "none"]
# The sentence every question's baseline prompt ends with: the plain ask may say the files do
# not state it (a near miss, an unanswerable task), as Cairn's own answer may.
SAY_SO = "If the files do not state it, say so."
REPLY_TOKENS = 2048  # the baseline's reply cap: what Cairn's deliver and write calls may use
_FENCE = re.compile(r"```[\w+-]*\n(.*?)```", re.S)


class Grade(BaseModel):
    """A grader's verdict on one answer: correct or not, a score where the grader gives one, why."""

    correct: bool
    score: float | None = None
    why: str = "ok"
    stated: Stated | None = None  # what the answer states, where the grader reads it (squad)
    value: str = ""  # the value it gives, as the grader read it
    scored: Any = None  # the grader's own scoring, where the suite weighs it again (long: a ledger's Score)


class SuiteTask(BaseModel):
    """One task of a suite. `grade` reads the answer text and the folder of files written."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")  # a misspelt field fails

    name: str
    goal: str
    sources: list[Path] = Field(default_factory=list)
    task_type: str | None = None  # given when the suite knows it (as `cairn run --task-type`)
    kind: str | None = None  # what sort of task, where the suite sorts them (totals per kind)
    # The baseline's one prompt, built on first use: LoCoMo's indexes a whole conversation, which
    # listing the tasks (`--list`) or running Cairn alone never needs.
    prompt: Callable[[], str] = Field(default=lambda: "")
    grade: Callable[[str, Path], Grade]
    baseline_files: Callable[[str, Path], None] | None = None  # writes a coding reply's files
    # The baseline's grader, where its plain reply reads differently from Cairn's deliverable.
    grade_baseline: Callable[[str, Path], Grade] | None = None
    group: str | None = None  # what the task belongs to (squad: its article's title)

    @cached_property
    def baseline_prompt(self) -> str:
        """The one prompt the baseline gets."""
        return self.prompt()


class Outcome(BaseModel):
    """How one side did on one task."""

    task: str
    side: Side
    complete: bool  # Cairn: its verdict; the baseline: it answered (it has no check of its own)
    correct: bool
    score: float | None = None
    why: str = "ok"
    iterations: int = 0
    model_calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    stop_reason: str | None = None
    kind: str | None = None  # the task's kind, when its suite gives one
    strategy: str | None = None  # Cairn: how it did the work (question, coverage, coding, general)
    stated: Stated | None = None  # what the answer states (question suites that read it: squad)
    value: str = ""  # the value it gives

    @property
    def false_complete(self) -> bool:
        """Complete but not correct: the worst thing Cairn can say."""
        return self.complete and not self.correct


class Reply(BaseModel):
    text: str
    tokens: int
    seconds: float
    error: str | None = None


def ask_plainly(model: str, prompt: str, timeout: float, **litellm_kwargs: Any) -> Reply:
    """The baseline's one request: the prompt as a user message, no schema, the same reply cap."""
    import litellm

    started = time.monotonic()
    try:
        response = litellm.completion(
            model=model,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=REPLY_TOKENS,
            temperature=0.0,
            timeout=timeout,
            num_retries=0,
            **litellm_kwargs,
        )
    except Exception as exc:  # a failed baseline call is an unanswered task, shown with its reason
        return Reply(text="", tokens=0, seconds=time.monotonic() - started, error=str(exc).splitlines()[0])
    usage = getattr(response, "usage", None)
    tokens = int(getattr(usage, "total_tokens", 0) or 0)
    text = response.choices[0].message.content or ""
    return Reply(text=text, tokens=tokens, seconds=time.monotonic() - started)


def code_blocks(text: str) -> list[str]:
    """The fenced code blocks of a reply, in order (the whole reply when it has none).

    >>> code_blocks("Here:\\n```python\\ndef f():\\n    return 1\\n```\\n")
    ['def f():\\n    return 1\\n']
    """
    found = _FENCE.findall(text)
    return found or [text]
